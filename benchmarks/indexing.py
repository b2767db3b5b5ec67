#!/usr/bin/env python
"""Indexing that never gets in the way, measured: one runner, numbers beside targets.

    python benchmarks/indexing.py            # full run, ~15-20 minutes on 2 busy cores
    python benchmarks/indexing.py --quick    # smaller folders and shorter windows, a few minutes
    python benchmarks/indexing.py --parts first,throughput   # some parts only

Parts (each writer runs in its own process, with the real offline model, in a throwaway home
under /tmp; the notes are a copy of ../shared/corpora/markdown/jbranchaud-til under /tmp, and
the runner says so and skips when the corpus is absent):

- ``first``: a first sync of the 1,873-note folder in a writer process. Every copied note
  carries one unique word (``pmsfindNNNNNq``, appended as its last line); this process searches
  each word by BM25 (another connection) until every note is found, then issues hybrid queries
  from ``benchmarks/queries.txt`` (query cache cleared each time, one every 50 ms) while the
  writer embeds. The writer logs every progress callback, giving the longest gap per phase.
- ``throughput``: the same first notes synced at ``max_tokens`` 128, 192 and 256 (model
  loaded first): chunks/s of the whole sync, and the share of it outside the model (wall time
  with no model run in flight).
- ``kill``: kill -9 at 10 random moments of a first sync of a smaller folder, resumed each
  time, compared with the uninterrupted index of the throughput part (documents, chunks and
  vector hashes equal; vectors committed across all runs = vectors in the end, so nothing
  was embedded twice).
- ``watch``: idle CPU of ``pms-tui watch`` over 60 s on a 10,000-file vault (stored vectors
  random, real model for edits) and the edit-to-searchable latency of three watched edits.
  Skipped with a message while ``pms-tui watch`` does not exist.

This is the one runner of these targets: first-sync findability, latency while embedding,
progress cadence, watch idle CPU and edit latency, throughput by max_tokens, kill -9
convergence and the app's latency.

One file of ~700 lines on purpose (over the usual ~400): the runner starts itself again as its
worker processes (``--worker NAME``), so each part sits beside the worker it spawns.

Writes ``/tmp/pms-bench-indexing/summary.json`` and ``summary.md``, and with ``--write-doc``
this runner's section of docs/benchmarks.md. ``uptime`` load is recorded beside every part:
other programs sharing the 2 cores inflate every figure.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

# The product's driver, never the stdlib's: two SQLite libraries in one process (the app worker
# reads the index beside the app) do not see each other's POSIX locks, and one of them can
# truncate the WAL index the other has mapped (SIGBUS).
import sqlean as sqlite3

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

from corpora import MARKDOWN  # noqa: E402
import doc_sections  # noqa: E402

CORPUS = MARKDOWN / "jbranchaud-til"
WORK = Path(os.environ.get("PMS_BENCH_INDEXING", "/tmp/pms-bench-indexing"))
DOC = REPO / "docs" / "benchmarks.md"
DOC_KEY = "benchmarks/indexing.py"
DB_FILE = "index.sqlite"  # pms_tui.core.config.DB_FILE
TOKEN = "pmsfind{:05d}q"  # same length for every note: no token is a prefix of another


def log(*parts) -> None:
    print(*parts, file=sys.stderr, flush=True)


def load() -> float:
    return round(os.getloadavg()[0], 2)


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def queries() -> list[str]:
    out = []
    for line in (HERE / "queries.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#") and "|" in line:
            out.append(line.split("|", 1)[1].strip())
    return out


# -- the notes --------------------------------------------------------------------------------
def copy_notes(dest: Path, limit: int | None = None, tokens: bool = False) -> list[str]:
    """Copy the TIL notes (the first ``limit`` in path order) to ``dest``; with ``tokens``
    each note gets its unique word as a last line. Returns the relative paths."""
    from pms_tui.core.indexing.notes import walk_notes

    shutil.rmtree(dest, ignore_errors=True)
    rels = sorted(rel for rel, _ in walk_notes(CORPUS))[:limit]
    for i, rel in enumerate(rels):
        out = dest / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        data = (CORPUS / rel).read_bytes()
        if tokens:
            data = data.rstrip(b"\n") + b"\n\n" + TOKEN.format(i).encode() + b"\n"
        out.write_bytes(data)
    return rels


def fingerprint(db: Path) -> dict:
    """What must be equal between two indexes of the same notes."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        docs = sorted(r[0] + ":" + r[1] for r in conn.execute("SELECT path, sha256 FROM documents"))
        chunks = sorted(
            f"{p}#{s}:{hash((t, h, b))}"
            for p, s, t, h, b in conn.execute(
                "SELECT d.path, c.seq, c.title, c.heading, c.body FROM chunks c JOIN documents d ON d.id = c.document_id"
            )
        )
        vecs = sorted(r[0].hex() for r in conn.execute("SELECT hash FROM vectors"))
        pending = conn.execute("SELECT count(*) FROM vectors WHERE pending_text IS NOT NULL").fetchone()[0]
        stored = conn.execute("SELECT count(*) FROM vec_vectors_rowids").fetchone()[0]
        ok = conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()
    return {"documents": docs, "chunks": chunks, "vectors": vecs, "pending": pending,
            "vec_rows": stored, "integrity": ok}


