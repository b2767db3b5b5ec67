"""Notes read for an agent: only notes that are in the index, only from inside their
collection's folder, text returned as data with control characters made inert.

A note is named by its id (``collection/relpath``, what search hits carry), by a path
inside a collection's folder (absolute, or relative without the collection when only one
collection holds it), or by its resource URI (``pms://note/...``). ``../``, a symlink whose
target left the folder, a note deleted since and a path the index never held all get one
sentence, never text.
"""

from __future__ import annotations

import datetime as _dt
import fnmatch

from ..core.errors import UsageError
from ..core.results import note_uri
from ..core.kb import NoteRef, check_span, is_document_name, page_lines, page_of_line, page_ref, split_frontmatter
from ..core.safe_text import one_line, safe_text
from . import budget

MAX_MULTI_BYTES = 1_000_000
DEFAULT_MULTI_BYTES = 60_000
MAX_MULTI_NOTES = 100


def find(kb, ref: object) -> NoteRef:
    """The indexed note ``ref`` names (the engine's one resolver, which takes a resource URI
    too), or UsageError with the reason."""
    return kb.note(ref)


def frontmatter_json(value):
    """The frontmatter as JSON data: dates as ISO text, strings made inert."""
    if isinstance(value, dict):
        return {safe_text(str(k), keep=""): frontmatter_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [frontmatter_json(v) for v in value]
    if isinstance(value, (_dt.date, _dt.datetime, _dt.time)):
        return value.isoformat()
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return safe_text(value)


def get_note(kb, ref: object, start_line: int | None = None, end_line: int | None = None,
             max_chars: int = budget.DEFAULT_PAGE_CHARS, start_char: int = 0) -> dict:
    """One note, whole or lines ``start_line``..``end_line`` (1-based, inclusive, file lines as
    search hits give them), the first line from its character ``start_char``, in pages of at
    most ``max_chars`` (then ``next_start_line``, and ``next_start_char`` inside a line longer
    than a page, say where to go on)."""
    page = None
    if isinstance(ref, str) and (named := page_ref(ref)) and start_line is None:
        ref, page = named  # Obsidian's link to a PDF's page
    note = find(kb, ref)
    text = kb.note_text(note)
    if page is not None:
        span = page_lines(text, page) if is_document_name(note.relpath) else None
        if span is None:
            raise UsageError(f"{note.id} has no page {page} with text.")
        start_line, end_line = span
    meta, _, _ = split_frontmatter(text)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    total = len(lines)
    if start_line is None and end_line is None:  # lines named with the note (note.md:12-20)
        start_line, end_line = note.start_line, note.end_line
    first, last = check_span(note.id, total, start_line, end_line)
    if start_char and (first > total or start_char > len(lines[first - 1])):
        raise UsageError(f"Line {first} of {note.id} has {len(lines[first - 1]) if first <= total else 0:,} characters; "
                         f"start_char {start_char:,} is past its end.")
    piece = budget.page(lines, first, last, start_char, max_chars)
    shown_last = piece.last_line
    result = {
        "id": note.id, "uri": note_uri(note.collection.name, note.relpath),
        "collection": note.collection.name, "path": one_line(note.relpath),
        "file": one_line(str(note.collection.path / note.relpath)), "title": one_line(note.title),
        "frontmatter": frontmatter_json(meta), "lines": [first, shown_last], "total_lines": total,
        "text": safe_text(piece.text),
    }
    if not is_document_name(note.relpath):  # what an edit names (edit_note, move_note, delete_note)
        result["version"] = kb.write.version(note.id)
    if is_document_name(note.relpath):
        result["frontmatter"] = {}
        page = page_of_line(text, first)
        if page is not None:  # a PDF: the page of the first line given, and of the last
            result["pages"] = [page, page_of_line(text, shown_last) or page]
    if start_char:
        result["start_char"] = start_char
    if piece.next_line is not None:
        result["truncated"] = True
        result["next_start_line"] = piece.next_line
    if piece.next_char is not None:
        result["next_start_char"] = piece.next_char
    if piece.cut:
        result["cut"] = piece.cut
    return result


def multi_get(kb, refs: list | None, pattern: str | None, max_bytes: int) -> dict:
    """Several whole notes, by list or by a glob over note ids, within ``max_bytes`` of the
    whole answer (``budget.fit_notes``)."""
    whole: list[dict] = []
    oversized: list[dict] = []
    errors: list[dict] = []
    capped = ""
    if pattern is not None:
        names = [n for n in kb.note_names() if fnmatch.fnmatchcase(n, pattern)]
        if not names:
            raise UsageError(f"No indexed note id matches {one_line(pattern)[:200]!r} (ids look like collection/folder/note.md).")
        refs = names
    refs = list(refs or [])
    if len(refs) > MAX_MULTI_NOTES:
        capped = f"{len(refs)} notes match; the first {MAX_MULTI_NOTES} are taken."
        refs = refs[:MAX_MULTI_NOTES]
    for ref in refs:
        try:
            note = get_note(kb, ref, max_chars=max_bytes)  # a longer text cannot fit in max_bytes
        except UsageError as exc:
            errors.append({"ref": one_line(ref)[:200] if isinstance(ref, str) else "", "error": str(exc)})
            continue
        (oversized if note.get("truncated") or note.get("cut") else whole).append(note)
    return budget.fit_notes(whole, oversized, errors, max_bytes, {"capped": capped} if capped else {})
