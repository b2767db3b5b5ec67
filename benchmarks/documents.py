"""Indexing time and peak memory per document size: a one-page PDF, a 3-page one, the longest of
../shared/corpora/documents (a 117-page German textbook), a Word file, and a generated 1,000-page
PDF (40 lines a page), each alone in a folder synced by a fresh process (so each peak is its own).

    nice -n 10 python benchmarks/documents.py [--no-embed] [--corpora ../shared/corpora]

Prints, per document: pages, characters of text, passages, the time to read its text (the
child process), the whole sync (reading, chunking, writing and embedding), and the peak
resident memory of the syncing process and of the reader's process.
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
import time
from pathlib import Path

from corpora import CORPORA

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))


def measure(source: str, embed: bool) -> dict:
    """One document synced alone in this (fresh) process."""
    from pms_tui.core.indexing import documents
    from pms_tui.core.kb import KnowledgeBase

    work = Path(tempfile.mkdtemp(prefix="pms-docbench-"))
    try:
        folder = work / "docs"
        folder.mkdir()
        target = folder / Path(source).name
        shutil.copy(source, target)
        started = time.perf_counter()
        extracted = documents.extract(target, 20_000_000)
        read_seconds = time.perf_counter() - started
        reader_peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        with KnowledgeBase(home=work / "home") as kb:
            kb.collections.create(folder, name="docs")
            started = time.perf_counter()
            report = kb.sync(embed=embed)
            sync_seconds = time.perf_counter() - started
            chunks = report.chunks_written
        return {"pages": extracted.pages, "chars": len(extracted.markdown), "chunks": chunks,
                "read_s": round(read_seconds, 2), "sync_s": round(sync_seconds, 2),
                "embed_s": round(report.embed_seconds, 2),
                "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
                "reader_peak_mb": round(reader_peak / 1024), "skipped": report.skipped}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-embed", action="store_true", help="text only (no model)")
    parser.add_argument("--corpora", type=Path, default=CORPORA, help="the shared corpora folder")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, not args.no_embed)))
        return 0
    sys.path.insert(0, str(REPO / "tests" / "faults"))
    from document_files import page_lines, write_text_pdf

    work = Path(tempfile.mkdtemp(prefix="pms-docbench-src-"))
    long_pdf = work / "thousand-pages.pdf"
    write_text_pdf(long_pdf, (page_lines(n) for n in range(1, 1001)))
    docs = args.corpora / "documents"
    pdfs = docs / "py-pdf-sample-files"
    cases = [
        ("small (1 page)", pdfs / "001-trivial" / "minimal-document.pdf"),
        ("medium (3 pages, two columns)", pdfs / "026-latex-multicolumn" / "multicolumn.pdf"),
        ("longest in documents/ (117 pages)", pdfs / "009-pdflatex-geotopo" / "GeoTopo-komprimiert.pdf"),
        ("Word (paragraphs, tables)", docs / "python-docx-test-files" / "par-known-paragraphs.docx"),
        ("generated 1,000 pages", long_pdf),
    ]
    load = os.getloadavg()
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load {load[0]:.1f} {load[1]:.1f}, "
          f"{'text only' if args.no_embed else 'with embedding'}")
    print(f"{'document':36} {'size':>8} {'pages':>5} {'chars':>9} {'chunks':>6} {'read s':>7} {'sync s':>7} "
          f"{'embed s':>7} {'peak MB':>7} {'reader MB':>9}")
    for label, path in cases:
        if not path.is_file():
            print(f"{label:36} (absent: {path})")
            continue
        command = [sys.executable, __file__, "--one", str(path)] + (["--no-embed"] if args.no_embed else [])
        out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
        row = json.loads(out.strip().splitlines()[-1])
        print(f"{label:36} {path.stat().st_size / 1e6:7.2f}M {row['pages']:5} {row['chars']:9,} {row['chunks']:6} "
              f"{row['read_s']:7.2f} {row['sync_s']:7.2f} {row['embed_s']:7.2f} {row['peak_mb']:7} "
              f"{row['reader_peak_mb']:9}")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import doc_sections

    sys.exit(doc_sections.run_main(main, "benchmarks/documents.py"))
