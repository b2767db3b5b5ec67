#!/usr/bin/env python
"""Where the BM25 lane's time goes, per query: every SQL statement the lane runs (its time and
kind), the planner's mode, and each phrase's rows and instances (what FTS5 reads for it).

    python benchmarks/bm25_profile.py HOME [--reps 5] [--json OUT] [--decompose]

Caches of stems and frequencies are cleared before every query (as run.py measures); the
page cache is warmed by one unmeasured pass. Research, not part of the product.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
# PMS_TREE: profile another checkout's engine (an A/B against main) with this script
sys.path.insert(0, os.environ.get("PMS_TREE", str(HERE.parent)))
import pms_tui  # noqa: E402  (before run.py puts this checkout first on the path)
from run import load_queries, pct  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("home")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--json")
    p.add_argument("--only", default="", help="comma list of categories")
    p.add_argument("--schema", type=int, help="refuse an index of another schema version (an A/B must not upgrade it)")
    p.add_argument("--decompose", action="store_true",
                   help="split each ranked statement's time into FTS5's parts (see decompose())")
    opts = p.parse_args()
    from pms_tui.core.config import load_settings
    from pms_tui.core.search import bm25 as bm25_mod
    from pms_tui.core.search import query as fts_query
    from pms_tui.core.store import Store, fts

    if opts.schema is not None:
        import sqlean

        probe = sqlean.connect(str(Path(opts.home) / "index.sqlite"))
        found = int(probe.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0])
        probe.close()
        if found != opts.schema:
            print(f"{opts.home}: schema {found}, not {opts.schema}")
            return 1
    settings = load_settings(Path(opts.home))
    store = Store(Path(opts.home) / "index.sqlite")
    lane = bm25_mod.Bm25Lane(store, settings)
    depth = max(10, settings.lane_depth)
    queries = [(c, q) for c, q in load_queries() if not opts.only or c in opts.only.split(",")]
    log: list[tuple[str, str, float]] = []

    def timed(name, fn, describe=lambda *a: ""):
        def wrapper(*args, **kw):
            t = time.perf_counter()
            try:
                return fn(*args, **kw)
            finally:
                log.append((name, describe(*args), (time.perf_counter() - t) * 1000))
        return wrapper

    fts.Bm25Query.ranked = timed("ranked", fts.Bm25Query.ranked, lambda self, e, d: e)
    fts.Bm25Query.count = timed("count", fts.Bm25Query.count, lambda self, e, c: e)
    for name in ("document_frequencies", "prefix_frequency", "stem", "row_count", "change_key", "create_temp_tables"):
        setattr(fts, name, timed(name, getattr(fts, name), lambda *a: str(a[1])[:60] if len(a) > 1 else ""))
    conn = store.conn
    for _, q in queries:  # warm
        lane.planner.clear_caches()
        lane.ranked(q, depth)
    report = {}
    for _ in range(opts.reps):
        for cat, q in queries:
            lane.planner.clear_caches()
            log.clear()
            t = time.perf_counter()
            c0 = time.process_time()
            lane.ranked(q, depth)
            ms = (time.perf_counter() - t) * 1000
            cpu = (time.process_time() - c0) * 1000
            info = lane.planner.last
            r = report.setdefault(q, {"category": cat, "ms": [], "cpu": [], "steps": [], "mode": info.mode,
                                      "exact": info.exact, "postings": info.postings, "dropped": info.dropped})
            r["ms"].append(ms)
            r["cpu"].append(cpu)
            r["steps"].append(list(log))
    # per phrase: rows and instances (fts5vocab), for the last plan of each query
    vocab = {}
    for q, r in report.items():
        match = fts_query.build_match(q)
        planned = lane.planner.groups(conn, match) if " OR " in match else None
        r["phrases"] = []
        if planned:
            for g in planned[1]:
                inst = 0
                if len(g.tokens) == 1 and not g.prefix:
                    row = conn.execute("SELECT cnt FROM temp.pms_vocab WHERE term = ?", (g.tokens[0],)).fetchone()
                    inst = row[0] if row else 0
                elif g.prefix and len(g.tokens) == 1:
                    t0 = g.tokens[0]
                    row = conn.execute("SELECT count(*), sum(cnt) FROM temp.pms_vocab WHERE term >= ? AND term < ?",
                                       (t0, t0[:-1] + chr(ord(t0[-1]) + 1))).fetchone()
                    inst = row[1] or 0
                    g.text += f" ({row[0]} terms)"
                r["phrases"].append((g.text, g.count, g.df, g.cost, inst, round(g.bound, 2)))
    load = os.getloadavg()
    print(f"engine {Path(pms_tui.__file__).parent}; load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
          f"reps {opts.reps}; depth {depth}")
    allms = [m for r in report.values() for m in r["ms"]]
    print(f"all: p50 {pct(allms, .5):.1f} p95 {pct(allms, .95):.1f} ms")
    for cat in dict.fromkeys(r["category"] for r in report.values()):
        v = [m for r in report.values() if r["category"] == cat for m in r["ms"]]
        print(f"  {cat}: p50 {pct(v, .5):.1f} p95 {pct(v, .95):.1f}")
    for q, r in sorted(report.items(), key=lambda kv: -statistics.median(kv[1]["ms"])):
        med = statistics.median(r["ms"])
        print(f"\n[{r['category']}] {med:.1f} ms (min {min(r['ms']):.1f}, cpu {statistics.median(r['cpu']):.1f}) "
              f"{r['mode']} exact={r['exact']} postings={r['postings']} dropped={r['dropped']}: {q[:70]}")
        # median per step position
        steps = r["steps"]
        n = min(len(s) for s in steps)
        for i in range(n):
            name, desc, _ = steps[0][i]
            times = [s[i][2] for s in steps]
            print(f"    {statistics.median(times):7.2f} ms  {name:20s} {desc[:110]}")
        if any(len(s) != n for s in steps):
            print("    (steps differ between reps)")
        for ph in r["phrases"]:
            print(f"      phrase {ph[0]:28s} x{ph[1]} df {ph[2]:6d} cost {ph[3]:7d} inst {ph[4]:8d} bound {ph[5]}")
    if opts.decompose:
        weights = (settings.title_weight, settings.heading_weight, settings.body_weight)
        decompose(conn, report, weights, depth)
    if opts.json:
        Path(opts.json).write_text(json.dumps(report, indent=1))
    return 0


PHRASE = re.compile(r'"(?:[^"]|"")*"\*?')


def decompose(conn, report: dict, weights: tuple[float, float, float], depth: int) -> None:
    """Where a ranked statement's time goes inside FTS5, measured by subtraction (best of 5
    runs of each statement, same connection, pages warm):

    * iterating: ``count(*)`` of the expression, the rows it matches without scoring;
    * counting: ``count(*)`` of each of its phrases alone, the pass FTS5's bm25() makes over
      every phrase's whole doclist for its idf before the first row is scored;
    * scoring: the ranked statement (bm25(), ORDER BY, LIMIT) minus those two: per row and
      phrase, the cost of bm25()'s per-row work (instances, column sizes) and the sort.
    Planning (stems, frequencies) is the lane's time minus its statements'."""
    score = "bm25(chunks_fts, {}, {}, {})".format(*map(float, weights))
    ranked_sql = f"SELECT rowid, {score} AS s FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY s LIMIT ?"
    count_sql = "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?"

    def best(sql: str, args: tuple) -> tuple[float, list]:
        times, rows = [], []
        for _ in range(5):
            t = time.perf_counter()
            rows = conn.execute(sql, args).fetchall()
            times.append((time.perf_counter() - t) * 1000)
        return min(times), rows

    totals = {"lane": 0.0, "iterating": 0.0, "counting": 0.0, "scoring": 0.0, "planning": 0.0}
    per_row_phrase: list[float] = []
    print("\n## Decomposition (best of 5 per statement; ms)")
    print("query | lane | statement | rows | phrases | iterating | counting (idf) | scoring | per row x phrase")
    for q, r in sorted(report.items(), key=lambda kv: -statistics.median(kv[1]["ms"])):
        lane_ms = min(r["ms"])
        statements = 0.0
        for name, expression, _ in r["steps"][-1]:
            if name != "ranked":
                if name == "count":
                    statements += best(count_sql, (expression,))[0]
                continue
            ranked_ms, _ = best(ranked_sql, (expression, depth))
            iter_ms, found = best(count_sql, (expression,))
            phrases = list(dict.fromkeys(PHRASE.findall(expression)))
            count_ms = sum(best(count_sql, (ph,))[0] for ph in phrases)
            rows = found[0][0]
            scoring = max(0.0, ranked_ms - iter_ms - count_ms)
            statements += ranked_ms
            totals["iterating"] += iter_ms
            totals["counting"] += count_ms
            totals["scoring"] += scoring
            unit = scoring * 1000 / max(1, rows * len(phrases))
            if rows >= 1000:
                per_row_phrase.append(unit)
            print(f"{q[:40]} | {lane_ms:.1f} | {expression[:50]} | {rows} | {len(phrases)} | {iter_ms:.2f} | "
                  f"{count_ms:.2f} | {scoring:.2f} | {unit:.2f} us")
        totals["lane"] += lane_ms
        totals["planning"] += max(0.0, lane_ms - statements)
    lane = totals.pop("lane")
    print(f"\nall queries: lane {lane:.1f} ms (sum of best runs); " + ", ".join(
        f"{k} {v:.1f} ms ({100 * v / lane:.0f} %)" for k, v in totals.items()))
    if per_row_phrase:
        print(f"scoring per matched row and phrase (statements of 1,000+ rows): median "
              f"{statistics.median(per_row_phrase):.2f} us")


if __name__ == "__main__":
    raise SystemExit(main())