# -- workers (each in its own process) --------------------------------------------------------
def w_sync(home: str, folder: str, events: str, max_seconds: float = 0.0) -> dict:
    """A first sync (text, then vectors) logging every progress callback to ``events``."""
    from pms_tui.core.kb import KnowledgeBase

    out = open(events, "a", buffering=1)
    out.write(json.dumps({"t": time.monotonic(), "phase": "start"}) + "\n")
    kb = KnowledgeBase(home)
    if not kb.collections.list():
        kb.collections.create(folder, name="til")
    cancel = threading.Event()
    if max_seconds:
        threading.Timer(max_seconds, cancel.set).start()

    def progress(done, total, phase):
        out.write(json.dumps({"t": time.monotonic(), "done": done, "total": total, "phase": phase}) + "\n")

    started = time.monotonic()
    out.write(json.dumps({"t": started, "phase": "sync"}) + "\n")
    report = kb.sync(progress=progress, cancel=cancel)
    out.write(json.dumps({"t": time.monotonic(), "phase": "end"}) + "\n")
    stats = kb.stats()
    kb.close()
    return {"seconds": report.seconds, "embedded": report.chunks_embedded, "cancelled": report.cancelled,
            "stats": stats}


def w_throughput(home: str, folder: str) -> dict:
    """Sync ``folder`` with the model loaded first; model-busy wall time from the runs."""
    from pms_tui.core.kb import KnowledgeBase

    kb = KnowledgeBase(home)
    kb.collections.create(folder, name="til")
    t = time.perf_counter()
    kb.model.load()
    load_s = time.perf_counter() - t
    spans: list[tuple[float, float]] = []
    lock = threading.Lock()
    real = kb._embedder.embed_run

    def timed_run(texts, *a, **k):
        s = time.perf_counter()
        try:
            return real(texts, *a, **k)
        finally:
            with lock:
                spans.append((s, time.perf_counter()))

    kb._embedder.embed_run = timed_run
    started = time.perf_counter()
    report = kb.sync()
    wall = time.perf_counter() - started
    busy, end = 0.0, started
    for s, e in sorted(spans):  # union of the intervals with a model run in flight
        s = max(s, end)
        if e > s:
            busy, end = busy + e - s, e
    stats = kb.stats()
    kb.close()
    return {"max_tokens": kb.settings.max_tokens, "seconds": wall, "model_busy": busy,
            "model_thread_seconds": report.embed_seconds, "load_seconds": load_s,
            "embedded": report.chunks_embedded, "chunks": stats["chunks"], "documents": stats["documents"],
            "runs": len(spans)}


def w_build_random(home: str, folders: list) -> dict:
    """Index a big vault with random stored vectors under the real model's name and size."""
    from fake_embed import RandomUnitEmbedder
    from pms_tui.core.kb import KnowledgeBase

    kb = KnowledgeBase(home, embedder=RandomUnitEmbedder.posing_as_default())
    for name, path in folders:
        kb.collections.create(path, name=name)
    report = kb.sync()
    stats = kb.stats()
    kb.close()
    return {"seconds": report.seconds, "documents": stats["documents"], "chunks": stats["chunks"]}


