#!/usr/bin/env python
"""A new 100-note folder added while a 7,000-note embedding runs: seconds until it is found by
a word (target: <= 10 s), in the same process (as the app does) and from a second
process (`pms-tui add` + `pms-tui sync`, as a shell would).

    python benchmarks/text_while_embedding.py [--corpus tldr-pages-en]

A first sync of the corpus (real notes, the real model) runs in a thread; once it is
embedding, a folder of 100 generated notes is added and synced, and the time from adding it to
its first BM25 hit is printed, with the vectors still queued at that moment and the load
average. Then the same with a second process while the first keeps embedding.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from corpora import MARKDOWN

REPO = Path(__file__).resolve().parents[1]


def notes(folder: Path, word: str, count: int = 100) -> None:
    for i in range(count):
        path = folder / f"n{i:03d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# Note {i}\n\nA {word} note, number {i}, about nothing else.\n", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default="tldr-pages-en")
    args = parser.parse_args()
    corpus = MARKDOWN / args.corpus
    if not corpus.is_dir():
        print(f"skipped: {corpus} is not here")
        return 0
    from pms_tui.core.kb import KnowledgeBase

    with tempfile.TemporaryDirectory(prefix="pms-text-first-") as tmp:
        home = Path(tmp) / "home"
        kb = KnowledgeBase(home=home)
        kb.collections.create(corpus, name="big")
        embedding = threading.Event()
        cancel = threading.Event()

        def progress(done: int, total: int, phase: str) -> None:
            if phase == "embedding" and done > 0:
                embedding.set()

        first = threading.Thread(target=lambda: kb.sync(progress=progress, cancel=cancel))
        started = time.perf_counter()
        first.start()
        embedding.wait()
        print(f"{args.corpus}: text written and embedding under way after {time.perf_counter() - started:.1f} s; "
              f"{kb.index.vectors_pending:,} texts queued; load average {os.getloadavg()[0]:.2f}")

        folder = Path(tmp) / "same-process"
        notes(folder, "quokka")
        t = time.perf_counter()
        kb.collections.create(folder, name="same")
        report = kb.sync(collections=["same"], wait=True)
        while not kb.search("quokka", k=1, mode="bm25").hits:
            time.sleep(0.05)
        print(f"same process: 100 notes searchable by a word {time.perf_counter() - t:.2f} s after the add "
              f"(+{len(report.added)} new; {kb.index.vectors_pending:,} texts still queued)")

        folder = Path(tmp) / "other-process"
        notes(folder, "wombat")
        env = {**os.environ, "PMS_TUI_HOME": str(home)}
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "pms_tui", "add", str(folder), "--name", "other"], env=env,
                       check=True, capture_output=True)
        out = subprocess.run([sys.executable, "-m", "pms_tui", "sync", "-q", "-c", "other"], env=env,
                             check=True, capture_output=True, text=True).stdout
        while not kb.search("wombat", k=1, mode="bm25").hits:
            time.sleep(0.05)
        print(f"second process (pms-tui add + sync): searchable {time.perf_counter() - t:.2f} s after the add "
              f"started; the sync said: {out.strip()[-160:]!r}; {kb.index.vectors_pending:,} texts still queued; "
              f"load average {os.getloadavg()[0]:.2f}")
        cancel.set()
        first.join()
        kb.close()
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import doc_sections

    sys.exit(doc_sections.run_main(main, "benchmarks/text_while_embedding.py"))
