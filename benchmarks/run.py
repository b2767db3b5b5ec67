#!/usr/bin/env python
"""Speed at scale, measured: one command that builds indexes in throwaway homes and reports.

    python benchmarks/run.py           # full run (10,000 and 100,000 chunks), ~15 minutes
    python benchmarks/run.py --quick   # 10,000-chunk smoke run, a few minutes
    python benchmarks/run.py --reuse   # keep the 100,000-chunk indexes cached in /tmp
    python benchmarks/run.py --base none   # the 100,000-chunk part without the side by side

The 100,000-chunk part runs side by side with commit 38ea43d (``--base``) in the same run:
see benchmarks/side_by_side.py.

Prints every figure beside its target; ``--write-doc`` replaces this runner's section of
docs/benchmarks.md (benchmarks/doc_sections.py) with them, the command, the date and the load.

What is real and what is not, figure by figure, is said in the report itself. In short:
full-text data is real text from the shared Markdown corpora (read in place; the 100,000-chunk
vault is made of copies of them under /tmp with per-file unique titles, see vaults.py); the
*stored* vectors of the query-latency indexes are random unit vectors (RandomUnitEmbedder,
benchmark-only), while every *query* is embedded by the real offline model; indexing
throughput and the one-edit sync embed with the real model. Each measurement runs in its
own subprocess, so peak memory is per measurement.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import inspect
import json
import math
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

import doc_sections  # noqa: E402

DOC = REPO / "docs" / "benchmarks.md"
DOC_KEY = "benchmarks/run.py"
QUERIES = HERE / "queries.txt"


# -- helpers ------------------------------------------------------------------------------------
def log(*parts) -> None:
    print(*parts, file=sys.stderr, flush=True)


def pct(values: list[float], q: float) -> float:
    """Nearest-rank percentile."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def maxrss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def load_queries() -> list[tuple[str, str]]:
    out = []
    for line in QUERIES.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#") or "|" not in line:
            continue
        category, query = line.split("|", 1)
        out.append((category.strip(), query.strip()))
    return out


QUIET = {"load": 1.0, "wait": 0.0}  # set from --wait-quiet
WORKER_TIMEOUT = {"ui": 300, "queries": 900, "build": 900, "sync": 600, "throughput": 1500}


def wait_quiet() -> float:
    """Wait (up to QUIET["wait"] seconds) for the 1-minute load average to fall below
    QUIET["load"]: other programs on a 2-core machine double latency figures. Returns the load."""
    deadline = time.monotonic() + QUIET["wait"]
    load = os.getloadavg()[0]
    if load >= QUIET["load"] and QUIET["wait"] > 0:
        log(f"  waiting for a quieter machine (load {load:.2f})")
    while load >= QUIET["load"] and time.monotonic() < deadline:
        time.sleep(5)
        load = os.getloadavg()[0]
    return load


def run_worker(name: str, **kwargs) -> dict:
    """Run one measurement in a fresh Python process; its result is the last stdout line."""
    load = wait_quiet() if name in ("queries", "ui", "sync", "throughput") else os.getloadavg()[0]
    from workers import run_json

    result = run_json([sys.executable, str(Path(__file__).resolve()), "--worker", name, json.dumps(kwargs)],
                      label=name, timeout=WORKER_TIMEOUT.get(name, 1800), cwd=str(REPO), load=load)
    log(f"  [{name}] done in {result['wall_seconds']:.0f}s (load {load:.2f} -> {result['load_at_end']:.2f})")
    return result


def machine() -> dict:
    import numpy
    import sqlean

    cpu = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        load = os.getloadavg()
    except OSError:
        load = (float("nan"),) * 3
    try:
        import onnxruntime

        ort = onnxruntime.__version__
    except Exception:
        ort = "?"
    return {
        "cores": os.cpu_count(),
        "cpu": cpu,
        "date": dt.datetime.now().strftime("%Y-%m-%d %H:%M"),
        "python": platform.python_version(),
        "sqlite": sqlean.sqlite_version,
        "numpy": numpy.__version__,
        "onnxruntime": ort,
        "load_before": [round(x, 2) for x in load],
        "memory_gb": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
    }


# -- workers (each runs in its own process) -------------------------------------------------------
def w_build(home: str, collections: list, fake: str = "default") -> dict:
    """Index ``collections`` into ``home`` with random stored vectors (RandomUnitEmbedder)."""
    from fake_embed import RandomUnitEmbedder
    from pms_tui.core.kb import KnowledgeBase

    shutil.rmtree(home, ignore_errors=True)
    kb = KnowledgeBase(home, embedder=RandomUnitEmbedder.posing_as_default())
    for name, path in collections:
        kb.collections.create(path, name=name)
    report = kb.sync()
    stats = kb.stats()
    kb.close()
    return {
        "seconds": report.seconds, "embed_seconds": report.embed_seconds,
        "chunks": stats["chunks"], "documents": stats["documents"], "vectors": stats["vectors"],
        "maxrss_mb": maxrss_mb(), "skipped": len(report.skipped),
    }


def _db_breakdown(conn) -> tuple[dict, dict]:
    """(bytes on pages, payload bytes) per table and index, from SQLite's dbstat."""
    sizes: dict[str, int] = {}
    payload: dict[str, int] = {}
    try:
        for name, size, used in conn.execute("SELECT name, sum(pgsize), sum(payload) FROM dbstat GROUP BY name"):
            sizes[name], payload[name] = int(size), int(used)
    except Exception:
        pass
    return sizes, payload


FTS_SAMPLE_CHUNKS = 10_000  # chunks re-indexed in a scratch file to split the full-text index


