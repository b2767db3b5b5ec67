"""Where a hit is, as the app names it: a note's file lines, a document's page.

A PDF's indexed text is numbered in lines of the engine's own making, which mean nothing to a
person holding the PDF; its passages sit under the page heading the engine gives each page
(``page 54``: the physical page today; printed page labels may come later, here alone)."""

from __future__ import annotations

import re

from pms_tui.core.kb import is_document_name
from pms_tui.core.results import Hit
from pms_tui.core.safe_text import one_line

_PAGE = re.compile(r"page (\d{1,6})")  # the engine's page heading (core.indexing.documents.page_heading)


def page_number(heading: str) -> int | None:
    """The page a heading of a PDF's indexed text names (``page 54`` -> 54), else None."""
    found = _PAGE.fullmatch(heading)
    return int(found.group(1)) if found else None


def page_of(hit: Hit) -> int | None:
    """The page of a PDF's passage, from the page heading the engine put it under (None for a
    note, a Word file, or a passage before the first page)."""
    if not is_document_name(hit.relpath) or not hit.heading_path:
        return None
    return page_number(hit.heading_path[0])


def page_label(page: int) -> str:
    """How a page is named to a person (the physical page number the engine gives)."""
    return f"page {page}"


def place(hit: Hit, span: bool = False) -> str:
    """``collection/path:line`` (``span``: ``:start-end``) of a note's passage; a document's
    path alone, followed by its page when it has one (``collection/file.pdf · page 54``)."""
    where = f"{hit.collection}/{hit.relpath}"
    if is_document_name(hit.relpath):
        page = page_of(hit)
        return one_line(where if page is None else f"{where} · {page_label(page)}")
    return one_line(f"{where}:{hit.start_line}-{hit.end_line}" if span else f"{where}:{hit.start_line}")
