"""The engine's one policy for what a request may ask and which note it names, and its one
read of a note's file (``kb.notes``). Every front end (the app, the CLI, the MCP server) calls
these, so the same question gets the same answer, or the same sentence; what a request may ask
(k, mode, the query, a note's name) is ``search.limits``.

A note is named by ``collection/relpath`` (what hits carry), by a path (absolute, relative to
the working folder, or relative to a collection's folder), or by its name as a wikilink names
it (``bravo`` for ``[[bravo]]``: its file name or an alias), or by its URI
(``pms://note/COLLECTION/PATH``, ``results.note_uri``), each optionally followed by ``:LINE`` or
``:START-END``, or by a wikilink as written in a note (``[[bravo]]``, ``[[bravo|the alias shown]]``,
``[[bravo#Heading]]``, ``![[bravo#^block]]``: the heading's section or the block's line), or a
PDF's physical page (``x.pdf#page=3``, ``[[x.pdf#page=3]]``: that page's lines). A note's file is read only from inside its collection's folder:
a symlink swapped in after indexing that leads outside is refused with one sentence.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ..config import Settings
from ..errors import CollectionError, PmsError, UsageError
from ..markdown import file_name
from ..indexing.collections import Collection, Collections
from ..indexing.documents import text_of_chunks
from ..indexing.pages import lines_of as page_lines, of_line as page_of_line, split_ref as page_ref
from ..indexing.frontmatter import split_frontmatter
from ..indexing.notes import is_document_name, read_note
from ..paging import NotePage, file_lines, page, without_ending
from ..results import Hit, id_of_uri, no_collections_notice, note_id
from ..safe_text import one_line
from ..search.hits import hit_from_row
from ..search.limits import check_k, check_mode, check_query, check_ref_length
from ..store import Store
from ..store import chunks as chunk_rows
from ..store import documents as document_rows
from ..store import links as link_rows

_LINES = re.compile(r"(.+?):(\d{1,9})(?:-(\d{1,9}))?")
# [[target#anchor|label]] as a note writes it (with ! for an embed): the target and the anchor
_WIKILINK = re.compile(r"!?\[\[([^\[\]|#]*)(?:#([^\[\]|]*))?(?:\|[^\[\]]*)?\]\]")


@dataclass(frozen=True)
class NoteRef:
    """An indexed note a request named, with the lines it asked for (None: the whole note)."""

    collection: Collection
    relpath: str
    doc_id: int
    title: str
    start_line: int | None = None
    end_line: int | None = None

    @property
    def id(self) -> str:
        return note_id(self.collection.name, self.relpath)

    @property
    def file(self) -> Path:
        return self.collection.path / self.relpath


def check_span(note_id: str, total: int, start: int | None, end: int | None) -> tuple[int, int]:
    """(first, last) file lines of ``start``..``end`` in a note of ``total`` lines; UsageError
    for a span that is backwards or starts past the note's end."""
    if start is not None and start < 1:
        raise UsageError(f"Line numbers start at 1, not {start}.")
    if start is not None and end is not None and end < start:
        raise UsageError(f"The last line ({end}) is before the first ({start}).")
    first = start or 1
    if first > max(total, 1):
        raise UsageError(f"{one_line(note_id)[:200]} has {total} lines; line {first} is past its end.")
    return first, min(total, end if end is not None else total)


