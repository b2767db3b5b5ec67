"""A library of manuals beside a vault: the R project's 7 manuals (677 pages) and, for the
library's times, its 2,415-page reference manual, indexed in one home beside the Obsidian help
vault; then page-level quality on the manuals.

    nice -n 10 python benchmarks/manuals.py library [--refman] [--embed-seconds N] [--home DIR]
    nice -n 10 python benchmarks/manuals.py quality --home DIR [--save F] [--before F] [--write-doc]

``library`` syncs a fresh home (``--refman``: two, the manuals alone and with the reference
manual, each in a process of its own) and prints the time until every passage is
searchable by its words (``sync(embed=False)``), the time its vectors take (all of them, or
those embedded within ``--embed-seconds``, the rest extrapolated from that rate, said so), and
the peak resident memory of this process and of the document reader's. ``--home`` keeps the
home for ``quality``.

``quality`` asks page-level queries drawn from the manuals themselves, seeded, nothing fitted on
them (``manual_queries``: a section's title, a page's line, a rare word, a name from code, a
quoted phrase; GeoTopo's apart when the home holds it). A hit counts when it is on a target page
of the target PDF (its physical number); two passages of one page count once. It reports MRR@10
and R@1 per lane and kind, and how often the hybrid search called a query weak. ``--save``
keeps each query's ranks; ``--before FILE`` compares with the ranks another tree saved (the
same script run in a worktree of an older commit, on a home that tree built), losses included.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
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
        conn = kb._store.conn
        columns = {row[1] for row in conn.execute("PRAGMA table_info(chunks)")}
        chunks = conn.execute(  # (a tree before navigation pages has no such column: its before column)
            "SELECT count(*), " + ("sum(navigation)" if "navigation" in columns else "0") + " FROM chunks").fetchone()
    rate = embedded / embed_s if embed_s else 0.0
    return {"documents": len(report.documents), "passages": chunks[0], "navigation_passages": chunks[1] or 0,
            "skipped": report.skipped, "text_s": round(text_s, 1), "text_peak_mb": text_peak[0],
            "reader_peak_mb": text_peak[1], "queued": queued, "embedded": embedded,
            "embed_s": round(embed_s, 1), "left": left, "per_s": round(rate, 2),
            "vectors_s": round(embed_s + (left / rate if rate and left else 0.0), 1),
            "extrapolated": bool(left), "peak_mb": _peak_mb()[0]}


def _page(hit) -> int | None:
    if not hit.heading_path:
        return None
    m = _PAGE.search(hit.heading_path[0])
    return int(m.group(1) or m.group(2)) if m else None


def _rank(hits, q: dict) -> int | None:
    targets = {(name, page) for name, page in q["targets"]}
    seen: set[tuple[str, int | None]] = set()
    rank = 0
    for hit in hits:
        key = (hit.relpath, _page(hit))
        if key in seen:  # (two passages of one page are one page)
            continue
        seen.add(key)
        rank += 1
        if key in targets:
            return rank
    return None


def queries(home: Path) -> list[dict]:
    """The page-level queries of the manuals (and GeoTopo's, kinds apart, when the home has it)."""
    from pms_tui.core.kb import KnowledgeBase

    import manual_queries

    out = manual_queries.draw(sorted(MANUALS.glob("*.pdf")))
    with KnowledgeBase(home=home) as kb:
        if "geotopo" in [c.name for c in kb.collections.list()]:
            out += manual_queries.draw(sorted(GEOTOPO.glob("*.pdf")), "GeoTopo ")
    return out


def ask(home: Path, qs: list[dict], modes: tuple[str, ...]) -> dict:
    """Each query's target rank per lane (None: not in the first 20 pages), and whether the
    hybrid search called it weak ("No note matches well")."""
    from pms_tui.core.kb import KnowledgeBase

    ranks: dict[str, list[int | None]] = {}
    weak: list[bool | None] = []
    with KnowledgeBase(home=home) as kb:
        for mode in modes:
            ranks[mode] = []
            for q in qs:
                result = kb.search(q["query"], k=20, mode=mode)
                ranks[mode].append(_rank(result, q))
                if mode == "hybrid":
                    match = getattr(result, "match", None)
                    weak.append(None if match is None else match.weak)
    return {"queries": [q["kind"] + "\t" + q["query"] for q in qs], "ranks": ranks, "weak": weak}


def _mrr(rs: list[int | None]) -> float:
    return statistics.fmean(1 / r if r and r <= 10 else 0.0 for r in rs) if rs else 0.0


def _r1(rs: list[int | None]) -> float:
    return statistics.fmean(1.0 if r == 1 else 0.0 for r in rs) if rs else 0.0


def compare(qs: list[dict], before: dict, after: dict, modes: tuple[str, ...]) -> None:
    keys = [q["kind"] + "\t" + q["query"] for q in qs]
    if before["queries"] != keys:
        raise SystemExit("the before file's queries are not these (drawn from other PDFs or another seed)")
    kinds = list(dict.fromkeys(q["kind"] for q in qs))
    counts = {k: sum(q["kind"] == k for q in qs) for k in kinds}
    print(f"{len(qs)} queries ({', '.join(f'{counts[k]} {k}' for k in kinds)}); "
          f"before: commit {before.get('commit', '?')}, after: commit {after.get('commit', '?')}")
    print()
    print("| lane | kind | n | MRR@10 before | MRR@10 after | R@1 before | R@1 after | better | worse |")
    print("|---|---|---|---|---|---|---|---|---|")
    for mode in modes:
        for kind in [*kinds, "all"]:
            idx = [i for i, q in enumerate(qs) if kind in ("all", q["kind"])]
            b = [before["ranks"][mode][i] for i in idx]
            a = [after["ranks"][mode][i] for i in idx]
            better = sum(_mrr([y]) > _mrr([x]) for x, y in zip(b, a))
            worse = sum(_mrr([y]) < _mrr([x]) for x, y in zip(b, a))
            print(f"| {mode} | {kind} | {len(idx)} | {_mrr(b):.3f} | {_mrr(a):.3f} | {_r1(b):.3f} | {_r1(a):.3f} "
                  f"| {better} | {worse} |")
    print()
    print("hybrid, called weak (No note matches well) before / after, per kind: " + "; ".join(
        f"{kind} {_share(before['weak'], qs, kind)} / {_share(after['weak'], qs, kind)}" for kind in kinds))


def _share(weak: list[bool | None], qs: list[dict], kind: str) -> str:
    mine = [w for w, q in zip(weak, qs) if q["kind"] == kind]
    known = [w for w in mine if w is not None]
    return f"{sum(known) / len(known):.0%}" if known else "unknown"


def quality(home: Path, modes: tuple[str, ...], save: Path | None, before: Path | None) -> None:
    qs = queries(home)
    result = ask(home, qs, modes)
    result["commit"] = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                                      capture_output=True, text=True).stdout.strip()
    if save is not None:
        save.write_text(json.dumps(result), encoding="utf-8")
    if before is not None:
        compare(qs, json.loads(before.read_text(encoding="utf-8")), result, modes)
    else:
        compare(qs, result, result, modes)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("library", "quality"))
    parser.add_argument("--home", type=Path, help="the home to build (library) or to ask (quality)")
    parser.add_argument("--refman", action="store_true",
                        help="the manuals alone, then with the 2,415-page reference manual (each in its own process)")
    parser.add_argument("--alone", action="store_true", help=argparse.SUPPRESS)  # one library, this process
    parser.add_argument("--modes", default=",".join(MODES), help="the lanes quality asks (comma-separated)")
    parser.add_argument("--geotopo", action="store_true", help="the 117-page German textbook too")
    parser.add_argument("--embed-seconds", type=float, help="embed this long, extrapolate the rest")
    parser.add_argument("--save", type=Path, help="quality: write each query's ranks to this file")
    parser.add_argument("--before", type=Path, help="quality: compare with the ranks another tree saved")
    args = parser.parse_args()
    if not MANUALS.is_dir() or not VAULT.is_dir() or (args.refman and not REFMAN.is_dir()):
        print(f"skipped: {MANUALS}, {VAULT} or {REFMAN} is absent")
        return 0
    if args.what == "quality":
        if args.home is None:
            parser.error("quality asks a home built by: library --home DIR")
        quality(args.home, tuple(args.modes.split(",")), args.save, args.before)
        return 0
    if args.refman and not args.alone:
        # the manuals alone first, each library in a process of its own: a peak of resident
        # memory is the process's highest so far, so one process would report the first's
        command = [sys.executable, str(Path(__file__).resolve()), "library", "--alone"]
        command += ["--embed-seconds", str(args.embed_seconds)] if args.embed_seconds is not None else []
        for extra in ([], ["--refman"]):
            done = subprocess.run(command + extra, capture_output=True, text=True)
            print(done.stdout.rstrip() + ("\n" + done.stderr.strip()[-2000:] if done.returncode else ""))
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
          f"or index pages); load {load[0]:.1f} at the start, {os.getloadavg()[0]:.1f} at the end")
    print(f"  searchable text: {row['text_s']} s (peak {row['text_peak_mb']} MB; reader peak {row['reader_peak_mb']} MB)")
    how = (f"{row['embedded']:,} of {row['queued']:,} embedded in {row['embed_s']} s ({row['per_s']}/s), "
           f"the other {row['left']:,} extrapolated at that rate" if row["extrapolated"]
           else f"{row['embedded']:,} embedded in {row['embed_s']} s ({row['per_s']}/s)")
    print(f"  vectors: {row['vectors_s']} s after the text ({how}); peak {row['peak_mb']} MB")
    for name, why in row["skipped"]:
        print(f"  skipped {name}: {why}")
    return 0

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import doc_sections

    key = "benchmarks/manuals.py " + (sys.argv[1] if len(sys.argv) > 1 else "")
    doc = doc_sections.DOCS / ("evaluation.md" if "quality" in sys.argv[1:2] else "benchmarks.md")
    sys.exit(doc_sections.run_main(main, key.strip(), doc=doc))
