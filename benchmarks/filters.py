#!/usr/bin/env python
"""Filtered search at scale: hybrid latency with a filter that allows ~1% of the notes.

    python benchmarks/filters.py            # builds (or reuses) the 100,000-chunk index
    python benchmarks/filters.py --chunks 10000

Uses the 100,000-chunk vault and index of benchmarks/run.py (cached under
/tmp/pms-bench-cache; built here when absent, with random stored vectors and the real model
for every query, as run.py does). For each query of benchmarks/queries.txt it times
``kb.search(query + " path:PREFIX", k=10)`` cold, where PREFIX is the folder whose notes are
closest to 1% of all notes, and the same query unfiltered; it also checks that the filtered
search fills its 10 hits (the filter allows far more than 10 passages). Prints the numbers
and, with ``--write-doc``, replaces this runner's section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import doc_sections  # noqa: E402
import run as runner  # noqa: E402 - benchmarks/run.py: helpers, workers, the big vault
import vaults  # noqa: E402

DOC_KEY = "benchmarks/filters.py"


def one_percent_prefix(conn) -> tuple[str, int, int]:
    """(``collection/folder/``, its notes, all notes): the folder closest to 1% of the notes."""
    total = conn.execute("SELECT count(*) FROM documents").fetchone()[0]
    counts: dict[str, int] = {}
    rows = conn.execute("SELECT col.name, d.path FROM documents d JOIN collections col ON col.id = d.collection_id")
    for name, path in rows:
        parts = path.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            key = f"{name}/{'/'.join(parts[:i])}/"
            counts[key] = counts.get(key, 0) + 1
    target = total / 100
    best = min(counts, key=lambda k: (abs(counts[k] - target), k))
    return best, counts[best], total


def w_filtered(home: str, reps: int) -> dict:
    from fake_embed import RandomUnitEmbedder
    from pms_tui.core.config import load_settings
    from pms_tui.core.indexing.embed import Embedder
    from pms_tui.core.kb import KnowledgeBase

    settings = load_settings(Path(home))
    real = Embedder(settings.model, settings.embed_batch_size, settings.max_tokens)
    real.load()
    kb = KnowledgeBase(home, settings, embedder=RandomUnitEmbedder.posing_as_default(query_model=real))
    kb._vectors.refresh()
    conn = kb._store.conn
    prefix, notes, total = one_percent_prefix(conn)
    passages = conn.execute(
        "SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.document_id "
        "JOIN collections col ON col.id = d.collection_id WHERE col.name || '/' || d.path LIKE ?",
        (prefix + "%",),
    ).fetchone()[0]
    queries = [q for _, q in runner.load_queries()]

    def cold() -> None:
        real._query_cache.clear()
        kb.retrieval.planner.clear_caches()

    for q in queries:  # warm once, unmeasured
        kb.search(f"{q} path:{prefix}", k=10)
    times: dict[str, list[float]] = {"filtered": [], "unfiltered": [], "filtered_bm25": []}
    short = 0
    for _ in range(reps):
        for q in queries:
            for name, query, mode in (("filtered", f"{q} path:{prefix}", "hybrid"),
                                      ("unfiltered", q, "hybrid"),
                                      ("filtered_bm25", f"{q} path:{prefix}", "bm25")):
                cold()
                t = time.perf_counter()
                result = kb.search(query, k=10, mode=mode)
                times[name].append((time.perf_counter() - t) * 1000)
                if name == "filtered":
                    assert all(f"{h.collection}/{h.relpath}".startswith(prefix) for h in result)
                    short += len(result) < 10
    chunks = kb.stats()["chunks"]
    kb.close()
    return {
        "chunks": chunks, "notes": total, "prefix": prefix, "prefix_notes": notes, "prefix_passages": passages,
        "queries": len(queries), "reps": reps, "short_results": short,
        "lat": {n: {"p50": runner.pct(v, 0.5), "p95": runner.pct(v, 0.95), "max": max(v)} for n, v in times.items()},
    }


runner.WORKERS["filtered"] = w_filtered


def render(r: dict) -> str:
    lat = r["lat"]
    share = 100 * r["prefix_notes"] / max(r["notes"], 1)
    ok = "met" if lat["filtered"]["p95"] <= 60 else "**not met**"
    return "\n".join([
        f"Filtered search ({r['chunks']:,} chunks, measured {r.get('measured_at', '?')}, "
        f"load {r.get('load_at_start', '?')} → {r.get('load_at_end', '?')})",
        "",
        f"Filter `path:{r['prefix']}`: {r['prefix_notes']:,} of {r['notes']:,} notes ({share:.1f}%), "
        f"{r['prefix_passages']:,} passages; {r['queries']} queries × {r['reps']} repetitions, cold caches.",
        "",
        "| search (k=10) | p50 | p95 | max | target |",
        "|---|---|---|---|---|",
        f"| hybrid, filtered | {runner._ms(lat['filtered']['p50'])} | {runner._ms(lat['filtered']['p95'])} | "
        f"{runner._ms(lat['filtered']['max'])} | p95 ≤ 60 ms: {ok} |",
        f"| BM25 alone, filtered | {runner._ms(lat['filtered_bm25']['p50'])} | "
        f"{runner._ms(lat['filtered_bm25']['p95'])} | {runner._ms(lat['filtered_bm25']['max'])} | |",
        f"| hybrid, unfiltered (same run) | {runner._ms(lat['unfiltered']['p50'])} | "
        f"{runner._ms(lat['unfiltered']['p95'])} | {runner._ms(lat['unfiltered']['max'])} | |",
        "",
        f"Filtered searches that returned fewer than 10 hits: {r['short_results']} "
        "(each lane ranks within the filter, so a narrow filter still fills k).",
    ])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--write-doc", action="store_true",
                        help="replace this runner's section of docs/benchmarks.md with this run's figures")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("args", nargs="?", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.worker:
        print(json.dumps(runner.WORKERS[opts.worker](**json.loads(opts.args or "{}"))))
        return 0
    run = doc_sections.start()
    if not vaults.available():
        runner.log(f"No corpora under {vaults.CORPORA}: nothing to measure.")
        return 0
    vaults.CACHE.mkdir(parents=True, exist_ok=True)
    _, cols, n = vaults.build_big_vault(opts.chunks, log=runner.log)
    home = vaults.CACHE / f"home{opts.chunks // 1000}k"
    if not (home / "index.sqlite").exists():
        runner.log(f"indexing {n} chunks into {home} (random stored vectors)")
        runner.run_worker("build", home=str(home), collections=[(a, str(b)) for a, b in cols])
    runner.log("filtered search latency")
    result = _run_here("filtered", home=str(home), reps=opts.reps)
    text = render(result)
    print(text)
    if opts.write_doc:
        doc_sections.write_section(runner.DOC, DOC_KEY, text, run, doc_sections.load_now())
    return 0


def _run_here(name: str, **kwargs) -> dict:
    """run.py's run_worker, but the worker process runs this file (which registers it)."""
    import subprocess

    load = runner.os.getloadavg()[0]
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--worker", name, json.dumps(kwargs)],
        stdout=subprocess.PIPE, text=True, cwd=str(runner.REPO), check=True, timeout=1800,
    )
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    result["load_at_start"] = round(load, 2)
    result["load_at_end"] = round(runner.os.getloadavg()[0], 2)
    result["measured_at"] = runner.dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    return result


if __name__ == "__main__":
    raise SystemExit(main())
