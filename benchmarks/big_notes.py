#!/usr/bin/env python
"""Big notes in bounded memory: peak RSS and time to index one note of each shape.

    python benchmarks/big_notes.py                  # 20 MB, every shape
    python benchmarks/big_notes.py --mb 5 --shapes table-rows,headings
    python benchmarks/big_notes.py --ui --shapes one-long-line,headings   # the app meanwhile

Each shape is written to a folder of its own and synced by a child process (a fresh
interpreter with the real model) whose peak RSS the kernel reports (``wait4``'s ru_maxrss).
The child writes the note's text (reading, chunking, the full-text rows: the part whose
memory could grow with the note), loads the model and embeds the first ``--embed`` queued
texts, then stops as ctrl+c would (the rest of the queue is the same work in groups of 256
texts whose memory does not depend on the note; embedding 20,000 chunks would take many
minutes on a busy machine). Prints, per shape: bytes, chunks, peak RSS, the text phase's
seconds and the load average. The target: peak RSS <= 600 MB at 20 MB.

``--ui``: the app stays responsive meanwhile. Per shape, the app (headless, Textual's Pilot,
the real model) opens a home holding the bundled guide (synced) and a folder with the big note
(not yet indexed), presses ctrl+s and, while the sync's text phase runs in its worker thread,
types queries against the guide (``ui_latency.measure_while_indexing``): each query's time
from its last key to its results shown (the debounce included) and how late the event loop
wakes a 20 ms sleep (a stall of the UI between keys). The same home without the big note gives
the figures of an idle app beside them.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "tests" / "faults"))

from big_note_shapes import SHAPES, shape  # noqa: E402  (the slow tests' shapes)

LIMIT_MB = 600

CHILD = """
import json, sys, threading, time
from pms_tui.core.kb import KnowledgeBase
home, embed = sys.argv[1], int(sys.argv[2])
cancel = threading.Event()
marks = {}
def progress(done, total, phase):
    if phase == "embedding":
        marks.setdefault("text_done", time.perf_counter())
        if done >= embed:
            cancel.set()
start = time.perf_counter()
with KnowledgeBase(home=home) as kb:
    report = kb.sync(progress=progress, cancel=cancel)
    stats = kb.stats()
print(json.dumps({"text_seconds": marks.get("text_done", time.perf_counter()) - start,
                  "seconds": time.perf_counter() - start, "chunks": stats["chunks"],
                  "embedded": report.chunks_embedded, "skipped": report.skipped}))
