"""Indexing that never gets in the way (issue 10): numbers for its targets, printed as JSON.

    python benchmarks/indexing_live.py first-sync [--seconds 60]   # findable-by-BM25 time,
        hybrid latency while the first sync embeds, progress cadence per phase (real model,
        a fresh copy of jbranchaud-til: 1,873 notes)
    python benchmarks/indexing_live.py watch                       # idle CPU of watch mode on
        a 10,000-file vault, and edit-to-searchable time
    python benchmarks/indexing_live.py throughput [--notes 150]    # chunks/s at max_tokens
        128 / 192 / 256 (each in its own process), and the share of a sync spent outside the model

Nothing here asserts: it measures on whatever machine runs it (load average printed).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from vaults import CACHE, TIL, build_sync_vault, corpus  # noqa: E402

QUERIES = [line.split("|", 1)[-1].strip() for line in (REPO / "benchmarks" / "queries.txt").read_text().splitlines()
           if line.strip() and not line.startswith("#")]


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, max(0, int(round(q * (len(values) - 1)))))] if values else float("nan")


def fresh_copy(src: Path, name: str) -> Path:
    dest = Path(tempfile.mkdtemp(prefix=f"pms-{name}-"))
    shutil.copytree(src, dest / name)
    return dest / name


def first_sync(seconds: float) -> dict:
    """Add the 1,873-note folder to a new home and sync it; meanwhile search from this thread."""
    from pms_tui.core.kb import KnowledgeBase, walk_notes

    folder = fresh_copy(corpus(TIL), "til")
    notes = sorted(rel for rel, _ in walk_notes(folder))
    kb = KnowledgeBase(home=tempfile.mkdtemp(prefix="pms-home-"))
    kb.load_model()
    kb.collections.create(folder, name="til")
    calls: list[tuple[float, int, int, str]] = []
    cancel = threading.Event()
    started = time.perf_counter()

    def progress(done, total, phase):
        calls.append((time.perf_counter() - started, done, total, phase))

    result: dict = {}
    worker = threading.Thread(target=lambda: result.update(report=kb.sync(progress=progress, cancel=cancel)))
    worker.start()
    documents_at = None
    while worker.is_alive() and documents_at is None:
        if kb.stats()["documents"] == len(notes):
            documents_at = time.perf_counter() - started
        time.sleep(0.05)
    # every note findable by BM25: its own title (as typed) finds it in the top 20
    found = 0
    check_started = time.perf_counter()
    for rel in notes:
        title = kb.chunks_of("til", rel)[0].title
        if any(h.relpath == rel for h in kb.search(title, k=20, mode="bm25")):
            found += 1
    check_seconds = time.perf_counter() - check_started
    latencies: list[float] = []
    search_until = time.perf_counter() + seconds
    i = 0
    while time.perf_counter() < search_until and worker.is_alive():
        query = QUERIES[i % len(QUERIES)] + (f" {i}" if i >= len(QUERIES) else "")  # never a cached vector
        i += 1
        t = time.perf_counter()
        kb.search(query, k=10, mode="hybrid")
        latencies.append((time.perf_counter() - t) * 1000)
        time.sleep(0.1)
    embedded_at_stop = max((d for _, d, _, p in calls if p == "embedding"), default=0)
    cancel.set()
    worker.join()
    phases: dict = {}
    previous: dict[str, float] = {}
    for t, done, total, phase in calls:
        info = phases.setdefault(phase, {"calls": 0, "first_s": round(t, 3), "max_gap_s": 0.0})
        info["calls"] += 1
        if phase in previous:
            info["max_gap_s"] = round(max(info["max_gap_s"], t - previous[phase]), 3)
        info["last_s"] = round(t, 3)
        previous[phase] = t
    embedding = [(t, d) for t, d, _, p in calls if p == "embedding"]
    rate = (embedding[-1][1] - embedding[0][1]) / (embedding[-1][0] - embedding[0][0]) if len(embedding) > 1 else None
    return {
        "notes": len(notes),
        "all_documents_written_s": round(documents_at or float("nan"), 2),
        "notes_found_by_bm25_title": found,
        "bm25_check_seconds": round(check_seconds, 1),
        "hybrid_searches_while_embedding": len(latencies),
        "hybrid_p50_ms": round(pct(latencies, 0.5), 1),
        "hybrid_p95_ms": round(pct(latencies, 0.95), 1),
        "hybrid_max_ms": round(max(latencies), 1) if latencies else None,
        "embedding_chunks_per_s": round(rate, 1) if rate else None,
        "embedded_before_cancel": embedded_at_stop,
        "pending_after_cancel": kb.vectors_pending,
        "phases": phases,
    }


IDLE_CHILD = """
import resource, sys, threading, time
from pms_tui.core.kb import KnowledgeBase
kb = KnowledgeBase(home=sys.argv[1])
stop = threading.Event(); modes = []
t = threading.Thread(target=kb.watch, args=(stop,), kwargs={"on_mode": modes.append}, daemon=True); t.start()
while not modes: time.sleep(0.05)
time.sleep(3)
u0 = resource.getrusage(resource.RUSAGE_SELF); w0 = time.perf_counter()
time.sleep(float(sys.argv[2]))
u1 = resource.getrusage(resource.RUSAGE_SELF); w1 = time.perf_counter()
cpu = (u1.ru_utime - u0.ru_utime) + (u1.ru_stime - u0.ru_stime)
print(modes[0], cpu, w1 - w0, flush=True)
stop.set(); t.join(10)
"""


def watch(idle_seconds: float) -> dict:
    from pms_tui.core.kb import KnowledgeBase

    root, collections = build_sync_vault(10_000)
    home = Path(tempfile.mkdtemp(prefix="pms-watch-home-"))
    with KnowledgeBase(home=home) as kb:
        for name, path in collections:
            kb.collections.create(path, name=name)
        started = time.perf_counter()
        kb.sync(embed=False)  # text only: watching does not need vectors
        text_sync = time.perf_counter() - started
        files = kb.stats()["documents"]
    out = subprocess.run([sys.executable, "-c", IDLE_CHILD, str(home), str(idle_seconds)], capture_output=True,
                         text=True, cwd=str(REPO), timeout=600)
    mode, cpu, wall = out.stdout.split()[-3:] if out.stdout.strip() else ("error", "nan", "nan")
    # edit -> searchable, with the watcher of this process
    edits: list[float] = []
    with KnowledgeBase(home=home) as kb:
        stop = threading.Event()
        modes: list[str] = []
        watcher = threading.Thread(target=kb.watch, args=(stop,), kwargs={"on_mode": modes.append, "embed": False},
                                   daemon=True)
        watcher.start()
        while not modes:
            time.sleep(0.05)
        time.sleep(1)
        name, path = collections[1]
        note = sorted(path.rglob("*.md"))[5]
        original = note.read_text()
        for i in range(5):
            word = f"zqxword{i}x{os.getpid()}"
            written = time.perf_counter()
            note.write_text(original + f"\n\n{word}\n")
            while not kb.search(word, k=1, mode="bm25"):
                time.sleep(0.02)
                if time.perf_counter() - written > 30:
                    break
            edits.append(time.perf_counter() - written)
            time.sleep(0.5)
        note.write_text(original)
        stop.set()
        watcher.join(10)
    return {
        "files": files, "text_only_first_sync_s": round(text_sync, 1), "mode": mode,
        "idle_cpu_percent": round(100 * float(cpu) / float(wall), 2), "idle_window_s": round(float(wall), 1),
        "edit_to_searchable_s": [round(e, 2) for e in edits], "stderr": out.stderr[-300:] if out.returncode else "",
    }


THROUGHPUT_CHILD = """
import json, sys, time
from pathlib import Path
from pms_tui.core.kb import KnowledgeBase, walk_notes, parse_note
from pms_tui.core.indexing.embed import Embedder
folder, count, max_tokens = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rels = sorted(r for r, _ in walk_notes(folder) if "/" in r)[:count]
texts = [c.embed_text for r in rels for c in parse_note((folder / r).read_text(), Path(r).name).chunks]
e = Embedder(max_tokens=max_tokens); e.load()
e.embed_documents(texts[:8])
t = time.perf_counter(); e.embed_documents(texts); seconds = time.perf_counter() - t
print(json.dumps({"max_tokens": max_tokens, "chunks": len(texts), "seconds": round(seconds, 1),
                  "chunks_per_s": round(len(texts) / seconds, 1)}))