def w_ui(home: str, window: float, notes: int = 0) -> dict:
    """The app (Pilot, headless) runs its own first sync (ctrl+s's worker); once the text phase
    is written, queries are typed character by character while it embeds. Each search's time
    from the debounce timer firing to its results rendered (the app's own measure)."""
    import asyncio

    from pms_tui.tui.app import PmsApp

    def pending() -> int:
        conn = sqlite3.connect(f"file:{home}/{DB_FILE}?mode=ro", uri=True, timeout=30)
        try:
            return conn.execute("SELECT count(*) FROM vectors WHERE pending_text IS NOT NULL").fetchone()[0]
        finally:
            conn.close()

    def documents() -> int:
        conn = sqlite3.connect(f"file:{home}/{DB_FILE}?mode=ro", uri=True, timeout=30)
        try:
            return conn.execute("SELECT count(*) FROM documents").fetchone()[0]
        finally:
            conn.close()

    async def run() -> dict:
        app = PmsApp(home=home, first_run_sample=False, read_clipboard=False)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            searching = lambda: any(w.group == "search" and w.is_running for w in app.workers)  # noqa: E731
            while app.first_screen_ms is None or screen.model_state == "loading":
                await pilot.pause(0.05)
            started = time.monotonic()
            screen.start_sync()
            while (pending() == 0 or documents() < notes) and time.monotonic() - started < 180:
                await pilot.pause(0.1)
            text_s = time.monotonic() - started
            lat: list[float] = []  # the last search of each query (not the empty bar's list)
            typed, stuck = 0, 0
            end = time.monotonic() + window
            qs = queries()
            bar = screen.query_one("#search")
            while time.monotonic() < end and pending() > 0:
                # the query is put into the search bar whole (as a paste would): Pilot's
                # press() waits for the screen to go idle, which the stream of progress
                # messages during a sync rarely allows
                bar.value = ""
                await asyncio.sleep(0.3)
                count = screen.searcher.searches_shown
                bar.value = qs[typed % len(qs)]
                typed += 1
                t = time.monotonic()
                while (screen.searcher.searches_shown == count or screen.searcher.search_pending or searching()) \
                        and time.monotonic() - t < 30:
                    await asyncio.sleep(0.01)
                if screen.searcher.searches_shown == count:
                    stuck += 1
                else:
                    lat.append(screen.searcher.search_latencies_ms[-1])
                await asyncio.sleep(0.1)
            left = pending()
            screen.syncer.stop_all()
            await app.wait_for_work()
            return {"queries_typed": typed, "searches": len(lat), "p50_ms": round(pct(lat, 0.5), 1),
                    "p95_ms": round(pct(lat, 0.95), 1), "max_ms": round(max(lat, default=float("nan")), 1),
                    "no_result_within_30s": stuck, "text_phase_s": round(text_s, 1), "pending_left": left,
                    "window_s": round(time.monotonic() - end + window, 1)}

    return asyncio.run(run())


WORKERS = {"ui": w_ui, "sync": w_sync, "throughput": w_throughput, "build_random": w_build_random}


def spawn(name: str, *args, env: dict | None = None) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, __file__, "--worker", name, json.dumps(args)],
        stdout=subprocess.PIPE, text=True, env={**os.environ, **(env or {})},
    )


def result_of(proc: subprocess.Popen, timeout: float = 3600) -> dict:
    out, _ = proc.communicate(timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"worker ended with {proc.returncode}")
    return json.loads(out.strip().splitlines()[-1])


def read_events(path: Path) -> list[dict]:
    if not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:  # a line cut by kill -9
            pass
    return out


