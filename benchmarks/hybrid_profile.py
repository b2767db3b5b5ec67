#!/usr/bin/env python
"""Where a hybrid search's wall time goes at 100,000 chunks, per query category: the BM25 lane
(this thread) against the vector lane (query embedding, then the scan, on the other core),
what this thread reads while it waits, the wait itself, and the work after both lanes
(fusion, hits, match quality).

    python benchmarks/hybrid_profile.py [HOME] [--reps 5]

HOME defaults to run.py's cached 100k index (/tmp/pms-bench-cache/home100k). Stored vectors
there are random; queries are embedded by the real model, caches cleared before each search,
as run.py measures. Research, not part of the product.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, os.environ.get("PMS_TREE", str(HERE.parent)))

STAGES = ("bm25 lane", "read while waiting", "waiting for vectors", "after the lanes")
VECTOR = ("embed query", "scan")


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("home", nargs="?", default="/tmp/pms-bench-cache/home100k")
    p.add_argument("--reps", type=int, default=5)
    opts = p.parse_args()
    from fake_embed import RandomUnitEmbedder
    from run import load_queries, pct

    from pms_tui.core.config import load_settings
    from pms_tui.core.indexing.embed import Embedder
    from pms_tui.core.kb import KnowledgeBase

    settings = load_settings(Path(opts.home))
    real = Embedder(settings.model, settings.embed_batch_size, settings.max_tokens)
    kb = KnowledgeBase(opts.home, settings, embedder=RandomUnitEmbedder.posing_as_default(query_model=real))
    real.load()
    kb._vectors.refresh()
    ret = kb.retrieval
    marks: dict[str, float] = {}
    lock = threading.Lock()

    def mark(obj, name: str, label: str) -> None:
        """Record when ``obj.name`` last ended, and its calls' summed duration."""
        fn = getattr(obj, name)

        def wrapped(*a, **kw):
            t = time.perf_counter()
            try:
                return fn(*a, **kw)
            finally:
                with lock:
                    now = time.perf_counter()
                    marks[label + ":took"] = marks.get(label + ":took", 0.0) + now - t
                    marks[label] = now
        setattr(obj, name, wrapped)

    mark(ret.bm25, "ranked", "bm25")
    mark(ret, "_while_waiting", "waiting read")
    mark(real, "embed_query", "embed")
    mark(ret.vectors, "search", "scan")
    mark(ret, "_gather", "gather")

    def cold() -> None:
        real._query_cache.clear()
        ret.planner.clear_caches()

    queries = load_queries()
    for _, q in queries:  # warm pages and code paths
        cold()
        ret.search(q, k=10)
    rows: dict[str, list[dict[str, float]]] = {}
    for _ in range(opts.reps):
        for category, q in queries:
            cold()
            marks.clear()
            t0 = time.perf_counter()
            ret.search(q, k=10)
            end = time.perf_counter()
            bm25_end = marks["bm25"]
            read_end = marks.get("waiting read", bm25_end)
            gather = marks["gather"]
            stages = {
                "total": end - t0,
                "bm25 lane": bm25_end - t0,
                "read while waiting": read_end - bm25_end,
                "waiting for vectors": gather - read_end,
                "after the lanes": end - gather,
                "embed query": marks["embed:took"],
                "scan": marks["scan:took"],
                "vector lane ends": marks["scan"] - t0,
            }
            rows.setdefault(category, []).append({k: v * 1000 for k, v in stages.items()})
    load = os.getloadavg()
    print(f"hybrid at {kb.stats()['chunks']:,} chunks, {opts.reps} reps; load {load[0]:.2f} {load[1]:.2f}")
    every = [r for v in rows.values() for r in v]
    cols = ("total",) + STAGES + VECTOR + ("vector lane ends",)
    print("| category | " + " | ".join(cols) + " |")
    print("|---" * (len(cols) + 1) + "|")
    for name, v in list(rows.items()) + [("all", every)]:
        cells = [f"{statistics.median(r[c] for r in v):.1f}" for c in cols]
        print(f"| {name} (median) | " + " | ".join(cells) + " |")
    slow = sorted(every, key=lambda r: r["total"])[int(len(every) * 0.9):]
    cells = [f"{statistics.mean(r[c] for r in slow):.1f}" for c in cols]
    print(f"| slowest 10 % (mean) | " + " | ".join(cells) + " |")
    print(f"p50 {pct([r['total'] for r in every], .5):.1f} ms, p95 {pct([r['total'] for r in every], .95):.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