"""

OUTSIDE_CHILD = """
import json, sys, tempfile, time, shutil
from pathlib import Path
from pms_tui.core.kb import KnowledgeBase, walk_notes
src, count = Path(sys.argv[1]), int(sys.argv[2])
folder = Path(tempfile.mkdtemp()) / "notes"
for r in sorted(r for r, _ in walk_notes(src) if "/" in r)[:count]:
    (folder / r).parent.mkdir(parents=True, exist_ok=True); shutil.copy2(src / r, folder / r)
kb = KnowledgeBase(home=tempfile.mkdtemp()); kb.load_model(); kb.collections.create(folder, name="n")
phases = {}
def progress(done, total, phase):
    phases.setdefault(phase, time.perf_counter())
t = time.perf_counter(); report = kb.sync(progress=progress); wall = time.perf_counter() - t
model = report.embed_seconds / kb.embedder.workers  # runs on both cores at once
text = phases.get("embedding", t) - t
print(json.dumps({"notes": count, "chunks": report.chunks_written, "wall_s": round(wall, 1),
                  "text_phase_s": round(text, 2), "model_s_per_core": round(model, 1),
                  "outside_model_share": round(max(0.0, wall - model) / wall, 4),
                  "chunks_per_s": round(report.chunks_embedded / wall, 1)}))
"""


def throughput(notes: int) -> dict:
    folder = corpus(TIL)
    rows = []
    for max_tokens in (128, 192, 256):
        out = subprocess.run([sys.executable, "-c", THROUGHPUT_CHILD, str(folder), str(notes), str(max_tokens)],
                             capture_output=True, text=True, cwd=str(REPO), timeout=1800)
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]) if out.returncode == 0 else {"error": out.stderr[-300:]})
    out = subprocess.run([sys.executable, "-c", OUTSIDE_CHILD, str(folder), str(notes)], capture_output=True,
                         text=True, cwd=str(REPO), timeout=1800)
    outside = json.loads(out.stdout.strip().splitlines()[-1]) if out.returncode == 0 else {"error": out.stderr[-300:]}
    return {"by_max_tokens": rows, "sync": outside}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("part", choices=["first-sync", "watch", "throughput"])
    parser.add_argument("--seconds", type=float, default=60.0, help="searching while the first sync embeds")
    parser.add_argument("--notes", type=int, default=150, help="notes for the throughput runs")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    if args.part == "first-sync":
        result = first_sync(args.seconds)
    elif args.part == "watch":
        result = watch(args.seconds if args.seconds != 60.0 else 30.0)
    else:
        result = throughput(args.notes)
    result["load_average_before_after"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]
    result["cpu_self_s"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_utime, 1)
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
