"""Navigation pages: a PDF's contents pages and back-of-book index pages.

Such a page holds the words of every section it lists ("1.6 An introductory session . . . 4",
"UseMethod, 78, 89, 276"), so it matches most keyword queries without answering any. It is kept
(a person may want the index), flagged when the document is read (``chunks.navigation``) and
ranked below the pages it points to (``core/search/navigation``).

A line points to pages when it ends in a page number after a dot leader (a contents line, an
index entry of a Texinfo manual) or in a list of page numbers after a comma (an index entry of
a LaTeX book, "Stetigkeit, 9–11", or its continuation line). A page is a navigation page when at least
``MIN_LINES`` of its lines point to pages and they are at least ``SHARE`` of its lines; an
index's letter headings ("U", "V") are not counted either way. A page of R output or a table
seldom ends its lines in ", 12" or ". . . 12": the seven R manuals' contents and index pages
are all found this way and none of their other pages; so are the contents and index pages of a
German textbook (GeoTopo), but for a contents page of two lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .chunk import Chunk

MIN_LINES = 3
SHARE = 0.5
_LEADER = re.compile(r"(?:\.\s?){3,}\s*(?:\d{1,5}|[ivxlcdm]{1,8})(?:\s*,\s*\d{1,5})*\s*$", re.IGNORECASE)
# a page reference in a list: a number, a range (9–11) or a roman number (a preface's page)
_REF = r"(?:\d{1,5}(?:[–-]\d{1,5})?|[ivxlc]{1,6})"
_LIST = re.compile(rf"(?:[^\W\d_].*,|^)\s*{_REF}(?:\s*,\s*{_REF})*,?\s*$")


def points_to_pages(line: str) -> bool:
    return bool(_LEADER.search(line) or ("," in line and _LIST.search(line)))


def is_navigation(text: str) -> bool:
    """Whether a page's text is a contents or index page (see the module's rule)."""
    lines = [line.strip() for line in text.split("\n")]
    lines = [line for line in lines if len(line) > 1 and not line.startswith("# ")]
    pointing = sum(1 for line in lines if points_to_pages(line))
    return pointing >= MIN_LINES and pointing >= SHARE * len(lines)


def seqs(text: str, chunks: Iterable[Chunk]) -> set[int]:
    """The ``seq`` of each chunk of a PDF's indexed ``text`` that lies mostly on navigation
    pages: each page is judged whole (a chunk may hold a part of a page, or several short
    pages), a chunk by the share of its lines on such pages."""
    lines = text.split("\n")
    page_of: list[int] = []
    pages: list[list[str]] = [[]]
    for line in lines:
        if line.startswith("# "):  # (a PDF's only headings are its pages: its text is escaped)
            pages.append([])
        pages[-1].append(line)
        page_of.append(len(pages) - 1)
    navigation = {i for i, page in enumerate(pages) if i and is_navigation("\n".join(page))}
    if not navigation:
        return set()
    out: set[int] = set()
    for chunk in chunks:
        span = range(max(chunk.start_line, 1) - 1, min(chunk.end_line, len(lines)))
        filled = [n for n in span if lines[n].strip() and not lines[n].startswith("# ")]
        if filled and sum(page_of[n] in navigation for n in filled) * 2 >= len(filled):
            out.add(chunk.seq)
    return out