def cadence(events: list[dict]) -> dict:
    """Per phase: the gap into its first progress callback (from the previous callback, or
    from the sync call) and the longest gap between its own callbacks."""
    out: dict[str, dict] = {}
    prev = None
    for e in events:
        if e["phase"] in ("start", "end"):
            continue
        if e["phase"] == "sync":
            prev = e["t"]
            continue
        if prev is not None:
            gap = e["t"] - prev
            row = out.get(e["phase"])
            if row is None:
                row = out[e["phase"]] = {"into": round(gap, 3), "within": 0.0, "callbacks": 0}
            elif gap > row["within"]:
                row["within"] = round(gap, 3)
            row["callbacks"] += 1
            row["max_gap"] = max(row["into"], row["within"])
        prev = e["t"]
    return out


# -- part: first sync (findable, latency during embedding, cadence) ----------------------------
def part_first(limit: int | None, embed_window: float) -> dict:
    from pms_tui.core.kb import KnowledgeBase
    from pms_tui.core.kb_measure import Measure

    base = WORK / "first"
    shutil.rmtree(base, ignore_errors=True)
    folder, home, events = base / "notes", base / "home", base / "events.jsonl"
    rels = copy_notes(folder, limit, tokens=True)
    log(f"first: {len(rels)} notes copied to {folder}")
    kb = KnowledgeBase(home)
    kb.collections.create(folder, name="til")
    kb.model.load()  # this process is the one searching: its model is loaded, as in the app
    load_before = load()
    writer = spawn("sync", str(home), str(folder), str(events), embed_window)
    t_spawn = time.monotonic()
    # 1. until every note is found by its word (BM25 lane, this process's own connection)
    todo = {TOKEN.format(i): rel for i, rel in enumerate(rels)}
    found_at: dict[str, float] = {}
    searches = 0
    deadline = t_spawn + 300
    while todo and time.monotonic() < deadline and writer.poll() is None:
        for word, rel in list(todo.items()):
            hits = kb.search(word, k=1, mode="bm25")
            searches += 1
            if hits and hits[0].relpath == rel:
                found_at[word] = time.monotonic()
                del todo[word]
        if todo:
            time.sleep(0.02)
    all_found = time.monotonic() if not todo else None
    # 2. hybrid queries while the writer embeds
    latencies: list[float] = []
    lane_counts = []
    qs = queries()
    i = 0
    while writer.poll() is None:
        q = qs[i % len(qs)]
        i += 1
        Measure(kb).clear_query_cache()
        t = time.perf_counter()
        result = kb.search(q, k=10, mode="hybrid")
        latencies.append((time.perf_counter() - t) * 1000)
        if i % 25 == 0:
            lane_counts.append(sum(1 for h in result if h.vector_rank is not None))
        time.sleep(0.05)
    writer_result = result_of(writer)
    kb.close()
    ev = read_events(events)
    t_sync = next(e["t"] for e in ev if e["phase"] == "sync")
    t_start = next(e["t"] for e in ev if e["phase"] == "start")
    reading = [e for e in ev if e["phase"] == "reading"]
    text_end = reading[-1]["t"] if reading else None
    emb = [e for e in ev if e["phase"] == "embedding"]
    return {
        "notes": len(rels), "searches": searches, "found": len(found_at), "missing": len(todo),
        "process_start_to_sync_s": round(t_sync - t_start, 2),
        "text_phase_end_s": round(text_end - t_sync, 2) if text_end else None,
        "all_findable_s": round(all_found - t_sync, 2) if all_found else None,
        "all_findable_from_spawn_s": round(all_found - t_spawn, 2) if all_found else None,
        "hybrid": {
            "queries": len(latencies), "p50_ms": round(pct(latencies, 0.5), 1),
            "p95_ms": round(pct(latencies, 0.95), 1), "max_ms": round(max(latencies, default=float("nan")), 1),
            "with_vector_hits": lane_counts[-1] if lane_counts else None,
        },
        "embedding_window_s": round(emb[-1]["t"] - emb[0]["t"], 1) if emb else 0,
        "embedded": emb[-1]["done"] if emb else 0, "to_embed": emb[-1]["total"] if emb else 0,
        "writer": writer_result, "cadence": cadence(ev), "load": [load_before, load()],
    }