class Notes:
    """``settings``: which files may be read, and how much of one; ``store``: the index the
    notes are found in; ``collections``: the folders they live in."""

    def __init__(self, settings: Settings, store: Store, collections: Collections) -> None:
        self._settings = settings
        self._store = store
        self._collections = collections

    # -- what a request may ask --------------------------------------------------------------
    def check_request(self, query: object, k: int = 10, mode: str = "hybrid",
                      collections: Sequence[str] | None = None) -> None:
        """UsageError, with the sentence every front end shows, when a search (or an explain)
        asks what cannot be answered: an empty query, k outside 1..MAX_K, an unknown mode or
        collection, a query longer than any page pasted into a search bar. (A pasted page is not
        refused: the query parser cuts it, and it is ranked by its most distinctive words.)"""
        check_query(query)
        check_k(k)
        check_mode(mode)
        self.check_collections(collections)

    def check_collections(self, names: Sequence[str] | None) -> None:
        """UsageError naming the first of ``names`` that is not a collection (the sentence of
        :meth:`Collections.get`, the one place that says it)."""
        for name in names or ():
            try:
                self._collections.get(name)
            except CollectionError as exc:
                raise UsageError(str(exc)) from None

    # -- which note a request names ----------------------------------------------------------
    def note(self, ref: object) -> NoteRef:
        """The indexed note ``ref`` names (see the module's doc), with its lines if given;
        UsageError with the reason when it names none, several, or one outside every folder."""
        if not isinstance(ref, str) or not ref.strip():
            raise UsageError("Name a note: collection/path, a file path, or a note's name.")
        check_ref_length(ref)
        ref = ref.strip()
        if ref.startswith("pms://"):
            ref = id_of_uri(ref)
        if (link := _WIKILINK.fullmatch(ref)) is not None:
            return self._linked(link.group(1).strip(), (link.group(2) or "").strip())
        if (named := page_ref(ref)) is not None and not Path(ref).exists():
            return self._on_page(*named)
        start = end = None
        if (m := _LINES.fullmatch(ref)) and not Path(ref).exists():
            ref, start = m.group(1), int(m.group(2))
            end = int(m.group(3)) if m.group(3) else None
            if end is not None and end < start:
                raise UsageError(f"The last line ({end}) is before the first ({start}).")
        found = self._find(ref)
        return NoteRef(*found, start_line=start, end_line=end)

    def _linked(self, target: str, anchor: str) -> NoteRef:
        """The note a wikilink names, spanning its heading's section, its block's line or its
        page (``[[x.pdf#page=5]]``); UsageError when the note has no such heading, block or page."""
        from ..indexing.links import anchor_key

        if not target:
            raise UsageError(f"[[#{one_line(anchor)[:200]}]] names a heading of the note it is written in; "
                             f"name the note too: [[Note#{one_line(anchor)[:200]}]].")
        if anchor and (named := page_ref(f"{target}#{anchor}")) is not None:
            return self._on_page(named[0], named[1])
        found = self._find(target)
        if not anchor:
            return NoteRef(*found)
        key = anchor if anchor.startswith("^") else anchor_key(anchor)
        line = link_rows.anchor_line(self._store.conn, found[2], key)
        shown = one_line(anchor)[:200]
        if line is None:
            what = "block" if anchor.startswith("^") else "heading"
            raise UsageError(f"{note_id(found[0].name, found[1])} has no {what} {shown!r}.")
        note = NoteRef(*found, start_line=line, end_line=line)
        if anchor.startswith("^") or is_document_name(note.relpath):
            return note
        from ..writes.edits import sections  # the writes' sections: one rule of where a heading's section ends

        lines = self.note_text(note).split("\n")
        end = next((s.end for s in sections(lines) if s.heading == line - 1), line)
        return replace(note, end_line=max(line, min(end, len(lines))))

    def _on_page(self, ref: str, number: int) -> NoteRef:
        """The lines of a PDF's physical page ``number`` (``x.pdf#page=N``: the one reading of a
        page reference, for every front end); UsageError when it has no such page with text."""
        note = NoteRef(*self._find(ref))
        span = page_lines(self._file_text(note), number) if is_document_name(note.relpath) else None
        if span is None:
            raise UsageError(f"{note.id} has no page {number} with text.")
        return replace(note, start_line=span[0], end_line=span[1])

    def _find(self, ref: str) -> tuple[Collection, str, int, str]:
        shown = one_line(ref)[:200]
        if ".." in ref.replace("\\", "/").split("/"):
            raise UsageError(f"{shown} leaves the indexed notes ('..' is not allowed); name the note from its collection.")
        collections = self._collections.list()
        if not collections:
            raise UsageError(no_collections_notice())
        conn = self._store.conn
        path = Path(ref).expanduser()
        candidates: list[tuple[Collection, str]] = []
        on_disk = path.is_absolute() or path.exists()
        if on_disk:  # a file: resolved, so a symlink out of every folder matches no collection
            real = path.resolve()
            for col in collections:
                try:
                    candidates.append((col, real.relative_to(col.path.resolve()).as_posix()))
                except ValueError:
                    pass
            if path.is_absolute() and not candidates:
                if not path.exists():
                    raise UsageError(f"{shown} does not exist.")
                raise UsageError(f"{shown} is not inside any collection's folder.")
        if not path.is_absolute():
            head, _, rest = ref.partition("/")
            candidates += [(c, rest) for c in collections if c.name == head and rest]
            candidates += [(c, ref) for c in collections]  # a path inside a collection's folder
        for col, rel in candidates:
            row = link_rows.document(conn, col.id, rel)
            if row is not None:
                return col, rel, row[0], row[1]
        for col, rel in candidates:
            if (col.path / rel).is_file():
                shown = note_id(col.name, one_line(rel)[:200])
                real = Path(os.path.realpath(col.path / rel))
                if not (self._settings.follow_external_links or col.path.resolve() in real.parents):
                    raise UsageError(f"{shown} leads outside its collection's folder; it is not read.")
                raise UsageError(f"{shown} is not indexed yet; run `pms-tui sync`.")
        name = file_name(ref)
        named = link_rows.documents_named(conn, name)
        if "/" in ref:  # a folder/name
            tail = ref.lower().removesuffix(".md") + ".md"
            named = [n for n in named if f"{n[1]}/{n[2]}".lower().endswith(tail) or n[2].lower().endswith(tail)]
        if len(named) > 1:
            choices = ", ".join(note_id(c, p) for _, c, p in named[:5])
            raise UsageError(f"{shown} names {len(named)} notes ({choices}); give one as collection/path.")
        if named:
            doc_id, collection_name, rel = named[0]
            col = self._collections.get(collection_name)
            row = link_rows.document(conn, col.id, rel)
            return col, rel, doc_id, row[1] if row else Path(rel).stem
        raise UsageError(f"{shown} does not exist: no indexed note has that path or name.")

    # -- reading a note's file ---------------------------------------------------------------
    def note_text(self, note: NoteRef, max_bytes: int | None = None) -> str:
        """The note's text as on disk now (newlines made ``\\n``), read only from inside its
        collection's folder; a PDF's or Word file's text as the index holds it. UsageError when
        the file left the folder (a symlink swapped in), was deleted, or cannot be read. Notes
        up to ``max_bytes`` are read (default: ``max_note_mb``, what is indexed)."""
        return self._file_text(note, max_bytes).replace("\r\n", "\n").replace("\r", "\n")

    def _file_text(self, note: NoteRef, max_bytes: int | None = None) -> str:
        """:meth:`note_text` with the file's own line endings."""
        if max_bytes is None:
            max_bytes = self._settings.max_note_bytes
        if is_document_name(note.relpath):
            return text_of_chunks([(row.start_line, row.body) for row in chunk_rows.of_document(
                self._store.conn, note.collection.id, note.relpath)])
        root = note.collection.path.resolve()
        real = Path(os.path.realpath(note.file))
        if not (self._settings.follow_external_links or root in real.parents):
            raise UsageError(f"{note.id} now leads outside its collection's folder; it is not read.")
        try:
            data = read_note(real, max_bytes)
        except PmsError as exc:
            if not note.file.exists():
                raise UsageError(f"{note.id} was deleted from disk; the next sync drops it from the index.") from None
            raise UsageError(f"{note.id} cannot be read: {exc}") from None
        return data.text

    def note_lines(self, note: NoteRef) -> tuple[list[str], int, int]:
        """The note's lines read as :meth:`note_text` does, with the first and last of the span
        it names (the whole note when it names none); UsageError for a span past its end."""
        lines = self.note_text(note).split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        first, last = check_span(note.id, len(lines), note.start_line, note.end_line)
        return lines, first, last

    def read(self, ref: object, start: int | None = None, end: int | None = None, max_chars: int | None = None,
             *, start_char: int = 0, measure: Callable[[str], int] = len) -> NotePage:
        """Lines ``start``..``end`` of the note ``ref`` names (1-based, inclusive; the lines
        named with it, ``note.md:12-20``, else the whole note), the first from its character
        ``start_char``, in a page of at most ``max_chars`` as ``measure`` counts them (None:
        all of it); the page says where the next one starts. Each line comes with its own line
        ending, so the pages joined are the file's text exactly. ``x.pdf#page=3`` names a
        PDF's page. UsageError (one sentence) for a span past the note's end."""
        note = ref if isinstance(ref, NoteRef) else self.note(ref)
        text = self._file_text(note)
        document = is_document_name(note.relpath)
        lines = file_lines(text)
        if start is None and end is None:
            start, end = note.start_line, note.end_line
        first, last = check_span(note.id, len(lines), start, end)
        if start_char:
            length = len(without_ending(lines[first - 1])) if first <= len(lines) else 0
            if start_char > length:
                raise UsageError(f"Line {first} of {note.id} has {length:,} characters; "
                                 f"start_char {start_char:,} is past its end.")
        got = page(note.id, lines, first, last, start_char, max_chars, measure)
        more: dict = {"note": note}
        if document:
            at = page_of_line(text, first)
            if at is not None:
                more["pages"] = (at, page_of_line(text, got.last) or at)
        else:
            more["frontmatter"] = split_frontmatter(text)[0]
        return replace(got, **more)

    def place(self, ref: object) -> tuple[Collection, str]:
        """(collection, relative path) of the note ``ref`` names (where a write goes)."""
        found = self.note(ref)
        return found.collection, found.relpath

    def resolve_note(self, note: str) -> tuple[int, Collection, str]:
        """(document id, collection, relative path) of the indexed note ``note`` names (as
        :meth:`note` takes it); UsageError when it names none or several."""
        found = self.note(note)
        return found.doc_id, found.collection, found.relpath

    def note_names(self) -> list[str]:
        """``collection/relpath`` of every indexed note, sorted (what ``explain`` takes)."""
        return document_rows.note_names(self._store.conn)

    def chunks_of(self, collection: str | Collection, rel: str) -> list[Hit]:
        """Every chunk of one indexed note, in order."""
        col = self._collections.get(collection) if isinstance(collection, str) else collection
        return [hit_from_row(row) for row in chunk_rows.of_document(self._store.conn, col.id, rel)]
