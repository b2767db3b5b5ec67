"""The exact-words sets' current figures, per collection and kind, as docs/evaluation.md shows them.

    python research/exact_words/report.py [NAME ...] [--write-doc]

NAME is one of :data:`COLLECTIONS` (all of them whose folder is here by default). Each
collection is indexed as ``pms-tui eval known-item`` indexes it (cached), its set drawn from the
index (``sets.py``, seeded), and every query run through the product's search (``run.py``).
``mixed`` is the home ``home.py`` makes of links to the corpora (indexed with
``follow_external_links``). With ``--write-doc`` the table replaces the section
``research/exact_words/report.py`` of docs/evaluation.md, under the command, commit, date and load.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path[:0] = [str(REPO), str(HERE), str(REPO / "benchmarks")]

import doc_sections  # noqa: E402
import home  # noqa: E402
import run  # noqa: E402
import sets  # noqa: E402
from corpora import CORPORA, MARKDOWN  # noqa: E402

from pms_tui.eval import harness  # noqa: E402

MIXED = harness.cache_root() / "exact-words-home"  # links only; its index is cached beside it
COLLECTIONS = {
    "obsidian-help": MARKDOWN / "obsidian-help",
    "til": MARKDOWN / "jbranchaud-til",
    "tldr-de": MARKDOWN / "tldr-pages-i18n" / "pages.de",
    "tldr-es": MARKDOWN / "tldr-pages-i18n" / "pages.es",
    "tldr-en": MARKDOWN / "tldr-pages-en",
    "mixed": MIXED,
}
KEY = "research/exact_words/report.py"


def figures(name: str, folder: Path) -> dict:
    from pms_tui.eval import known_item

    if name == "mixed":
        os.environ["PMS_TUI_FOLLOW_EXTERNAL_LINKS"] = "true"
        home.make(folder, CORPORA)
    kb, _ = known_item.open_collection(folder, quiet=True)
    try:
        rows = sets.build(sets.notes_of(kb._store.conn), name)  # research may read the index
    finally:
        kb.close()
    return run.run(rows, str(folder), ["bm25", "hybrid"])


def table(name: str, report: dict) -> str:
    lines = [f"**{name}** ({report['chunks']:,} passages)", "",
             "| kind | n | BM25 MRR@10 | hybrid MRR@10 | hybrid R@1 | called weak |", "|---|---|---|---|---|---|"]
    for kind in ("all", *sets.KINDS):
        row = report["summary"].get(kind)
        if row:
            lines.append(f"| {kind} | {row['n']} | {row['bm25 mrr@10']:.3f} | {row['hybrid mrr@10']:.3f} | "
                         f"{row['hybrid r@1']:.3f} | {row['weak']:.0%} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(prog="python research/exact_words/report.py")
    parser.add_argument("names", nargs="*", help="some of: " + ", ".join(COLLECTIONS))
    parser.add_argument("--write-doc", action="store_true")
    args = parser.parse_args()
    started = doc_sections.start()
    parts = []
    for name in args.names or list(COLLECTIONS):
        folder = COLLECTIONS[name]
        if name != "mixed" and not folder.is_dir():
            print(f"{name}: skipped, {folder} is not here", file=sys.stderr)
            continue
        parts.append(table(name, figures(name, folder)))
        print(parts[-1] + "\n", flush=True)
    if args.write_doc and parts:
        doc_sections.write_section(REPO / "docs" / "evaluation.md", KEY, "\n\n".join(parts), started,
                                   doc_sections.load_now())
    return 0


if __name__ == "__main__":
    sys.exit(main())
