"""``kb.write``: every write to a note, for the MCP tools, the CLI and the API alike.

Each write: the guard says whether it may be made (``guard``); an edit names the version of
the note it was made from (``version`` gives it, the SHA-256 of the note's bytes, as ``get``
returns it) and is refused, with the version now and what differs, when the note changed
since (``replace``); the new bytes keep the note's encoding, BOM and line endings
(``shape``); the write is journaled with the bytes before (``journal``: ``history``, ``undo``);
the note is indexed in the same call, its text at once and its vectors queued (the caller
drains the queue: the MCP server behind its answer, the CLI before it exits), and marked as
changed by its client (``changed:agent``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from ..clip.leftovers import remove_leftovers
from ..clip.names import numbered, slugify
from ..clip.yaml_out import dump
from ..config import Settings
from ..errors import PmsError, UsageError
from ..results import note_id
from ..indexing.collections import Collection, Collections
from ..indexing.notes import is_document_name
from ..safe_text import one_line, safe_text
from ..store import Store
from ..store import agent_changes
from . import edits, guard, link_rewrite, properties, shape, trash
from .journal import Entry, Journal
from .replace import Conflict, VersionConflict, create, diff as _diff, replace_if
from .properties import check_key as property_name
from .result import WriteResult
from .since import parse_since

MAX_TITLE_CHARS = 300
MAX_LISTED = 1000  # writes one history or recent lists at most
# index(collection name, paths) -> done: the notes' text indexed at once (KnowledgeBase.sync);
# False when another process holds the index and it was not waited for
Indexer = Callable[[str, set[str]], bool]
# note(ref) -> (collection, relpath): the engine's one resolver of a note a request names
Resolver = Callable[[object], tuple[Collection, str]]


class NoteWriter:
    def __init__(self, home: Path, settings: Settings, store: Store, collections: Collections,
                 resolve: Resolver, index: Indexer):
        self.home = home
        self.settings = settings
        self._store = store
        self._collections = collections
        self._resolve = resolve
        self._index = index
        self.journal = Journal(home)
        self._rate = guard.RateLimit(settings)

    # -- versions --------------------------------------------------------------------------
    def version(self, note: object) -> str:
        """The version of the note ``note`` names (as ``kb.notes.note`` takes it): the SHA-256 of its
        bytes on disk now, what an edit names. Remembered, so a refused edit can show what
        changed since."""
        col, rel = self._resolve(note)
        return self.seen(self._read(col, rel, inside=False))  # read as get reads it; a write checks where

    def seen(self, data: bytes) -> str:
        """The version of a note's bytes ``data`` that a reader hands out (``kb.notes.read`` may give
        the bytes it decoded, so the version is of exactly the text shown), remembered."""
        digest = shape.version(data)
        if len(data) <= self.settings.max_write_kb * 1024:  # larger notes cannot be edited anyway
            self.journal.remember(digest, data)
        return digest

    def _read(self, col: Collection, rel: str, *, inside: bool = True) -> bytes:
        path = col.path / rel
        real = Path(os.path.realpath(path))
        if inside and col.path.resolve() not in real.parents:
            raise guard.WriteRefused(f"{note_id(col.name, one_line(rel)[:120])} leads outside its collection's folder.")
        try:
            with open(real, "rb") as handle:
                data = handle.read(self.settings.max_note_bytes + 1)
        except FileNotFoundError:
            raise UsageError(f"{note_id(col.name, one_line(rel)[:120])} was deleted from disk.") from None
        except OSError as exc:
            shown = note_id(col.name, one_line(rel)[:120])
            raise UsageError(f"{shown} cannot be read: {exc.strerror or exc}.") from None
        return data

    # -- the guard, once per write ---------------------------------------------------------
    def _allow(self, col: Collection, rel: str | None, client: str, *, new: bool) -> str:
        """The guard's checks of one write (a path of ``None``: checked by the caller)."""
        self._store.require_writable()
        self.journal.check()  # a write that could not be journaled is not made
        self._recover()
        guard.check_collection(col)
        checked = guard.check_relpath(col, rel, new=new) if rel is not None else ""
        self._rate.take(client)
        return checked

    def retire(self, aside: Path, target: Path) -> None:
        """A version a write moved aside and may not put back (a save recreated the note
        meanwhile): into the trash, under the note's name."""
        trash.move_in(self.home, aside, name=target.name)

    def _recover(self) -> None:
        """Put back a note a killed write left moved aside (``replace``): at its name when that
        is free, else into the trash (the note at its name is newer); never removed."""
        for aside, target in self.journal.asides():
            if os.path.lexists(aside):
                try:
                    self._restore_from(aside, target)
                except FileExistsError:
                    trash.move_in(self.home, aside)
                except OSError:
                    continue
            self.journal.forget_aside(aside)

    def _target(self, note: object, client: str) -> tuple[Collection, str]:
        col, rel = self._resolve(note)
        return col, self._allow(col, rel, client, new=False)

    # -- creating --------------------------------------------------------------------------
    def create(self, title: str, collection: str | None = None, folder: str = "", body: str = "", *,
               properties: dict | None = None, tags: list | None = None, path: str | None = None,
               client: str = "api") -> WriteResult:
        """A new note: frontmatter (``title``, ``tags``, the ``properties`` given), then the
        body. Its file name is the title's slug (the clipper's rule, ``clip.names``), numbered
        when taken, in ``folder`` of the collection; or exactly ``path``."""
        col = self._collection(collection)
        if not isinstance(title, str) or not title.strip() or len(title) > MAX_TITLE_CHARS:
            raise UsageError(f"Give the note a title of 1 to {MAX_TITLE_CHARS} characters.")
        if any(not ch.isprintable() for ch in title):
            raise UsageError("A note's title must be one line of printable text.")
        meta: dict = {"title": title}
        if tags:
            if not isinstance(tags, list) or not all(isinstance(t, str) and t.strip() for t in tags):
                raise UsageError("Tags are a list of words, e.g. [\"project\", \"idea\"].")
            meta["tags"] = [t.strip().lstrip("#") for t in tags]
        for key, value in (properties or {}).items():
            if key in ("title", "tags"):
                raise UsageError(f"Give the {key} as its own argument, not as a property.")
            meta[property_name(key)] = value
        text = "---\n" + dump(meta) + "---\n\n" + _body(body)
        data = text.encode("utf-8")
        guard.check_size(data, self.settings)
        if folder is not None and not isinstance(folder, str):
            raise UsageError("A folder is a path inside the collection, e.g. ideas/projects.")
        base = (folder or "").strip("/")
        names = iter([path]) if path is not None else (
            str(PurePosixPath(base, name)) if base else name for name in numbered(slugify(title)))
        self._allow(col, None, client, new=True)
        for rel in names:
            rel = guard.check_relpath(col, rel, new=True)
            target = col.path / rel
            if os.path.lexists(target):
                if path is not None:
                    raise UsageError(f"{note_id(col.name, one_line(rel)[:120])} already exists; choose another path "
                                     f"or edit it with its version.")
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            remove_leftovers(target.parent)
            try:
                create(target, data)
            except FileExistsError:
                if path is not None:
                    raise UsageError(f"{note_id(col.name, one_line(rel)[:120])} already exists.") from None
                continue
            except OSError as exc:
                shown = note_id(col.name, one_line(rel)[:120])
                raise UsageError(f"Could not write {shown}: {exc.strerror or exc}.") from None
            after = shape.version(data)
            entry = self.journal.record(client=client, tool="create_note", collection=col.name, path=rel,
                                        before_hash=None, after_hash=after, old_content=None,
                                        summary=f"created {one_line(title)[:80]!r}", new_content=data)
            return self._indexed(col, {rel}, client, WriteResult("created", col.name, rel, after, None, entry,
                                                                 f"Created {note_id(col.name, rel)}."))
        raise UsageError(f"Could not find a free file name for {slugify(title)}.md in {col.name}.")

    def _collection(self, name: str | None) -> Collection:
        if name:
            return self._collections.get(name)
        writable = [c for c in self._collections.list() if c.writable]
        if len(writable) == 1:
            return writable[0]
        if not writable:
            raise guard.WriteRefused("No collection is writable; `pms-tui collections --writable NAME` allows "
                                     "writing in one.")
        raise UsageError(f"Say which collection to write in: {', '.join(c.name for c in writable)} are writable.")

    # -- editing ---------------------------------------------------------------------------
    def _edit(self, note: object, version: str | None, tool: str, change: Callable[[shape.NoteShape, str], str],
              client: str, summary: str) -> WriteResult:
        col, rel = self._target(note, client)
        data = self._read(col, rel)
        expected = self._expected(version, data, col, rel)
        note_shape, text = shape.read(data, note_id(col.name, rel))
        new_text = change(note_shape, text)
        new_data = note_shape.encode(new_text)
        if new_data == data:
            raise UsageError(f"That changes nothing in {note_id(col.name, rel)}; nothing was written.")
        guard.check_size(new_data, self.settings)
        self._replace(col, rel, new_data, expected)
        after = shape.version(new_data)
        entry = self.journal.record(client=client, tool=tool, collection=col.name, path=rel, before_hash=expected,
                                    after_hash=after, old_content=data, summary=summary, new_content=new_data)
        return self._indexed(col, {rel}, client, WriteResult(
            "edited", col.name, rel, after, expected, entry,
            f"{summary[0].upper()}{summary[1:]} in {note_id(col.name, rel)}."))

    def _expected(self, version: str | None, data: bytes, col: Collection, rel: str) -> str:
        """The version the write is made from: the one named, if the note is still it."""
        current = shape.version(data)
        if version is None:
            return current
        if not isinstance(version, str) or not version.strip():
            raise UsageError("Name the version the edit was made from (the version get returned).")
        if version.strip().lower() != current:
            raise self._conflict(col, rel, version.strip().lower(), data)
        return current

    def _conflict(self, col: Collection, rel: str, named: str, now: bytes | None) -> VersionConflict:
        note = note_id(col.name, rel)
        if now is None:
            return VersionConflict(f"{note} was deleted or moved since version {named[:12]}; nothing was written.",
                                   None, "")
        current = shape.version(now)
        old = self.journal.recall(named)
        diff = safe_text(_diff(old, now, note)) if old is not None else ""  # the note's text: data
        self.journal.remember(current, now)
        told = (" What differs:\n" + diff) if diff else ""
        return VersionConflict(f"{note} changed since version {named[:12]} (it is now {current}); nothing was "
                               f"written: read it again and make the edit on what it holds now.{told}", current, diff)

    def _replace(self, col: Collection, rel: str, data: bytes, expected: str) -> None:
        target = col.path / rel
        remove_leftovers(target.parent)
        try:
            replace_if(target, data, expected, self.journal.keep_aside, self.journal.forget_aside, self.retire)
        except Conflict as exc:
            raise self._conflict(col, rel, expected, exc.current) from None
        except OSError as exc:
            raise UsageError(f"Could not write {note_id(col.name, rel)}: {exc.strerror or exc}.") from None

    def append(self, note: object, text: str, *, version: str | None, heading: str | None = None,
               client: str = "api") -> WriteResult:
        """``text`` added at the end of the note, or of the section of ``heading``."""
        return self._add(note, text, version, heading, client, at_end=True)

    def prepend(self, note: object, text: str, *, version: str | None, heading: str | None = None,
                client: str = "api") -> WriteResult:
        """``text`` added at the start of the note (after its frontmatter), or of a section."""
        return self._add(note, text, version, heading, client, at_end=False)

    def _add(self, note: object, text: str, version: str | None, heading: str | None, client: str, *,
             at_end: bool) -> WriteResult:
        name = _shown(note)
        tool = "append" if at_end else "prepend"

        def change(s: shape.NoteShape, old: str) -> str:
            lines = shape.split_lines(old)
            if heading:
                to_section = edits.append_to_section if at_end else edits.prepend_to_section
                return "".join(to_section(lines, s, heading, _text(text), name))
            return "".join((edits.append if at_end else edits.prepend)(lines, s, _text(text)))
        where = f" to section {one_line(heading)[:60]!r}" if heading else ""
        return self._edit(note, version, tool, change, client, f"{tool}ed{where}")

    def replace_section(self, note: object, heading: str, text: str, *, version: str | None,
                        client: str = "api") -> WriteResult:
        """The text of ``heading``'s section (not the heading) replaced by ``text``."""
        name = _shown(note)

        def change(s: shape.NoteShape, old: str) -> str:
            return "".join(edits.replace_section(shape.split_lines(old), s, heading, _text(text, empty=True), name))
        return self._edit(note, version, "replace_section", change, client,
                          f"replaced section {one_line(heading)[:60]!r}")

    def replace_text(self, note: object, old_text: str, new_text: str, *, count: int = 1, version: str | None,
                     client: str = "api") -> WriteResult:
        """Each of the ``count`` occurrences of the exact passage ``old_text`` replaced."""
        name = _shown(note)

        def change(s: shape.NoteShape, old: str) -> str:
            return edits.replace_passage(old, s, old_text, _text(new_text, empty=True), count, name)
        return self._edit(note, version, "replace_text", change, client, f"replaced {count} passage(s)")

    def set_properties(self, note: object, values: dict | None = None, remove: list | None = None, *,
                       version: str | None, client: str = "api") -> WriteResult:
        """Frontmatter properties set to ``values`` and those in ``remove`` removed."""
        name = _shown(note)
        if values is not None and not isinstance(values, dict):
            raise UsageError("Properties to set are a mapping of names to values.")

        def change(s: shape.NoteShape, old: str) -> str:
            return "".join(properties.set_properties(shape.split_lines(old), s, values or {}, remove or [], name))
        keys = [*(values or {}), *(remove or [])]
        return self._edit(note, version, "set_properties", change, client,
                          f"changed properties {', '.join(one_line(k)[:30] for k in keys[:5])}")

    # -- moving and deleting ---------------------------------------------------------------
    def move(self, note: object, to: str, *, version: str | None, rewrite_links: bool = True,
             client: str = "api") -> WriteResult:
        """The note renamed or moved to ``to`` (a path in its collection; ``.md`` added when
        missing); with ``rewrite_links`` the links to it in the collection follow it."""
        col, rel = self._target(note, client)
        if not isinstance(to, str):
            raise UsageError("Give the new path of the note inside its collection.")
        to = to.strip()
        if to and not to.lower().endswith((".md", ".markdown")) and not is_document_name(to):
            to += ".md"
        new_rel = guard.check_relpath(col, to, new=to.casefold() != rel.casefold())
        if new_rel == rel:
            raise UsageError(f"{note_id(col.name, rel)} is already there.")
        data = self._read(col, rel)
        expected = self._expected(version, data, col, rel)
        plans = link_rewrite.plan(self._store, col, rel, new_rel, self._read) if rewrite_links else []
        source, target = col.path / rel, col.path / new_rel
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(source, target)
        except FileExistsError:
            raise UsageError(f"{note_id(col.name, new_rel)} already exists; choose another name.") from None
        except OSError:  # no hard links here: a checked copy instead
            try:
                create(target, data)
            except FileExistsError:
                raise UsageError(f"{note_id(col.name, new_rel)} already exists; choose another name.") from None
        moved = self._read(col, new_rel)
        if shape.version(moved) != expected:
            os.unlink(target)
            raise self._conflict(col, rel, expected, self._read_or_none(col, rel))
        os.unlink(source)
        head = self.journal.record(client=client, tool="move_note", collection=col.name, path=new_rel,
                                   old_path=rel, before_hash=expected, after_hash=expected, old_content=None,
                                   summary=f"moved from {rel}")
        done, skipped = [], []
        for src, new_data, old_data in plans:
            src_now = new_rel if src == rel else src
            try:
                guard.check_size(new_data, self.settings)
                self._replace(col, src_now, new_data, shape.version(old_data))
            except PmsError:
                skipped.append(src_now)
                continue
            self.journal.record(client=client, tool="move_note", collection=col.name, path=src_now,
                                before_hash=shape.version(old_data), after_hash=shape.version(new_data),
                                old_content=old_data, group_id=head, summary=f"links to {new_rel}",
                                new_content=new_data)
            done.append(src_now)
        self._forget_mark(col, rel)
        links = f"; links rewritten in {len(done)} note(s)" if done else ""
        missed = f"; {len(skipped)} note(s) changed meanwhile and keep their old links" if skipped else ""
        return self._indexed(col, {rel, new_rel, *done}, client, WriteResult(
            "moved", col.name, new_rel, expected, expected, head,
            f"Moved {note_id(col.name, rel)} to {new_rel}{links}{missed}.",
            done, skipped))

    def _read_or_none(self, col: Collection, rel: str) -> bytes | None:
        try:
            return self._read(col, rel)
        except UsageError:
            return None

    def delete(self, note: object, *, version: str | None, client: str = "api") -> WriteResult:
        """The note moved to the home's trash (``undo`` brings it back)."""
        col, rel = self._target(note, client)
        data = self._read(col, rel)
        expected = self._expected(version, data, col, rel)
        source = col.path / rel
        aside = trash.folder(self.home)
        try:
            kept = trash.move_in(self.home, source)
        except OSError as exc:
            raise UsageError(f"Could not move {note_id(col.name, rel)} to the trash ({aside}): "
                             f"{exc.strerror or exc}.") from None
        with open(kept, "rb") as handle:
            moved = handle.read()
        if shape.version(moved) != expected:  # changed between the check and the move: put it back
            self._restore_from(kept, source)
            raise self._conflict(col, rel, expected, moved)
        entry = self.journal.record(client=client, tool="delete_note", collection=col.name, path=rel,
                                    before_hash=expected, after_hash=None, old_content=None, trash=str(kept),
                                    summary="moved to the trash")
        self._forget_mark(col, rel)
        return self._indexed(col, {rel}, client, WriteResult(
            "deleted", col.name, rel, None, expected, entry,
            f"Moved {note_id(col.name, rel)} to the trash; `pms-tui undo {entry}` restores it."), mark=False)

    @staticmethod
    def _restore_from(kept: Path, target: Path) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        os.link(kept, target)  # FileExistsError when a note took its name meanwhile
        os.unlink(kept)

    # -- history and undo ------------------------------------------------------------------
    def history(self, limit: int = 50, note: object | None = None) -> list[Entry]:
        """The latest writes, the newest first (of one note, when named)."""
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LISTED:
            raise UsageError(f"limit must be a whole number from 1 to {MAX_LISTED:,}.")
        key = None
        if note is not None:
            col, rel = self._resolve(note)
            key = (col.name, rel)
        return self.journal.entries(limit, note=key)

    def recent(self, since: float | str | None = None, limit: int = 200) -> list[Entry]:
        """What was written since ``since`` (epoch seconds, an ISO date or time, or a span such
        as ``2h``: ``since.parse_since``; default the last day), the newest first, by whom."""
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LISTED:
            raise UsageError(f"limit must be a whole number from 1 to {MAX_LISTED:,}.")
        start = time.time() - 86400 if since is None else parse_since(since)
        return self.journal.entries(limit, since=start)

    def undo(self, entry_id: int | None = None, *, client: str = "api") -> list[WriteResult]:
        """Put back the note(s) of one write (the newest not undone, by default) as they were
        before it; refused when the note changed since that write."""
        from .undo import undo

        return undo(self, entry_id, client)

    # -- after a write ---------------------------------------------------------------------
    def _indexed(self, col: Collection, paths: set[str], client: str, result: WriteResult, *,
                 mark: bool = True) -> WriteResult:
        """``result``, once the written notes are indexed (or, while another process holds
        the index, saying they will be at its next sync) and marked as changed by ``client``."""
        if not self._index(col.name, paths):
            result.indexed = False
            result.message = (result.message.rstrip(".") + "; another pms-tui is writing the index, so it is "
                              "searchable after the next sync (the app's watch or `pms-tui sync`).")
        if mark:
            now = time.time()
            with self._store.transaction() as conn:
                for rel in paths:
                    if (col.path / rel).exists():
                        agent_changes.record(conn, col.id, rel, now, client)
        return result

    def _forget_mark(self, col: Collection, rel: str) -> None:
        with self._store.transaction() as conn:
            agent_changes.forget(conn, col.id, rel)

    def changed_by(self, collection: str, relpath: str) -> tuple[float, str] | None:
        """(when, which client) a write through ``kb.write`` last changed the note, or None
        (what the reader's header says and ``changed:agent`` finds)."""
        try:
            col = self._collections.get(collection)
            return agent_changes.of_note(self._store.conn, col.id, relpath)
        except Exception:  # noqa: BLE001 - an index it cannot ask (read-only, older) has no mark to show
            return None


def _body(body: object) -> str:
    text = _text(body, empty=True).replace("\r\n", "\n").replace("\r", "\n").strip("\n")
    return text + "\n" if text else ""


def _text(text: object, empty: bool = False) -> str:
    if not isinstance(text, str):
        raise UsageError("The note's text must be a string.")
    if "\x00" in text:
        raise UsageError("The text holds a NUL character; a note cannot.")
    if not empty and not text.strip():
        raise UsageError("The text to add is empty.")
    return text


def _shown(note: object) -> str:
    return one_line(str(note))[:120]