# -- part: keystroke-to-results in the app while its first sync embeds -----------------------
def part_ui(limit: int | None, window: float) -> dict:
    from pms_tui.core.kb import KnowledgeBase

    base = WORK / "ui"
    shutil.rmtree(base, ignore_errors=True)
    folder, home = base / "notes", base / "home"
    rels = copy_notes(folder, limit)
    with KnowledgeBase(home) as kb:
        kb.collections.create(folder, name="til")
    before = load()
    r = result_of(spawn("ui", str(home), window, len(rels)))
    r.update(notes=len(rels), load=[before, load()])
    return r


# -- part: throughput at max_tokens 128 / 192 / 256 --------------------------------------------
def part_throughput(limit: int) -> dict:
    base = WORK / "throughput"
    shutil.rmtree(base, ignore_errors=True)
    folder = base / "notes"
    copy_notes(folder, limit)
    rows = []
    for max_tokens in (128, 192, 256):
        home = base / f"home{max_tokens}"
        before = load()
        r = result_of(spawn("throughput", str(home), str(folder), env={"PMS_TUI_MAX_TOKENS": str(max_tokens)}))
        r["load"] = [before, load()]
        r["chunks_per_s"] = round(r["embedded"] / r["seconds"], 1)
        r["outside_model_pct"] = round(100 * (r["seconds"] - r["model_busy"]) / r["seconds"], 2)
        log(f"throughput max_tokens {max_tokens}: {r['embedded']} chunks in {r['seconds']:.1f} s = "
            f"{r['chunks_per_s']} chunks/s, outside the model {r['outside_model_pct']} %")
        rows.append(r)
    return {"notes": limit, "folder": str(folder), "rows": rows,
            "reference_home": str(base / "home256")}


# -- part: kill -9 at random moments, then resume --------------------------------------------
def part_kill(folder: Path, reference_db: Path, reference_seconds: float, kills: int = 10, seed: int = 10) -> dict:
    base = WORK / "kill"
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir(parents=True)
    home = base / "home"
    rng = random.Random(seed)
    moments = []
    committed = 0
    for n in range(kills + 1):
        events = base / f"events{n}.jsonl"
        proc = spawn("sync", str(home), str(folder), str(events))
        if n < kills:
            delay = rng.uniform(1.0, 2.5 + 1.2 * reference_seconds / kills)
            time.sleep(delay)
            finished = proc.poll() is not None
            if not finished:
                os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            ev = read_events(events)
            phase = ev[-1]["phase"] if ev else "before start"
            moments.append({"after_s": round(delay, 2), "phase": phase, "finished_first": finished})
        else:
            result_of(proc)
            ev = read_events(events)
        emb = [e for e in ev if e["phase"] == "embedding"]
        committed += emb[-1]["done"] if emb else 0
    got = fingerprint(home / DB_FILE)
    ref = fingerprint(reference_db)
    same = {k: got[k] == ref[k] for k in ("documents", "chunks", "vectors")}
    return {
        "kills": sum(1 for m in moments if not m["finished_first"]), "moments": moments,
        "same": same, "converged": all(same.values()) and got["pending"] == 0 and got["integrity"] == "ok",
        "documents": len(got["documents"]), "chunks": len(got["chunks"]), "vectors": len(got["vectors"]),
        "vec_rows": got["vec_rows"], "pending": got["pending"], "integrity": got["integrity"],
        "committed_embeddings": committed, "embedded_twice": committed - len(got["vectors"]),
    }


# -- part: watch mode -----------------------------------------------------------------------
def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return sum(int(x) for x in fields[11:15]) / tick  # utime, stime, cutime, cstime


