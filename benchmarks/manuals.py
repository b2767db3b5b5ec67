"""A library of manuals beside a vault: the R project's 7 manuals (677 pages) and, for the
library's times, its 2,415-page reference manual, indexed in one home beside the Obsidian help
vault; then page-level quality on the manuals.

    nice -n 10 python benchmarks/manuals.py library [--refman] [--embed-seconds N] [--home DIR]
    nice -n 10 python benchmarks/manuals.py quality --home DIR [--write-doc]

``library`` syncs a fresh home in this process and prints the time until every passage is
searchable by its words (``sync(embed=False)``), the time its vectors take (all of them, or
those embedded within ``--embed-seconds``, the rest extrapolated from that rate, said so), and
the peak resident memory of this process and of the document reader's. ``--home`` keeps the
home for ``quality``.

``quality`` asks two kinds of query made from the manuals themselves, nothing fitted on them:
``title``, a section's title from the PDF's outline (its bookmarks), whose target is the page
the section starts on; and ``phrase``, the middle line of every 10th page with 30 lines or
more, whose target is that page. A hit counts when it is in the right manual and on the target
page (its physical number). Titles found more than once across the manuals ("Examples") are
left out. It reports MRR@10 and R@1 per lane and kind, with the navigation pages' demotion
(core/search/navigation) off ("before") and on ("after"), losses included.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from corpora import CORPORA

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

MANUALS = CORPORA / "documents" / "r-manuals"
REFMAN = CORPORA / "documents" / "r-refman"
VAULT = CORPORA / "markdown" / "obsidian-help"
GEOTOPO = CORPORA / "documents" / "py-pdf-sample-files" / "009-pdflatex-geotopo"  # a German textbook
MODES = ("bm25", "vector", "hybrid")
_PAGE = re.compile(r"PDF page (\d+)\)$|^page (\d+)$")


def _peak_mb() -> tuple[int, int]:
    return (round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
            round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024))


def library(home: Path, refman: bool, embed_seconds: float | None, geotopo: bool = False) -> dict:
    from pms_tui.core.kb import KnowledgeBase

    with KnowledgeBase(home=home) as kb:
        kb.collections.create(VAULT, name="vault")
        kb.collections.create(MANUALS, name="manuals")
        if refman:
            kb.collections.create(REFMAN, name="refman")
        if geotopo:
            kb.collections.create(GEOTOPO, name="geotopo")
        started = time.perf_counter()
        report = kb.sync(embed=False)
        text_s = time.perf_counter() - started
        text_peak = _peak_mb()
        queued = kb.index.vectors_pending
        cancel = threading.Event()
        if embed_seconds is not None:
            threading.Timer(embed_seconds, cancel.set).start()
        started = time.perf_counter()
        embedded = kb.index.embed_pending(cancel=cancel)
        embed_s = time.perf_counter() - started
        left = kb.index.vectors_pending
        cancel.set()
        chunks = kb._store.conn.execute(
            "SELECT count(*), sum(c.navigation) FROM chunks c").fetchone()
    rate = embedded / embed_s if embed_s else 0.0
    return {"documents": len(report.documents), "passages": chunks[0], "navigation_passages": chunks[1] or 0,
            "skipped": report.skipped, "text_s": round(text_s, 1), "text_peak_mb": text_peak[0],
            "reader_peak_mb": text_peak[1], "queued": queued, "embedded": embedded,
            "embed_s": round(embed_s, 1), "left": left, "per_s": round(rate, 2),
            "vectors_s": round(embed_s + (left / rate if rate and left else 0.0), 1),
            "extrapolated": bool(left), "peak_mb": _peak_mb()[0]}


def _queries(pdfs: list[Path]) -> list[dict]:
    """(kind, query, manual, physical page) from these PDFs' outlines and pages."""
    import pypdfium2 as pdfium

    titles: dict[str, list[tuple[str, int, str, str]]] = {}
    out: list[dict] = []
    for pdf in pdfs:
        doc = pdfium.PdfDocument(str(pdf))
        of = "" if pdf.parent == MANUALS else f"{pdf.stem.split('-')[0]} "  # (another set: its kinds apart)
        for mark in doc.get_toc():
            dest = mark.get_dest()
            title = re.sub(r"^[\dA-Z]+(?:\.\d+)*\.?\s+", "", (mark.get_title() or "").strip())
            if dest is not None and len(title.split()) >= 2 and dest.get_index() is not None:
                titles.setdefault(title.casefold(), []).append((pdf.name, dest.get_index() + 1, title, of))
        for i in range(9, len(doc), 10):
            lines = [line.strip() for line in doc[i].get_textpage().get_text_range().splitlines() if line.strip()]
            if len(lines) >= 30:
                phrase = lines[len(lines) // 2]
                if len(phrase.split()) >= 4:
                    out.append({"kind": of + "phrase", "query": phrase, "manual": pdf.name, "page": i + 1})
        doc.close()
    for found in titles.values():
        if len(found) == 1:
            name, page, title, of = found[0]
            out.append({"kind": of + "title", "query": title, "manual": name, "page": page})
    return out


def _page(hit) -> int | None:
    if not hit.heading_path:
        return None
    m = _PAGE.search(hit.heading_path[0])
    return int(m.group(1) or m.group(2)) if m else None


def _rank(hits, q: dict) -> int | None:
    seen: set[int] = set()
    rank = 0
    for hit in hits:
        page = _page(hit)
        key = (hit.relpath, page)
        if key in seen:  # (two passages of one page are one page)
            continue
        seen.add(key)  # type: ignore[arg-type]
        rank += 1
        if hit.relpath == q["manual"] and page == q["page"]:
            return rank
    return None


def quality(home: Path, modes: tuple[str, ...] = MODES) -> None:
    from pms_tui.core.kb import KnowledgeBase
    from pms_tui.core.search import navigation

    pdfs = sorted(MANUALS.glob("*.pdf"))
    with KnowledgeBase(home=home) as kb:
        if "geotopo" in [c.name for c in kb.collections.list()]:
            pdfs += sorted(GEOTOPO.glob("*.pdf"))
    queries = _queries(pdfs)
    kinds = sorted({q["kind"] for q in queries})
    weight = navigation.WEIGHT
    table: dict[tuple[str, str, str], list[int | None]] = {}
    with KnowledgeBase(home=home) as kb:
        for label, w in (("before", 1.0), ("after", weight)):
            navigation.WEIGHT = w
            for mode in modes:
                for q in queries:
                    hits = kb.search(q["query"], k=20, mode=mode)
                    table.setdefault((label, mode, q["kind"]), []).append(_rank(hits, q))
        navigation.WEIGHT = weight
    counts = {kind: sum(q["kind"] == kind for q in queries) for kind in kinds}
    print(f"{len(queries)} queries ({', '.join(f'{counts[k]} {k}' for k in kinds)}) from the outlines and "
          f"pages of {', '.join(p.name for p in pdfs)}; navigation weight after: {weight}")
    print()
    print("| lane | kind | MRR@10 before | MRR@10 after | R@1 before | R@1 after | better | worse |")
    print("|---|---|---|---|---|---|---|---|")
    for mode in modes:
        for kind in [*kinds, "all"]:
            def ranks(label: str) -> list[int | None]:
                if kind == "all":
                    return [r for k in kinds for r in table[(label, mode, k)]]
                return table[(label, mode, kind)]

            before, after = ranks("before"), ranks("after")
            mrr = [statistics.fmean(1 / r if r and r <= 10 else 0.0 for r in rs) for rs in (before, after)]
            r1 = [statistics.fmean(1.0 if r == 1 else 0.0 for r in rs) for rs in (before, after)]
            score = [[1 / r if r and r <= 10 else 0.0 for r in rs] for rs in (before, after)]
            better = sum(a > b for b, a in zip(*score))
            worse = sum(a < b for b, a in zip(*score))
            print(f"| {mode} | {kind} | {mrr[0]:.3f} | {mrr[1]:.3f} | {r1[0]:.3f} | {r1[1]:.3f} | {better} | {worse} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("library", "quality"))
    parser.add_argument("--home", type=Path, help="the home to build (library) or to ask (quality)")
    parser.add_argument("--refman", action="store_true", help="the 2,415-page reference manual too")
    parser.add_argument("--modes", default=",".join(MODES), help="the lanes quality asks (comma-separated)")
    parser.add_argument("--geotopo", action="store_true", help="the 117-page German textbook too")
    parser.add_argument("--embed-seconds", type=float, help="embed this long, extrapolate the rest")
    args = parser.parse_args()
    if not MANUALS.is_dir() or not VAULT.is_dir() or (args.refman and not REFMAN.is_dir()):
        print(f"skipped: {MANUALS}, {VAULT} or {REFMAN} is absent")
        return 0
    if args.what == "quality":
        if args.home is None:
            parser.error("quality asks a home built by: library --home DIR")
        quality(args.home, tuple(args.modes.split(",")))
        return 0
    home = args.home or Path(tempfile.mkdtemp(prefix="pms-manuals-"))
    load = os.getloadavg()
    try:
        row = library(home, args.refman, args.embed_seconds, args.geotopo)
    finally:
        if args.home is None:
            shutil.rmtree(home, ignore_errors=True)
    print(f"{'vault + 7 manuals' + (' + reference manual' if args.refman else '') + (' + GeoTopo' if args.geotopo else '')}: "
          f"{row['documents']} documents, {row['passages']:,} passages ({row['navigation_passages']} on contents "
          f"or index pages); load {load[0]:.1f} at the start")
    print(f"searchable text: {row['text_s']} s (peak {row['text_peak_mb']} MB; reader peak {row['reader_peak_mb']} MB)")
    how = (f"{row['embedded']:,} of {row['queued']:,} embedded in {row['embed_s']} s ({row['per_s']}/s), "
           f"the other {row['left']:,} extrapolated at that rate" if row["extrapolated"]
           else f"{row['embedded']:,} embedded in {row['embed_s']} s ({row['per_s']}/s)")
    print(f"vectors: {row['vectors_s']} s after the text ({how}); peak {row['peak_mb']} MB")
    for name, why in row["skipped"]:
        print(f"  skipped {name}: {why}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import doc_sections

    key = "benchmarks/manuals.py " + (sys.argv[1] if len(sys.argv) > 1 else "")
    doc = doc_sections.DOCS / ("evaluation.md" if "quality" in sys.argv[1:2] else "benchmarks.md")
    sys.exit(doc_sections.run_main(main, key.strip(), doc=doc))