def _fts_body_share(conn, chunks: int) -> float:
    """The share of the full-text index that grows with the text: a sample of the chunks
    (every k-th id) is indexed twice in a scratch file with the index's own tokenizer, once
    with every column and once with the body alone; body-only / all columns. The rest (the
    title's and the heading's postings) is paid per chunk whatever its length."""
    import re
    import tempfile

    sql = (conn.execute("SELECT sql FROM sqlite_schema WHERE name = 'chunks_fts'").fetchone() or [""])[0]
    tokenize = re.search(r"tokenize\s*=\s*'([^']*)'", sql or "")
    columns = [d[0] for d in conn.execute("SELECT * FROM chunks_fts LIMIT 0").description]
    if not chunks or not tokenize or "body" not in columns:
        return 1.0
    step = max(1, chunks // FTS_SAMPLE_CHUNKS)
    with tempfile.TemporaryDirectory() as tmp:
        conn.execute("ATTACH ? AS scratch", (str(Path(tmp) / "split.sqlite"),))
        try:
            sizes = {}
            for name, cols in (("all_columns", columns), ("body_only", ["body"])):
                conn.execute(f"CREATE VIRTUAL TABLE scratch.{name} USING fts5({', '.join(cols)}, content='', "
                             f"tokenize='{tokenize.group(1)}')")
                conn.execute(f"INSERT INTO scratch.{name}(rowid, {', '.join(cols)}) "
                             f"SELECT id, {', '.join(cols)} FROM chunks WHERE id % {step} = 0")
                conn.execute(f"INSERT INTO scratch.{name}({name}) VALUES ('optimize')")
                sizes[name] = conn.execute("SELECT sum(pgsize) FROM dbstat('scratch') WHERE name = ?",
                                           (f"{name}_data",)).fetchone()[0] or 0
        finally:
            conn.execute("DETACH scratch")
    return sizes["body_only"] / sizes["all_columns"] if sizes["all_columns"] else 1.0


def w_dbsize(home: str) -> dict:
    from pms_tui.core import store as st

    db = Path(home) / "index.sqlite"
    conn = st.connect(db)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except Exception:
        pass
    files = {p.name: p.stat().st_size for p in Path(home).glob("index.sqlite*") if p.is_file()}
    chunks, chars, body_bytes = conn.execute(
        "SELECT count(*), coalesce(sum(length(body)), 0), coalesce(sum(length(CAST(body AS BLOB))), 0) FROM chunks"
    ).fetchone()
    tables, payload = _db_breakdown(conn)
    free = conn.execute("PRAGMA freelist_count").fetchone()[0] * conn.execute("PRAGMA page_size").fetchone()[0]
    body_share = _fts_body_share(conn, chunks)
    conn.close()
    total = sum(files.values())
    # What grows with the text: the body bytes on the chunk rows' pages, and the body's share
    # of the full-text index. Everything else (vectors, hashes, row indexes, documents, link
    # tables, titles and headings, and their postings in the full-text index) is paid per
    # chunk. A 1,000-character chunk then costs fixed + 1,000 x text-per-character.
    fill = tables.get("chunks", 0) / payload["chunks"] if payload.get("chunks") else 1.0
    fts = tables.get("chunks_fts_data", 0)
    text_part = body_bytes * fill + fts * body_share
    fixed = total - text_part
    # the formula before (the whole full-text index counted as text), for comparison
    text_all_fts = body_bytes * fill + fts
    return {
        "files": files, "total": total, "free_bytes": free, "chunks": chunks, "chars": chars, "tables": tables,
        "per_chunk": total / chunks if chunks else 0, "per_1000_chars": 1000 * total / chars if chars else 0,
        "avg_chunk_chars": chars / chunks if chunks else 0,
        "fixed_per_chunk": fixed / chunks if chunks else 0,
        "text_per_char": text_part / chars if chars else 0,
        "fts_body_share": body_share,
        "est_per_1000_char_chunk": (fixed / chunks + 1000 * text_part / chars) if chunks and chars else 0,
        "est_per_1000_char_chunk_all_fts_as_text": ((total - text_all_fts) / chunks + 1000 * text_all_fts / chars)
        if chunks and chars else 0,
    }


def w_queries(home: str, reps: int, compare_plain: bool = True, vec0_reference: bool = True,
              filtered: bool = False) -> dict:
    """Latency of each lane and of the hybrid path over the query list; with ``filtered``, also
    the hybrid search restricted by ``path:`` to the folder closest to 1% of the notes."""
    import numpy as np

    from fake_embed import RandomUnitEmbedder
    from pms_tui.core.config import load_settings
    from pms_tui.core.indexing.embed import Embedder
    from pms_tui.core.kb import KnowledgeBase

    queries = load_queries()
    settings = load_settings(Path(home))
    real = Embedder(settings.model, settings.embed_batch_size, settings.max_tokens)
    t0 = time.perf_counter()
    # stored vectors are random; every query is embedded by the real model
    kb = KnowledgeBase(home, settings, embedder=RandomUnitEmbedder.posing_as_default(query_model=real))
    open_ms = (time.perf_counter() - t0) * 1000
    t0 = time.perf_counter()
    real.load()
    model_load_ms = (time.perf_counter() - t0) * 1000
    t0 = time.perf_counter()
    kb._vectors.refresh()
    mirror_ms = (time.perf_counter() - t0) * 1000
    retrieval = kb.retrieval
    depth = max(10, kb.settings.lane_depth)
    chunks = kb.stats()["chunks"]

    def cold() -> None:
        real._query_cache.clear()
        retrieval.planner.clear_caches()

    for _, q in queries:  # warm the page cache and the code paths once, unmeasured
        cold()
        retrieval.search(q, k=10)
    lanes = {n: [] for n in ("bm25", "vector", "vector_search", "embed", "hybrid")}
    # the app searches as you type: the last word also matches as a prefix (a search's
    # `typing`); a tree without that choice (the base) always did, and its figures say so
    as_typed = "typing" in inspect.signature(retrieval.search).parameters
    if as_typed:
        lanes.update(bm25_typing=[], hybrid_typing=[])
    prefix = None
    if filtered:
        from filters import one_percent_prefix

        prefix = one_percent_prefix(kb._store.conn)[0]
        lanes["filtered"] = []
    per_category: dict[str, dict[str, list[float]]] = {}
    plans: dict[str, dict] = {}
    qvecs = {q: real.embed_query(q) for _, q in queries}
    for _ in range(reps):
        for category, q in queries:
            cat = per_category.setdefault(category, {n: [] for n in lanes})
            cold()
            t = time.perf_counter()
            ranked = retrieval.bm25_ranked(q, depth)
            ms = (time.perf_counter() - t) * 1000
            lanes["bm25"].append(ms)
            cat["bm25"].append(ms)
            info = retrieval.planner.last
            plans.setdefault(q, {"category": category, "mode": info.mode, "exact": info.exact,
                                 "ids": [c for c, _ in ranked]})
            timed = [
                ("vector", lambda: retrieval.vector_ranked(q, depth)),
                ("vector_search", lambda: retrieval.vector_ranked(q, depth, qvec=qvecs[q])),
                ("embed", lambda: real.embed_query(q)),
                ("hybrid", lambda: retrieval.search(q, k=10)),
            ]
            if prefix:
                timed.append(("filtered", lambda: kb.search(f"{q} path:{prefix}", k=10)))
            if as_typed:
                timed += [("bm25_typing", lambda: retrieval.bm25_ranked(q, depth, typing=True)),
                          ("hybrid_typing", lambda: retrieval.search(q, k=10, typing=True))]
            for name, fn in timed:
                cold()
                t = time.perf_counter()
                fn()
                ms = (time.perf_counter() - t) * 1000
                lanes[name].append(ms)
                cat[name].append(ms)
    result = {
        "chunks": chunks, "vectors": len(kb._vectors), "reps": reps, "queries": len(queries), "filter": prefix,
        "open_ms": open_ms, "model_load_ms": model_load_ms, "mirror_load_ms": mirror_ms,
        "lanes": {n: {"p50": pct(v, 0.5), "p95": pct(v, 0.95), "max": max(v)} for n, v in lanes.items()},
        "categories": {
            c: {n: {"p50": pct(v, 0.5), "p95": pct(v, 0.95)} for n, v in d.items()} for c, d in per_category.items()
        },
    }
    if compare_plain:  # the same BM25 queries run as written, for the before/after and agreement
        retrieval.plan_bm25 = False
        plain_times: list[float] = []
        agreement = []
        for _ in range(max(1, reps // 2)):
            for category, q in queries:
                t = time.perf_counter()
                ranked = retrieval.bm25_ranked(q, depth)
                plain_times.append((time.perf_counter() - t) * 1000)
                plans[q]["plain_ids"] = [c for c, _ in ranked]
        retrieval.plan_bm25 = True
        for q, p in plans.items():
            a, b = p["plain_ids"], p["ids"]
            p["overlap10"] = len(set(a[:10]) & set(b[:10])) / max(1, len(a[:10])) if a else 1.0
            p["overlap50"] = len(set(a) & set(b)) / max(1, len(a)) if a else 1.0
            p["identical"] = a == b
            agreement.append(p["overlap10"])
        result["bm25_plain"] = {"p50": pct(plain_times, 0.5), "p95": pct(plain_times, 0.95), "max": max(plain_times)}
        result["plans"] = {
            q: {k: v for k, v in p.items() if k not in ("ids", "plain_ids")} for q, p in plans.items()
        }
    if vec0_reference:  # the plain sqlite-vec scan, for scale, a few queries
        conn = kb._store.conn
        times = []
        for _, q in queries[:6]:
            blob = np.asarray(qvecs[q], dtype=np.float32).tobytes()
            t = time.perf_counter()
            conn.execute("SELECT rowid, distance FROM vec_vectors WHERE embedding MATCH ? AND k = ?", (blob, depth)).fetchall()
            times.append((time.perf_counter() - t) * 1000)
        result["vec0_scan"] = {"p50": pct(times, 0.5), "n": len(times)}
        # exactness check of the in-memory mirror against vec0 (recall@10 of the same query)
        recalls = []
        for _, q in queries[:6]:
            blob = np.asarray(qvecs[q], dtype=np.float32).tobytes()
            truth = [r[0] for r in conn.execute(
                "SELECT rowid FROM vec_vectors WHERE embedding MATCH ? AND k = 10", (blob,))]
            ours = [int(i) for i in kb._vectors.search(qvecs[q], 10)[0]]
            recalls.append(len(set(truth) & set(ours)) / max(1, len(truth)))
        result["mirror_recall10_vs_vec0"] = min(recalls)
    kb.close()
    result["maxrss_mb"] = maxrss_mb()
    return result


def w_throughput(folder: str) -> dict:
    """Whole-pipeline indexing of real notes with the real model, and naive batching
    (benchmarks/throughput.py)."""
    from throughput import measure

    result = measure(folder)
    result["maxrss_mb"] = maxrss_mb()
    return result


def w_sync(collections: list, edits: list) -> dict:
    """Sync of an unchanged ~10,000-file vault, then of one edited note (real model)."""
    from fake_embed import RandomUnitEmbedder
    from pms_tui.core.indexing.embed import Embedder
    from pms_tui.core.kb import KnowledgeBase

    with tempfile.TemporaryDirectory(prefix="pms-bench-sync-") as tmp:
        home = Path(tmp) / "home"
        # built with random vectors, under the real model's name and size so that the real
        # model can take over for the edit below
        kb = KnowledgeBase(home, embedder=RandomUnitEmbedder.posing_as_default())
        for name, path in collections:
            kb.collections.create(path, name=name)
        first = kb.sync()
        files = first.unchanged + len(first.added) + len(first.skipped)
        unchanged = []
        for _ in range(3):
            r = kb.sync()
            assert not r.changed
            unchanged.append(r.seconds)
        kb.close()
        # as `pms-tui sync` does it: open the index, then sync
        reopened = []
        for _ in range(3):
            t = time.perf_counter()
            kb = KnowledgeBase(home, embedder=RandomUnitEmbedder.posing_as_default())
            kb.sync()
            kb.close()
            reopened.append(time.perf_counter() - t)
        kb = KnowledgeBase(home)  # with the real Embedder, not loaded yet
        assert isinstance(kb._embedder, Embedder)
        out = {}
        for label, path in zip(("cold", "warm"), edits):
            note = Path(path)
            note.write_text(
                note.read_text(encoding="utf-8")
                + f"\n\nEdited for the benchmark ({label} model) at {time.time():.0f}: the quick brown fox.\n",
                encoding="utf-8",
            )
            t = time.perf_counter()
            r = kb.sync()
            out[label] = {"seconds": time.perf_counter() - t, "embedded": r.chunks_embedded,
                          "modified": len(r.modified), "embed_seconds": r.embed_seconds}
        kb.close()
    return {"files": files, "chunks": first.chunks_written, "build_seconds": first.seconds,
            "unchanged": unchanged, "reopen_unchanged": reopened, "edit": out, "maxrss_mb": maxrss_mb()}


def w_ui(home: str) -> dict:
    from ui_latency import measure_ui

    errors = []
    for _ in range(2):  # one retry: a crash of the app's own process is reported, not fatal
        try:
            result = measure_ui(home)
            if errors:
                result["retried_after"] = errors
            return result
        except Exception as exc:  # noqa: BLE001
            errors.append(f"{type(exc).__name__}: {str(exc)[-160:]}")
    return {"error": "; ".join(errors)}


WORKERS = {"build": w_build, "dbsize": w_dbsize, "queries": w_queries, "throughput": w_throughput,
           "sync": w_sync, "ui": w_ui}


# -- the run -------------------------------------------------------------------------------------
def results_file(quick: bool) -> Path:
    import vaults

    return vaults.CACHE / ("last-results-quick.json" if quick else "last-results.json")


def throughput_folder(quick: bool) -> Path:
    import vaults

    root = vaults.CACHE / ("tpvault-quick" if quick else "tpvault")
    if root.exists():
        return root
    til, ps = vaults.corpus(vaults.TIL), vaults.corpus(vaults.PS)
    n_til, n_ps = (150, 10) if quick else (900, 100)
    for src, n, name in ((til, n_til, vaults.TIL), (ps, n_ps, vaults.PS)):
        if src is None:
            continue
        for rel in vaults.sorted_notes(src)[:n]:
            out = root / name / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src / rel, out)
    return root


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="10,000 chunks only, small samples")
    parser.add_argument("--reuse", action="store_true",
                        help="reuse the cached 100,000-chunk indexes in /tmp/pms-bench-cache (this tree's home100k "
                             "and the base's home100k-<sha>; delete home100k after changing how the index is written)")
    parser.add_argument("--reps", type=int, default=None, help="repetitions of the query list")
    parser.add_argument("--write-doc", action="store_true",
                        help="replace this runner's section of docs/benchmarks.md with this run's figures")
    parser.add_argument("--skip", default="", help="comma list of parts to skip: 10k,100k,ui,sync,throughput")
    parser.add_argument("--keep-previous", action="store_true",
                        help="report skipped parts from the previous run (their date and load are shown)")
    parser.add_argument("--wait-quiet", type=float, default=0.0, metavar="SECONDS",
                        help="before each timed part, wait up to SECONDS for the load average to fall below 1")
    parser.add_argument("--render-only", action="store_true",
                        help="print (and with --write-doc, write) the last run's results, measuring nothing")
    parser.add_argument("--base", default="38ea43d",
                        help="run the 100,000-chunk part side by side with this commit (none: this tree alone)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("args", nargs="?", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.worker:
        result = WORKERS[opts.worker](**json.loads(opts.args or "{}"))
        print(json.dumps(result))
        return 0
    run = doc_sections.start()

    import vaults

    if opts.render_only:
        last = json.loads(results_file(opts.quick).read_text())
        text = render(last)
        print(text)
        if opts.write_doc:
            write_doc(text, last)
        return 0
    sources = vaults.available()
    if not sources:
        log(f"No corpora under {vaults.CORPORA}: nothing to measure.")
        return 0
    skip = {s.strip() for s in opts.skip.split(",") if s.strip()}
    QUIET["wait"] = opts.wait_quiet
    if not opts.quick and "100k" not in skip and opts.base.lower() not in ("", "none"):
        import side_by_side as sbs

        problem = sbs.preflight(sbs.base_tree(opts.base))  # before anything is measured
        if problem:
            log(f"Cannot run the 100,000-chunk part side by side with {opts.base}: {problem}.")
            return 1
    reps = opts.reps or (3 if opts.quick else 5)
    started = time.perf_counter()
    results: dict = {"machine": machine(), "quick": opts.quick, "reps": reps}
    vaults.CACHE.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="pms-bench-"))
    try:
        # 10k tier: tldr-pages-en + jbranchaud-til, read in place
        home10 = tmp / "home10k"
        if "10k" not in skip:
            log("10k tier: indexing tldr-pages-en + jbranchaud-til (random stored vectors)")
            cols10 = [(n, str(p)) for n, p in sources.items() if n in (vaults.TLDR, vaults.TIL)]
            results["build10k"] = run_worker("build", home=str(home10), collections=cols10)
            results["db10k"] = run_worker("dbsize", home=str(home10))
            log("10k tier: query latency")
            results["q10k"] = run_worker("queries", home=str(home10), reps=reps)
        if not opts.quick and "100k" not in skip:
            log("100k tier: vault of corpus copies")
            _, cols, n = vaults.build_big_vault(100_000, log=log)
            home100 = vaults.CACHE / "home100k" if opts.reuse else tmp / "home100k"
            cached = opts.reuse and (home100 / "index.sqlite").exists()
            if opts.base.lower() not in ("", "none"):
                import side_by_side as sbs

                log(f"100k tier: {n} chunks, side by side with {opts.base} (each builds its own index)")
                sha = sbs.short_sha(opts.base)
                base_home = (vaults.CACHE if opts.reuse else tmp) / f"home100k-{sha}"
                homes = {"this": home100, "base": base_home}
                both = sbs.measure(
                    [(a, str(b)) for a, b in cols], homes, {"this": REPO, "base": sbs.base_tree(opts.base)}, reps,
                    {k: opts.reuse and (h / "index.sqlite").exists() for k, h in homes.items()},
                    {"filtered": True}, before_round=wait_quiet,
                )
                for key, part in (("build100k", "build"), ("db100k", "db"), ("q100k", "q")):
                    if part in both["this"]:
                        results[key] = both["this"][part]
                results["base100k"] = {"commit": sha, **{k: v for k, v in both["base"].items() if k != "tree"},
                                       "measured_at": both["base"]["q"]["measured_at"],
                                       "load_at_start": both["base"]["q"]["load_at_start"],
                                       "load_at_end": both["base"]["q"]["load_at_end"]}
            else:
                if not cached:
                    log(f"100k tier: indexing {n} chunks (random stored vectors)")
                    results["build100k"] = run_worker("build", home=str(home100),
                                                      collections=[(a, str(b)) for a, b in cols])
                else:
                    log("100k tier: reusing the cached index")
                results["db100k"] = run_worker("dbsize", home=str(home100))
                log("100k tier: query latency (also peak RSS)")
                results["q100k"] = run_worker("queries", home=str(home100), reps=reps, filtered=True)
            if "ui" not in skip and (HERE / "ui_latency.py").exists():
                log("100k tier: UI latency")
                try:
                    results["ui100k"] = run_worker("ui", home=str(home100))
                except Exception as exc:
                    results["ui100k"] = {"error": str(exc)}
        if "ui" not in skip and "10k" not in skip and (HERE / "ui_latency.py").exists():
            log("10k tier: UI latency")
            try:
                results["ui10k"] = run_worker("ui", home=str(home10))
            except Exception as exc:
                results["ui10k"] = {"error": str(exc)}
        if "sync" not in skip:
            log("sync: vault of ~10,000 files")
            root, cols = vaults.build_sync_vault(10_000)
            edits = []
            for name, folder in cols:
                if name in (vaults.TIL, vaults.TLDR):
                    notes = vaults.sorted_notes(folder)
                    edits.append(str(folder / notes[len(notes) // 2]))
            results["sync"] = run_worker("sync", collections=[(a, str(b)) for a, b in cols], edits=edits[:2])
            shutil.rmtree(root, ignore_errors=True)
        if "throughput" not in skip:
            log("indexing throughput: real notes, real model (the slow part)")
            results["throughput"] = run_worker("throughput", folder=str(throughput_folder(opts.quick)))
            last = results_file(opts.quick)
            before = json.loads(last.read_text()).get("throughput") if last.exists() else None
            if before:  # the previous run's figures, printed beside this run's
                before.pop("previous", None)
                results["throughput"]["previous"] = before
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    previous_file = results_file(opts.quick)
    if opts.keep_previous and previous_file.exists():
        previous = json.loads(previous_file.read_text())
        for key, value in previous.items():
            if key not in results and isinstance(value, dict) and "measured_at" in value:
                value["from_previous_run"] = True
                results[key] = value
    results["machine"]["load_after"] = [round(x, 2) for x in os.getloadavg()]
    results["total_seconds"] = time.perf_counter() - started
    results["run"] = dataclasses.asdict(run)
    results_file(opts.quick).write_text(json.dumps(results, indent=1))
    text = render(results)
    print(text)
    if opts.write_doc:
        write_doc(text, results)
        log(f"wrote {DOC.relative_to(REPO)}")
    return 0


# -- report --------------------------------------------------------------------------------------
def _ms(x) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.1f} ms"


def _ok(value, target, lower_is_better=True) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "not measured"
    good = value <= target if lower_is_better else value >= target
    return "met" if good else "**not met**"


def render(r: dict) -> str:
    m = r["machine"]
    lines = [
        f"Machine: {m['cores']} cores ({m['cpu']}), {m['memory_gb']} GiB; {m['date']}; Python {m['python']}, "
        f"SQLite {m['sqlite']} (sqlean.py), NumPy {m['numpy']}, ONNX Runtime {m['onnxruntime']}. "
        f"Load average before/after: {m['load_before'][0]} / {m.get('load_after', ['?'])[0]} "
        f"(other programs sharing the 2 cores inflate every figure). "
        f"Run: `python benchmarks/run.py{' --quick' if r['quick'] else ''}`, {r['reps']} repetitions of "
        f"{(r.get('q10k') or r.get('q100k') or {}).get('queries', '?')} queries (`benchmarks/queries.txt`), {r['total_seconds'] / 60:.1f} min in all"
        + (". Parts not measured in this run are from an earlier run: "
           + ", ".join(f"{k} ({v['measured_at']})" for k, v in r.items()
                       if isinstance(v, dict) and v.get("from_previous_run")) + "."
           if any(isinstance(v, dict) and v.get("from_previous_run") for v in r.values()) else "."),
        "",
    ]
    b = r.get("base100k") or {}
    bq, bd = b.get("q") or {}, b.get("db") or {}
    if b:
        lines += [f"Side by side at 100,000 chunks with commit `{b['commit']}` (the baseline these figures are "
                  f"held against), in the same run: each commit built its own index of the same "
                  f"generated vault, and the query rounds alternated between the two ({bq.get('rounds', '?')} "
                  f"rounds of the query list each).", ""]
    lines += [f"| figure | measured | target | | {b['commit'] + ' (same run)' if b else ''} |", "|---|---|---|---|---|"]

    def row(name, val, target, verdict="", base=""):
        lines.append(f"| {name} | {val} | {target} | {verdict} | {base} |")

    def base_lane(lane, fmt=lambda d: f"{_ms(d['p50'])} / {_ms(d['p95'])}"):
        d = (bq.get("lanes") or {}).get(lane)
        return fmt(d) if d else ("n/a" if bq else "")
    for tier in ("q10k", "q100k"):
        q = r.get(tier)
        if not q:
            continue
        label = f"{q['chunks']:,} chunks"
        l = q["lanes"]
        big = tier == "q100k"
        row(f"BM25 lane p50 / p95 ({label})", f"{_ms(l['bm25']['p50'])} / {_ms(l['bm25']['p95'])}",
            "p95 ≤ 25 ms" if big else "", _ok(l["bm25"]["p95"], 25) if big else "", base_lane("bm25") if big else "")
        row(f"vector lane incl. query embedding p50 / p95 ({label})",
            f"{_ms(l['vector']['p50'])} / {_ms(l['vector']['p95'])}", "", "", base_lane("vector") if big else "")
        row(f"vector search alone p50 / p95 ({label}, {q['vectors']:,} random unit vectors)",
            f"{_ms(l['vector_search']['p50'])} / {_ms(l['vector_search']['p95'])}",
            "p50 ≤ 10 ms" if big else "", _ok(l["vector_search"]["p50"], 10) if big else "",
            base_lane("vector_search") if big else "")
        row(f"hybrid (kb.retrieval.search, k=10) p50 / p95 ({label})",
            f"{_ms(l['hybrid']['p50'])} / {_ms(l['hybrid']['p95'])}",
            "p50 ≤ 20 ms, p95 ≤ 40 ms" if big else "",
            (_ok(l["hybrid"]["p50"], 20) if _ok(l["hybrid"]["p95"], 40) == "met" else "**not met**") if big else "",
            base_lane("hybrid") if big else "")
        if "bm25_typing" in l:
            row(f"... the same two as the app searches while you type, the last word also a prefix: "
                f"BM25 lane; hybrid p50 / p95 ({label})",
                f"{_ms(l['bm25_typing']['p50'])} / {_ms(l['bm25_typing']['p95'])}; "
                f"{_ms(l['hybrid_typing']['p50'])} / {_ms(l['hybrid_typing']['p95'])}", "", "",
                "(always a prefix then)" if big and bq else "")
        if "filtered" in l:
            row(f"filtered hybrid (kb.search, `path:{q['filter']}`, ~1% of the notes) p50 / p95 ({label})",
                f"{_ms(l['filtered']['p50'])} / {_ms(l['filtered']['p95'])}",
                "p95 ≤ 40 ms" if big else "", _ok(l["filtered"]["p95"], 40) if big else "",
                (base_lane("filtered") + " (no filters then)" if bq else "") if big else "")
    ui, ui_label = r.get("ui10k"), "10k"
    if r.get("ui100k") and "error" not in r["ui100k"]:
        ui, ui_label = r["ui100k"], "100k"
    if ui and "error" not in ui:
        row(f"UI: keystroke (debounce fired) to results on screen, median ({ui_label} index)",
            _ms(ui["keystroke_to_results_median_ms"]), "≤ 50 ms", _ok(ui["keystroke_to_results_median_ms"], 50))
    else:
        row("UI: keystroke to results, median", "not measured" + (f" ({ui['error']})" if ui else ""), "≤ 50 ms", "")
    tp = r.get("throughput")
    if tp:
        from throughput import rows as throughput_rows

        for name, val, target, met, before in throughput_rows(tp, tp.get("previous")):
            row(name, val, target, "" if met is None else ("met" if met else "**not met**"), before)
    s = r.get("sync")
    if s:
        row(f"sync with nothing changed ({s['files']:,} files)", f"{1000 * statistics.median(s['unchanged']):.0f} ms",
            "< 1 s", _ok(statistics.median(s["unchanged"]), 1.0))
        row("... including opening the index (as `pms-tui sync`)",
            f"{1000 * statistics.median(s['reopen_unchanged']):.0f} ms", "", "")
        warm, cold = s["edit"].get("warm"), s["edit"].get("cold")
        if warm:
            row(f"sync after one edited note, model loaded ({warm['embedded']} chunk(s) re-embedded)",
                f"{1000 * warm['seconds']:.0f} ms", "< 2 s", _ok(warm["seconds"], 2.0))
        if cold:
            row("... the same, model loaded by this sync (first sync of a process)",
                f"{1000 * cold['seconds']:.0f} ms", "< 2 s", _ok(cold["seconds"], 2.0))
    for key in ("db100k", "db10k"):
        d = r.get(key)
        if d:
            big = key == "db100k" and bd
            row(f"database size per chunk ({d['chunks']:,} chunks, avg {d['avg_chunk_chars']:.0f} chars)",
                f"{d['per_chunk'] / 1000:.2f} KB ({d['total'] / 1e6:.0f} MB in all)", "", "",
                f"{bd['per_chunk'] / 1000:.2f} KB ({bd['total'] / 1e6:.0f} MB, {bd['chunks']:,} chunks)" if big else "")
            row("... estimated for a 1,000-character chunk (fixed part + text part, see below)",
                f"{d['est_per_1000_char_chunk'] / 1000:.2f} KB", "≤ 3.5 KB", _ok(d["est_per_1000_char_chunk"], 3500),
                f"{bd['est_per_1000_char_chunk'] / 1000:.2f} KB" if big else "")
            row("... per 1,000 characters of chunk text", f"{d['per_1000_chars'] / 1000:.2f} KB", "", "",
                f"{bd['per_1000_chars'] / 1000:.2f} KB" if big else "")
            break
    q = r.get("q100k")
    if q:
        row(f"peak RSS, {q['chunks']:,} chunks (open, vector mirror, real model, query list)",
            f"{q['maxrss_mb']:.0f} MB", "≤ 600 MB", _ok(q["maxrss_mb"], 600),
            f"{bq['maxrss_mb']:.0f} MB" if bq else "")
    if ui and "error" not in ui:
        cold = ui.get("process_start_to_first_screen_ms")
        row(f"`pms-tui` start to first interactive screen ({ui_label} index, Pilot; app object created)",
            _ms(ui["first_screen_ms"]), "≤ 1 s", _ok(ui["first_screen_ms"], 1000))
        if cold is not None:
            row("... from a new Python process (imports included, median of 3)", _ms(cold), "≤ 1 s", _ok(cold, 1000))
    else:
        row("`pms-tui` start to first screen", "not measured", "≤ 1 s", "")
    lines.append("")
    lines += render_details(r)
    return "\n".join(lines)


def render_details(r: dict) -> list[str]:
    out = ["### Details", ""]
    parts = [(k, v) for k, v in r.items() if isinstance(v, dict) and "measured_at" in v]
    out.append("Load average (1 min) when each part started / ended: " + "; ".join(
        f"{k} {v['load_at_start']}/{v['load_at_end']}" + (f" (from an earlier run, {v['measured_at']})"
                                                           if v.get("from_previous_run") else "")
        for k, v in parts) + ".")
    out.append("")
    for tier in ("q10k", "q100k"):
        q = r.get(tier)
        if not q:
            continue
        out.append(f"**Query latency at {q['chunks']:,} chunks** ({q['vectors']:,} stored vectors, random unit "
                   f"vectors; queries embedded by the real model; caches of query vectors, stems and "
                   f"frequencies cleared before every measurement). Opening the index {q['open_ms']:.0f} ms, "
                   f"loading the vector mirror {q['mirror_load_ms']:.0f} ms, loading the model "
                   f"{q['model_load_ms']:.0f} ms.")
        bq = (r.get("base100k") or {}).get("q") if tier == "q100k" else None
        extra = f" {r['base100k']['commit']}: BM25 p50 / p95 | {r['base100k']['commit']}: hybrid p50 / p95 |" if bq else ""
        out += ["", "| category | BM25 p50 / p95 | query embedding p50 | vector lane p50 | hybrid p50 / p95 |" + extra,
                "|---|---|---|---|---|" + ("---|---|" if bq else "")]
        for cat, d in q["categories"].items():
            b = (bq or {}).get("categories", {}).get(cat)
            more = (f" {_ms(b['bm25']['p50'])} / {_ms(b['bm25']['p95'])} | {_ms(b['hybrid']['p50'])} / "
                    f"{_ms(b['hybrid']['p95'])} |") if b else (" | |" if bq else "")
            out.append(f"| {cat} | {_ms(d['bm25']['p50'])} / {_ms(d['bm25']['p95'])} | {_ms(d['embed']['p50'])} | "
                       f"{_ms(d['vector']['p50'])} | {_ms(d['hybrid']['p50'])} / {_ms(d['hybrid']['p95'])} |" + more)
        out.append("")
        if "bm25_plain" in q:
            plans = q["plans"].values()
            exact = sum(1 for p in plans if p["exact"])
            same = sum(1 for p in plans if p["identical"])
            modes: dict[str, int] = {}
            for p in plans:
                modes[p["mode"]] = modes.get(p["mode"], 0) + 1
            worst = min(plans, key=lambda p: p["overlap10"])
            out.append(
                f"BM25 as written (no planning): p50 {_ms(q['bm25_plain']['p50'])}, p95 {_ms(q['bm25_plain']['p95'])}, "
                f"max {_ms(q['bm25_plain']['max'])}. Planned: {', '.join(f'{k} {v}' for k, v in sorted(modes.items()))}; "
                f"provably exact {exact}/{len(q['plans'])}, top-{50} identical to the plain query {same}/{len(q['plans'])}, "
                f"lowest top-10 overlap {worst['overlap10']:.2f} (mean "
                f"{statistics.mean(p['overlap10'] for p in plans):.3f}; top-50 mean "
                f"{statistics.mean(p['overlap50'] for p in plans):.3f})."
            )
        if "vec0_scan" in q:
            out.append(
                f"Plain sqlite-vec vec0 scan, same vectors, k=50: p50 {_ms(q['vec0_scan']['p50'])} "
                f"({q['vec0_scan']['n']} queries); the in-memory mirror's top 10 equal vec0's: recall@10 "
                f"{q['mirror_recall10_vs_vec0']:.2f} (exact search)."
            )
        out.append(f"Peak RSS of this measurement: {q['maxrss_mb']:.0f} MB.")
        if bq:
            out.append(f"{r['base100k']['commit']} in the same run: opening the index {bq['open_ms']:.0f} ms, loading "
                       f"the vector mirror {bq['mirror_load_ms']:.0f} ms, the model {bq['model_load_ms']:.0f} ms; "
                       f"peak RSS {bq['maxrss_mb']:.0f} MB.")
        out.append("")
    for key in ("build10k", "build100k"):
        b = r.get(key)
        if b:
            out.append(f"Index build ({key[5:]}, random stored vectors): {b['chunks']:,} chunks from {b['documents']:,} "
                       f"notes in {b['seconds']:.1f} s ({b['chunks'] / b['seconds']:.0f} chunks/s without a model; "
                       f"peak RSS {b['maxrss_mb']:.0f} MB).")
            base_build = (r.get("base100k") or {}).get("build") if key == "build100k" else None
            if base_build:
                out.append(f"The same vault built by {r['base100k']['commit']} in the same run: "
                           f"{base_build['chunks']:,} chunks in {base_build['seconds']:.1f} s (peak RSS "
                           f"{base_build['maxrss_mb']:.0f} MB).")
    out.append("")
    tp = r.get("throughput")
    if tp:
        from throughput import paragraph

        out.append(paragraph(tp))
        out.append("")
    s = r.get("sync")
    if s:
        out.append(
            f"**Sync** vault: {s['files']:,} files ({s['chunks']:,} chunks; tldr-pages-en, jbranchaud-til and "
            f"powershell-docs files copied to /tmp), built with random vectors by a benchmark embedder that "
            f"reports the real model's name and size, so the real model takes over for the edits. Unchanged: "
            + ", ".join(f"{1000 * x:.0f}" for x in s["unchanged"]) + " ms. One edit: "
            + "; ".join(f"{k}: {1000 * v['seconds']:.0f} ms, {v['embedded']} chunk(s) embedded in "
                        f"{1000 * v['embed_seconds']:.0f} ms" for k, v in s["edit"].items()) + "."
        )
        out.append("")
    for key in ("db100k", "db10k"):
        d = r.get(key)
        if not d:
            continue
        top = sorted(d["tables"].items(), key=lambda kv: -kv[1])[:8]
        out.append(
            f"**Database** ({key[2:]}): {d['total'] / 1e6:.1f} MB for {d['chunks']:,} chunks "
            f"({d['chars'] / 1e6:.1f} M characters of chunk text). Largest parts per chunk: "
            + ", ".join(f"{name} {size / d['chunks']:.0f} B" for name, size in top)
            + f". A 1,000-character chunk is estimated as the fixed part per chunk ({d['fixed_per_chunk']:.0f} B: "
              f"vector, hash, row indexes, document row and link tables, title and heading with their postings) "
              f"plus 1,000 × the text part per character ({d['text_per_char']:.2f} B: the body on the chunk rows' "
              + (f"pages and the body's share of the full-text index, {100 * d['fts_body_share']:.0f}% measured "
                 f"by re-indexing a sample with and without the other columns)." if "fts_body_share" in d else
                 "pages and the whole full-text index).")
            + (f" Free pages in the file: {d['free_bytes'] / d['chunks']:.0f} B per chunk." if "free_bytes" in d else "")
        )
        bd = (r.get("base100k") or {}).get("db") if key == "db100k" else None
        if bd:
            top = sorted(bd["tables"].items(), key=lambda kv: -kv[1])[:8]
            out[-1] += (f" {r['base100k']['commit']} in the same run: {bd['total'] / 1e6:.1f} MB for {bd['chunks']:,} "
                        "chunks; largest parts per chunk: "
                        + ", ".join(f"{name} {size / bd['chunks']:.0f} B" for name, size in top) + ".")
        out.append("")
    for key in ("ui100k", "ui10k"):
        ui = r.get(key)
        if ui and "error" in ui:
            out.append(f"UI ({key[2:]}): not measured: {ui['error']}")
        if ui and "error" not in ui:
            out.append(f"UI ({key[2:]}): first screen {ui['first_screen_ms']:.0f} ms (in-app {ui['first_screen_in_app_ms']:.0f} ms), "
                       f"keystroke-to-results median {ui['keystroke_to_results_median_ms']:.0f} ms, p90 "
                       f"{ui['keystroke_to_results_p90_ms']:.0f} ms over {ui['queries']} typed queries "
                       f"(debounce {ui['debounce_ms']} ms, model {ui['model']})."
                       + (" Measured on the second try; the first failed ("
                          + ", ".join(_short_error(e) for e in ui["retried_after"]) + ")."
                          if ui.get("retried_after") else ""))
    out.append("")
    return out


def _short_error(text: str) -> str:
    import re

    kind = text.split(":", 1)[0]
    signal_name = re.search(r"Signals\.(\w+)", text)
    return kind + (f", a subprocess of the UI harness ended by {signal_name.group(1)}" if signal_name else "")


def write_doc(text: str, results: dict) -> None:
    m = results["machine"]
    run = doc_sections.Run(**results["run"]) if "run" in results else doc_sections.Run(  # an older results file
        command="python benchmarks/run.py" + (" --quick" if results.get("quick") else ""), started=m["date"],
        load=tuple(m["load_before"]), cpus=m["cores"], commit="not recorded")
    doc_sections.write_section(DOC, DOC_KEY, text, run, tuple(results["machine"].get("load_after") or ()) or None)


if __name__ == "__main__":
    sys.exit(main())
