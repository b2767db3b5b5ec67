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
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.errors import PmsError, UsageError
from ..core.kb import is_document_name, page_lines, page_of_line, read_note, split_frontmatter
from ..core.safe_text import one_line, safe_text
from . import budget
from .uris import id_from_uri, note_uri

if TYPE_CHECKING:
    from ..core.kb import Collection

MAX_REF_CHARS = 4096
_PAGE_REF = re.compile(r"(.+\.pdf)#page=(\d{1,6})", re.IGNORECASE)
MAX_MULTI_BYTES = 1_000_000
DEFAULT_MULTI_BYTES = 60_000
MAX_MULTI_NOTES = 100


class NoteNotFound(UsageError):
    """A name that is not a note of the index, or a note that cannot be read."""


@dataclass(frozen=True)
class IndexedNote:
    collection: Collection
    relpath: str
    chunks: list  # its indexed chunks (Hit), in order

    @property
    def id(self) -> str:
        return f"{self.collection.name}/{self.relpath}"

    @property
    def title(self) -> str:
        return self.chunks[0].title if self.chunks else Path(self.relpath).stem


def find(kb, ref: object) -> IndexedNote:
    """The indexed note ``ref`` names, or NoteNotFound with the reason."""
    if not isinstance(ref, str) or not ref.strip():
        raise NoteNotFound("Name a note by its id (collection/path, as search hits give it) or its path.")
    if len(ref) > MAX_REF_CHARS or "\x00" in ref:
        raise NoteNotFound("That is not a note name: too long, or it holds a NUL character.")
    ref = ref.strip()
    if ref.startswith("pms://"):
        ref = id_from_uri(ref)
    shown = one_line(ref)[:200]
    parts = ref.replace("\\", "/").split("/")
    if ".." in parts:
        raise NoteNotFound(f"{shown} leaves the indexed notes ('..' is not allowed); use a note id from search.")
    collections = kb.collections.list()
    if not collections:
        raise NoteNotFound("The index has no collections yet.")
    if ref.startswith("~"):
        ref = os.path.expanduser(ref)
    if os.path.isabs(ref):
        found = kb.find_note(ref)  # resolved, so a symlink out of the folder matches no collection
        candidates = [found] if found else []
    else:
        by_name = {c.name: c for c in collections}
        head, _, rest = ref.partition("/")
        candidates = [(by_name[head], rest)] if head in by_name and rest else []
        candidates += [(c, ref) for c in collections]  # a path inside a collection's folder
    for collection, rel in candidates:
        chunks = kb.chunks_of(collection, rel) if rel else []
        if chunks:
            return IndexedNote(collection, rel, chunks)
    raise NoteNotFound(f"{shown} is not a note in the index (deleted, never synced, or outside every collection).")


def read_text(kb, note: IndexedNote) -> str:
    """The note's text as on disk now, if its file is still inside its collection's folder; a
    PDF's or Word file's text as the index holds it (documents are never read as notes)."""
    if is_document_name(note.relpath):
        return kb.document_text(note.collection, note.relpath)
    root = note.collection.path.resolve()
    path = note.collection.path / note.relpath
    real = Path(os.path.realpath(path))
    if not (kb.settings.follow_external_links or root in real.parents):
        raise NoteNotFound(f"{note.id} now leads outside its collection's folder; it is not read.")
    try:
        data = read_note(real)
    except PmsError as exc:
        if not path.exists():
            raise NoteNotFound(f"{note.id} was deleted from disk; the next sync drops it from the index.") from None
        raise NoteNotFound(f"{note.id} cannot be read: {exc}") from None
    return data.text.replace("\r\n", "\n").replace("\r", "\n")


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
    if isinstance(ref, str) and (m := _PAGE_REF.fullmatch(ref)) and start_line is None:
        ref, page = m.group(1), int(m.group(2))  # Obsidian's link to a PDF's page
    note = find(kb, ref)
    text = read_text(kb, note)
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
    first = max(1, start_line or 1)
    last = min(total, end_line if end_line is not None else total)
    if start_line is not None and end_line is not None and end_line < start_line:
        raise UsageError(f"end_line ({end_line}) is before start_line ({start_line}).")
    if first > max(total, 1):
        raise UsageError(f"{note.id} has {total} lines; start_line {first} is past its end.")
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
