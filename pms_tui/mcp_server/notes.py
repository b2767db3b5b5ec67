"""Notes read for an agent: only notes that are in the index, only from inside their
collection's folder, text returned as data with control characters made inert.

A note is named by its id (``collection/relpath``, what search hits carry), by a path
inside a collection's folder (absolute, or relative without the collection when only one
collection holds it), or by its resource URI (``pms://note/...``). ``../``, a symlink whose
target left the folder, a note deleted since and a path the index never held all get one
sentence, never text.
"""

from __future__ import annotations

import fnmatch

from ..core.errors import UsageError
from ..core.kb import NoteRef
from ..core.safe_text import one_line
from . import budget
from .inert import inert

MAX_MULTI_BYTES = 1_000_000
DEFAULT_MULTI_BYTES = 60_000
MAX_MULTI_NOTES = 100


def find(kb, ref: object) -> NoteRef:
    """The indexed note ``ref`` names (the engine's one resolver, which takes a resource URI
    too), or UsageError with the reason."""
    return kb.notes.note(ref)


def get_note(kb, ref: object, start_line: int | None = None, end_line: int | None = None,
             max_chars: int | None = budget.DEFAULT_PAGE_CHARS, start_char: int = 0) -> dict:
    """One note, whole or lines ``start_line``..``end_line``, in pages (``KnowledgeBase.notes.read``,
    which names where the next page starts) whose whole result, its metadata with the text,
    takes at most ``max_chars`` as compact JSON (``budget.structured_size``: what Claude Code
    hands the model). Joined, the pages are the file's text."""
    room = None if max_chars is None else max(budget.MIN_TEXT_ROOM, max_chars - budget.METADATA_ROOM)
    measured = False
    while True:
        got = kb.notes.read(ref, start_line, end_line, room, start_char=start_char, measure=budget.text_size)
        result = _note_json(kb, got)
        if max_chars is None or room is None:
            return result
        over = budget.structured_size(result) - max_chars
        if over > 0 and room > budget.MIN_TEXT_ROOM:
            room = max(budget.MIN_TEXT_ROOM, room - over)  # a long frontmatter: less room for the text
        elif got.truncated and not measured and -over > max(budget.METADATA_SLACK, max_chars // 20):
            # the metadata measured: the page may hold much more than the first guess gave it
            # (a few hundred characters left unused are not worth reading the note again)
            room += -over - budget.METADATA_SLACK
        else:
            return result
        measured = True


def _note_json(kb, got) -> dict:
    """get's answer for the page ``got`` (``KnowledgeBase.notes.read``): the engine's ``NotePage.to_json``."""
    return inert(got.to_json(kb))


def multi_get(kb, refs: list | None, pattern: str | None, max_bytes: int) -> dict:
    """Several whole notes, by list or by a glob over note ids, within ``max_bytes`` of the
    whole answer (``budget.fit_notes``)."""
    whole: list[dict] = []
    oversized: list[dict] = []
    errors: list[dict] = []
    capped = ""
    if pattern is not None:
        names = [n for n in kb.notes.note_names() if fnmatch.fnmatchcase(n, pattern)]
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