"""


def run_shape(name: str, size: int, embed: int, base: Path) -> dict:
    import json

    notes, home = base / f"notes-{name}", base / f"home-{name}"
    notes.mkdir()
    (notes / f"{name}.md").write_bytes(shape(name, size))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PMS_TUI_")}
    (home).mkdir()
    (home / "config.toml").write_text(f"max_note_mb = {max(20, -(-size // 1_000_000))}\n")
    subprocess.run([sys.executable, "-m", "pms_tui", "--home", str(home), "add", str(notes), "--name", "n"],
                   check=True, capture_output=True, env=env)
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(home), str(embed)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, cwd=str(REPO))
    out, err = proc.communicate()
    rss = _children_peak_rss_mb()
    if proc.returncode:
        raise SystemExit(f"{name}: the sync failed: {err.decode()[-800:]}")
    facts = json.loads(out.decode().strip().splitlines()[-1])
    facts["rss_mb"] = rss
    return facts


def _ui_rows(shapes: list[str], size: int) -> int:
    """``--ui``: keystroke-to-results while each shape's text is indexed by the app's sync."""
    import shutil

    from ui_latency import measure_while_indexing

    from pms_tui.core.kb import KnowledgeBase
    from pms_tui.tui.sample import SAMPLE_NAME, sample_dir

    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'shape':<18} {'MB':>5} {'text s':>7} {'queries':>8} {'key->results p50':>17} {'max':>8} "
          f"{'loop lag p99':>13} {'max':>8}")
    with tempfile.TemporaryDirectory(prefix="pms-big-ui-") as tmp:
        base = Path(tmp) / "guide-home"
        with KnowledgeBase(home=base) as kb:
            kb.collections.create(sample_dir(), name=SAMPLE_NAME)
            kb.sync()
        (base / "config.toml").write_text(f"max_note_mb = {max(20, -(-size // 1_000_000))}\nwatch = false\n")
        for name in ["(no big note)"] + shapes:
            home = Path(tmp) / f"home-{len(list(Path(tmp).iterdir()))}"
            shutil.copytree(base, home)
            notes = Path(tmp) / f"notes-{home.name}"
            notes.mkdir()
            if name != "(no big note)":
                (notes / f"{name}.md").write_bytes(shape(name, size))
            else:  # a small note: the same sync, nothing big to read
                (notes / "small.md").write_text("# Small\n\nA short note.\n")
            with KnowledgeBase(home=home) as kb:
                kb.collections.create(notes, name="big")
            r = measure_while_indexing(home)
            print(f"{name:<18} {size / 1e6:>5g} {r['text_seconds']:>7.1f} {r['queries']:>8} "
                  f"{r['key_to_results_p50_ms']!s:>15}ms {r['key_to_results_max_ms']!s:>6}ms "
                  f"{r['loop_lag_p99_ms']!s:>11}ms {r['loop_lag_max_ms']!s:>6}ms", flush=True)
            shutil.rmtree(home, ignore_errors=True)
            shutil.rmtree(notes, ignore_errors=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"debounce {r['debounce_ms']} ms (inside key->results)")
    return 0


def _children_peak_rss_mb() -> float:
    """The largest peak RSS of this process's children (the sync; `add` is far smaller).
    RUSAGE_CHILDREN keeps a maximum, so each shape runs in a launcher of its own."""
    import resource

    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=20.0, help="size of each note (MB)")
    parser.add_argument("--shapes", default=",".join(SHAPES), help="comma-separated: " + ", ".join(SHAPES))
    parser.add_argument("--embed", type=int, default=512, help="queued texts embedded before stopping")
    parser.add_argument("--ui", action="store_true", help="keystroke-to-results in the app meanwhile")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # a single shape, in this process (see below)
    args = parser.parse_args()
    size = int(args.mb * 1_000_000)
    if args.ui:
        sys.path.insert(0, str(HERE))
        return _ui_rows(args.shapes.split(","), size)
    if args.one:
        import json

        with tempfile.TemporaryDirectory(prefix="pms-big-notes-") as tmp:
            print(json.dumps(run_shape(args.one, size, args.embed, Path(tmp))))
        return 0
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'shape':<18} {'MB':>5} {'chunks':>7} {'peak RSS':>9} {'text s':>7} {'total s':>8}  target <= {LIMIT_MB} MB")
    worst = 0.0
    for name in args.shapes.split(","):
        import json

        started = time.perf_counter()
        # each shape in a launcher of its own, so RUSAGE_CHILDREN's maximum is that shape's
        proc = subprocess.run([sys.executable, __file__, "--one", name, "--mb", str(args.mb),
                               "--embed", str(args.embed)], capture_output=True, text=True)
        if proc.returncode:
            print(f"{name:<18} failed: {proc.stderr.strip()[-300:]}")
            continue
        facts = json.loads(proc.stdout.strip().splitlines()[-1])
        worst = max(worst, facts["rss_mb"])
        flag = "" if facts["rss_mb"] <= LIMIT_MB else "  OVER"
        print(f"{name:<18} {args.mb:>5g} {facts['chunks']:>7,} {facts['rss_mb']:>7.0f}MB "
              f"{facts['text_seconds']:>7.1f} {time.perf_counter() - started:>8.1f}{flag}", flush=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; worst peak {worst:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import doc_sections

    sys.exit(doc_sections.run_main(main, "benchmarks/big_notes.py", ("--ui",)))
