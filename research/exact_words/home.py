"""A home of several collections and languages, made of links to the shared corpora (read in
place, nothing copied): the Obsidian help vault with a sample of TIL notes and the shared PDFs
and Word files beside it, German and Spanish tldr pages, and a sample of the English tldr pages.

    python research/exact_words/home.py HOME [CORPORA]

CORPORA is the shared corpora folder (``../shared/corpora`` from the project's root by default).

The links lead outside the folder, so it is indexed with ``follow_external_links`` on
(``PMS_TUI_FOLLOW_EXTERNAL_LINKS=true``, as ``run.py`` sets it). The samples are seeded, so
the same folder is made every time.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

CORPORA = Path("../shared/corpora")
SEED = 42
# (place in the home, corpus folder, how many of its notes; None: all of them)
PARTS = (
    ("vault", "markdown/obsidian-help", None),
    ("vault/til", "markdown/jbranchaud-til", 302),
    ("vault/documents/pdf", "documents/py-pdf-sample-files", None),
    ("vault/documents/word", "documents/python-docx-test-files", None),
    ("i18n/de", "markdown/tldr-pages-i18n/pages.de", 100),
    ("i18n/es", "markdown/tldr-pages-i18n/pages.es", 100),
    ("tldr", "markdown/tldr-pages-en", 1000),
)
KEPT = (".md", ".pdf", ".docx")


def files(folder: Path) -> list[str]:
    """The notes and documents under ``folder``, relative and sorted (the top-level README of
    the TIL collection, an index of every title, left out)."""
    found = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")
                   if p.is_file() and p.suffix.lower() in KEPT)
    return [f for f in found if f != "README.md"]


def make(home: Path, corpora: Path = CORPORA) -> Path:
    rng = random.Random(SEED)
    for place, source, count in PARTS:
        folder = (corpora / source).resolve()
        chosen = files(folder)
        if count is not None:
            chosen = sorted(rng.sample(chosen, min(count, len(chosen))))
        for rel in chosen:
            link = home / place / rel
            link.parent.mkdir(parents=True, exist_ok=True)
            if not link.is_symlink():
                link.symlink_to(folder / rel)
    return home


if __name__ == "__main__":
    print(make(Path(sys.argv[1]), Path(sys.argv[2]) if len(sys.argv) > 2 else CORPORA))
