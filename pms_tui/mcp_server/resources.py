"""Notes as MCP resources: listed a page at a time, read by URI through the same checks as
the get tool (only indexed notes, only inside their collection's folder)."""

from __future__ import annotations

from . import budget
from ..core.errors import UsageError
from ..core.results import note_uri

PAGE = 500


def page(kb, cursor: str | None) -> tuple[list[tuple[str, str]], str | None]:
    """(uri, id) of one page of notes, and the next page's cursor (None at the end)."""
    names = kb.notes.note_names()
    start = 0
    if cursor is not None:
        if not (cursor.isascii() and cursor.isdigit() and 0 < int(cursor) < len(names)):
            raise UsageError("That cursor is not one this server gave (or the notes changed since); "
                             "list the resources again without a cursor.")
        start = int(cursor)
    out = []
    for name in names[start:start + PAGE]:
        collection, _, rel = name.partition("/")
        out.append((note_uri(collection, rel), name))
    following = start + PAGE
    return out, (str(following) if following < len(names) else None)


def read(kb, uri: str) -> str:
    """The note's whole text, as the file has it (``KnowledgeBase.notes.read``; what get's pages join to)."""
    return budget.safe_page(kb.notes.read(uri).text)