def part_watch(files: int, idle_seconds: float) -> dict:
    pms = shutil.which("pms-tui") or str(Path(sys.executable).parent / "pms-tui")
    probe = subprocess.run([pms, "watch", "--help"], capture_output=True, text=True)
    if probe.returncode != 0:
        return {"skipped": "`pms-tui watch` does not exist in this tree."}
    import vaults
    from pms_tui.core.kb import KnowledgeBase

    base = WORK / "watch"
    shutil.rmtree(base, ignore_errors=True)
    vaults.CACHE, vaults.CORPORA = base, CORPUS.parent
    root, folders = vaults.build_sync_vault(files)
    folders = [(n, p) for n, p in folders if p.is_dir()]  # the vault may be full before a corpus
    home = base / "home"
    built = result_of(spawn("build_random", str(home), [(n, str(p)) for n, p in folders]))
    log(f"watch: vault of {built['documents']} notes ({built['chunks']} chunks) indexed in {built['seconds']:.1f} s")
    err = base / "watch.stderr"
    with open(err, "w") as sink:
        proc = subprocess.Popen([pms, "watch", "--quiet"], env={**os.environ, "PMS_TUI_HOME": str(home)},
                                stdout=subprocess.DEVNULL, stderr=sink, text=True)
    t_start = time.monotonic()
    try:
        # start-up: imports, the first sync (nothing to do), the watcher set up ("... ctrl+c stops.")
        while "ctrl+c" not in err.read_text() and time.monotonic() - t_start < 120 and proc.poll() is None:
            time.sleep(0.1)
        ready_s = time.monotonic() - t_start
        time.sleep(5)
        before, t0, load_before = _cpu_seconds(proc.pid), time.monotonic(), load()
        time.sleep(idle_seconds)
        cpu = _cpu_seconds(proc.pid) - before
        wall = time.monotonic() - t0
        kb = KnowledgeBase(home)
        edits = []
        notes = sorted(p for p in folders[0][1].rglob("*.md"))
        for n in range(3):
            note = notes[(n + 1) * len(notes) // 4]
            word = f"pmswatch{n:03d}{os.getpid() % 1000:03d}z"
            t = time.monotonic()
            note.write_text(note.read_text(encoding="utf-8") + f"\n\n{word}\n", encoding="utf-8")
            seen = None
            while time.monotonic() - t < 30:
                if kb.search(word, k=1, mode="bm25"):
                    seen = time.monotonic() - t
                    break
                time.sleep(0.02)
            edits.append(round(seen, 2) if seen is not None else None)
            time.sleep(3)
        kb.close()
        alive = proc.poll() is None
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
    return {"files": built["documents"], "chunks": built["chunks"], "idle_window_s": round(wall, 1),
            "cpu_seconds": round(cpu, 3), "cpu_pct": round(100 * cpu / wall, 2),
            "edit_to_searchable_s": edits, "watch_alive": alive, "ready_s": round(ready_s, 1), "load": [load_before, load()]}


# -- report ---------------------------------------------------------------------------------
def verdict(ok) -> str:
    return "" if ok is None else ("met" if ok else "**not met**")


def table(s: dict) -> list[str]:
    rows = ["| figure | measured | target | |", "|---|---|---|---|"]
    f = s.get("first")
    if f:
        rows.append(f"| first sync of {f['notes']} notes: text phase ends (from the sync call) | "
                    f"{f['text_phase_end_s']} s |  |  |")
        ok = f["all_findable_s"] is not None and f["all_findable_s"] <= 10
        rows.append(f"| ... every note found by its unique word (BM25, another process) | "
                    f"{f['all_findable_s']} s ({f['found']}/{f['notes']}; {f['all_findable_from_spawn_s']} s from the writer's "
                    f"spawn, imports included) | ≤ 10 s | {verdict(ok)} |")
        h = f["hybrid"]
        rows.append(f"| hybrid search (API) while the sync embeds: p50 / p95 / max "
                    f"({h['queries']} queries) | {h['p50_ms']} / {h['p95_ms']} / {h['max_ms']} ms | "
                    f"p95 ≤ 150 ms, max ≤ 500 ms | {verdict(h['p95_ms'] <= 150 and h['max_ms'] <= 500)} |")
        for phase in ("scanning", "reading", "embedding"):
            c = f["cadence"].get(phase)
            if c:
                rows.append(f"| longest gap between progress callbacks: {phase} ({c['callbacks']} callbacks): "
                            f"into the phase / within it | {c['into']} s / {c['within']} s | ≤ 1 s | "
                            f"{verdict(c['max_gap'] <= 1.0)} |")
    u = s.get("ui")
    if u:
        rows.append(f"| app: keystroke (debounce fired) to results while its own first sync embeds, p50 / p95 / max "
                    f"({u['searches']} searches) | {u['p50_ms']} / {u['p95_ms']} / {u['max_ms']} ms | "
                    f"p95 ≤ 150 ms, max ≤ 500 ms | {verdict(u['p95_ms'] <= 150 and u['max_ms'] <= 500)} |")
    t = s.get("throughput")
    if t:
        for r in t["rows"]:
            rows.append(f"| embedding throughput, max_tokens {r['max_tokens']} ({t['notes']} notes, "
                        f"{r['embedded']} chunks) | {r['chunks_per_s']} chunks/s |  |  |")
        worst = max(r["outside_model_pct"] for r in t["rows"])
        rows.append(f"| share of sync time outside the model (worst of the three) | {worst} % | ≤ 2 % | "
                    f"{verdict(worst <= 2)} |")
    k = s.get("kill")
    if k:
        rows.append(f"| kill -9 at {k['kills']} random moments, then resume: same documents, chunks, vectors | "
                    f"{'yes' if k['converged'] else 'no'} ({k['chunks']} chunks, {k['vectors']} vectors) | "
                    f"converges | {verdict(k['converged'])} |")
        rows.append(f"| ... vectors embedded twice (committed across runs minus stored) | {k['embedded_twice']} | 0 | "
                    f"{verdict(k['embedded_twice'] == 0)} |")
    w = s.get("watch")
    if w and "skipped" not in w:
        rows.append(f"| idle `pms-tui watch`, {w['files']} files: CPU over {w['idle_window_s']} s | "
                    f"{w['cpu_seconds']} s = {w['cpu_pct']} % | < 1 % | {verdict(w['cpu_pct'] < 1)} |")
        edits = [e for e in w["edit_to_searchable_s"] if e is not None]
        ok = len(edits) == len(w["edit_to_searchable_s"]) and max(edits, default=99) <= 2
        rows.append(f"| watched edit to searchable by its new word (3 edits) | "
                    f"{', '.join(str(e) for e in w['edit_to_searchable_s'])} s | ≤ 2 s | {verdict(ok)} |")
    elif w:
        rows.append(f"| watch mode | not measured: {w['skipped']} |  |  |")
    return rows


def markdown(s: dict) -> str:
    lines = [f"Run {s['date']} UTC, `python benchmarks/indexing.py{' --quick' if s['quick'] else ''}`; "
             f"load average (1 min) at start/end: {s['load'][0]} / {s['load'][1]} "
             f"(2 cores shared with other programs: every figure is pessimistic).", ""]
    lines += table(s)
    f = s.get("first")
    if f:
        cad = "; ".join(f"{p} {c['into']} s into it, {c['within']} s within it ({c['callbacks']} callbacks)"
                        for p, c in f["cadence"].items())
        lines += ["", f"First sync: writer's imports done to its sync call {f['process_start_to_sync_s']} s "
                  f"(opening the index); {f['searches']} BM25 searches to find every note; "
                  f"embedding watched for {f['embedding_window_s']} s ({f['embedded']}/{f['to_embed']} texts "
                  f"embedded, the writer then stopped by its cancel event in the full run's time budget). "
                  f"Longest progress gaps: {cad}. Load {f['load'][0]} / {f['load'][1]}."]
    u = s.get("ui")
    if u:
        lines += ["", f"App ({u['notes']} notes): queries started {u['text_phase_s']} s after the sync started "
                  f"(once every note had its row); "
                  f"{u['queries_typed']} queries typed over {u['window_s']} s of embedding ({u['pending_left']} texts "
                  f"still queued at the end; {u['no_result_within_30s']} queries without results within 30 s); "
                  f"load {u['load'][0]} / {u['load'][1]}."]
    t = s.get("throughput")
    if t:
        lines += ["", "| max_tokens | chunks | sync s | model busy s | chunks/s | outside the model | load |",
                  "|---|---|---|---|---|---|---|"]
        for r in t["rows"]:
            lines.append(f"| {r['max_tokens']} | {r['embedded']} | {r['seconds']:.1f} | {r['model_busy']:.1f} | "
                         f"{r['chunks_per_s']} | {r['outside_model_pct']} % | {r['load'][0]} / {r['load'][1]} |")
    k = s.get("kill")
    if k:
        lines += ["", "kill -9 moments (s after start, last progress phase): " + ", ".join(
            f"{m['after_s']} ({m['phase']}{', had finished' if m['finished_first'] else ''})" for m in k["moments"])
            + f". Final index: {k['documents']} documents, {k['chunks']} chunks, {k['vectors']} vectors "
              f"({k['vec_rows']} stored, {k['pending']} pending), integrity {k['integrity']}; "
              f"equal to the uninterrupted index: {k['same']}."]
    w = s.get("watch")
    if w and "skipped" not in w:
        lines += ["", f"Watch: {w['files']} files ({w['chunks']} chunks, random stored vectors), idle window "
                  f"{w['idle_window_s']} s, load {w['load'][0]} / {w['load'][1]}; watcher alive after the edits: "
                  f"{w['watch_alive']}; `pms-tui watch` said it was watching {w['ready_s']} s after it started "
                  "(the idle window starts 5 s later)."]
    return "\n".join(lines) + "\n"


def write_doc(md: str, s: dict) -> None:
    run = doc_sections.Run(**s["run"]) if "run" in s else doc_sections.start()
    doc_sections.write_section(DOC, DOC_KEY, md, run, (s["load"][-1],) if len(s["load"]) > 1 else None)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--parts", default="first,ui,throughput,kill,watch",
                    help='comma-separated; "" rewrites the report of the last run')
    ap.add_argument("--write-doc", action="store_true",
                    help="replace this runner's section of docs/benchmarks.md with the figures")
    ap.add_argument("--worker")
    ap.add_argument("args", nargs="?")
    a = ap.parse_args()
    if a.worker:
        print(json.dumps(WORKERS[a.worker](*json.loads(a.args))))
        return
    if not CORPUS.is_dir():
        print(f"Skipped: the corpus {CORPUS} is not there (../shared/corpora relative to the repository).")
        return
    parts = [p for p in a.parts.split(",") if p]
    WORK.mkdir(parents=True, exist_ok=True)
    summary_path = WORK / "summary.json"
    s: dict = {"date": dt.datetime.utcnow().strftime("%Y-%m-%d %H:%M"), "quick": a.quick, "load": [load()],
               "run": vars(doc_sections.start())}
    previous = json.loads(summary_path.read_text()) if summary_path.exists() else {}
    if "first" in parts:
        s["first"] = part_first(300 if a.quick else None, 45 if a.quick else 120)
        log(json.dumps({k: v for k, v in s["first"].items() if k != "writer"}))
    if "ui" in parts:
        s["ui"] = part_ui(300 if a.quick else None, 30 if a.quick else 60)
        log(json.dumps(s["ui"]))
    if "throughput" in parts:
        s["throughput"] = part_throughput(60 if a.quick else 200)
    if "kill" in parts:
        t = s.get("throughput") or previous.get("throughput")
        if t:
            ref = t["rows"][-1]
            s["kill"] = part_kill(Path(t["folder"]), Path(t["reference_home"]) / DB_FILE, ref["seconds"] + 3,
                                  kills=3 if a.quick else 10)
            log(json.dumps(s["kill"]))
        else:
            log("kill: needs the throughput part's uninterrupted index (run it first)")
    if "watch" in parts:
        s["watch"] = part_watch(2000 if a.quick else 10_000, 10 if a.quick else 60)
        log(json.dumps(s["watch"]))
    if not parts and previous:  # --parts "": the last run's report again (date and loads kept)
        s = previous
        if "first" in s:
            s["first"]["cadence"] = cadence(read_events(WORK / "first" / "events.jsonl"))
    else:
        s["load"].append(load())
    for key, value in previous.items():  # parts not run now keep their last figures
        s.setdefault(key, value)
    summary_path.write_text(json.dumps(s, indent=1))
    md = markdown(s)
    (WORK / "summary.md").write_text(md)
    print(md)
    if a.write_doc:
        write_doc(md, s)


if __name__ == "__main__":
    main()
