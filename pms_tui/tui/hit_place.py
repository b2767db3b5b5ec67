"""Where a hit is, as the app names it: a note's file lines, a document's page.

A PDF's indexed text is numbered in lines of the engine's own making, which mean nothing to a
person holding the PDF; its passages sit under the page heading the engine gives each page
(``page 54``, or ``page 51 (PDF page 54)`` where the PDF prints its own numbers), which is read
by the engine's page format (``kb.page_number``), never parsed here."""

from __future__ import annotations

from pms_tui.core.kb import is_document_name, page_number
from pms_tui.core.results import Hit
from pms_tui.core.safe_text import one_line

__all__ = ["page_number", "page_of", "page_label", "place", "page_crumb"]


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
    where = hit.id
    if is_document_name(hit.relpath):
        return one_line(where if page_of(hit) is None else f"{where} · {hit.heading_path[0]}")
    return one_line(f"{where}:{hit.start_line}-{hit.end_line}" if span else f"{where}:{hit.start_line}")


def page_crumb(hit: Hit) -> list[str]:
    """The headings a hit's breadcrumb shows after its place: a PDF passage's page heading is
    in ``place`` already."""
    return hit.heading_path[1:] if page_of(hit) is not None else list(hit.heading_path)
