"""Undo: the note(s) of one journaled write put back as they were before it, refused when a
note changed since that write (its version is no longer the one the write left). A write
that rewrote links elsewhere (a move) is undone whole: every note of its group is checked
first, then each is put back. The undo is journaled too (its ``undoes``)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from ..errors import UsageError
from ..results import note_id
from ..indexing.collections import Collection, Collections
from . import guard, shape, trash
from .journal import Entry, Journal
from .replace import Conflict, create, replace_if
from .result import WriteResult


class NoteWriter(Protocol):
    """What an undo uses of ``service.NoteWriter``."""

    home: Path
    journal: Journal
    _collections: Collections
    _index: Callable[[str, set[str]], bool]

    def _allow(self, col: Collection, rel: str | None, client: str, *, new: bool) -> str: ...
    def _forget_mark(self, col: Collection, rel: str) -> None: ...
    def _restore_from(self, kept: Path, target: Path) -> None: ...
    def retire(self, aside: Path, target: Path) -> None: ...


def _now(path: Path) -> str | None:
    try:
        with open(path, "rb") as handle:
            return shape.version(handle.read())
    except FileNotFoundError:
        return None


def _check(writer: NoteWriter, entry: Entry) -> None:
    col = writer._collections.get(entry.collection)
    guard.check_collection(col)
    path = col.path / entry.path
    changed = UsageError(f"{entry.note_id} changed since write {entry.id}; undoing it would lose that change, "
                         f"so nothing was undone.")
    if entry.tool == "delete_note":
        if not entry.trash or not Path(entry.trash).exists():
            raise UsageError(f"The trash no longer holds {entry.note_id}; it cannot be restored.")
        if os.path.lexists(path):
            raise UsageError(f"A note is at {entry.note_id} again; move it away to restore the deleted one.")
        return
    if _now(path) != entry.after_hash:
        raise changed
    if entry.old_path is not None and os.path.lexists(col.path / entry.old_path):
        raise UsageError(f"A note is at {note_id(entry.collection, entry.old_path)} again; the move cannot be undone.")


def undo(writer: NoteWriter, entry_id: int | None, client: str) -> list[WriteResult]:
    journal = writer.journal
    entry = journal.get(entry_id) if entry_id is not None else journal.last_undoable()
    if entry is None:
        raise UsageError("Nothing to undo." if entry_id is None else f"There is no write {entry_id} in the journal.")
    if entry.undoes is not None:
        raise UsageError(f"Write {entry.id} is itself an undo (of write {entry.undoes}); it cannot be undone.")
    head = entry.group_id or entry.id
    group = journal.group(head)
    if any(e.undone_by is not None for e in group):
        raise UsageError(f"Write {head} was undone already.")
    for e in group:
        _check(writer, e)
    writer._allow(writer._collections.get(entry.collection), None, client, new=False)
    results: list[WriteResult] = []
    touched: dict[str, set[str]] = {}
    for e in group:  # the newest first: the links, then the move they followed
        col = writer._collections.get(e.collection)
        path = col.path / e.path
        paths = touched.setdefault(e.collection, set())
        try:
            if e.tool == "delete_note":
                assert e.trash is not None
                writer._restore_from(Path(e.trash), path)
                after, message = e.before_hash, f"Restored {e.note_id} from the trash."
            elif e.tool == "create_note":
                kept = trash.move_in(writer.home, path)
                if _now(kept) != e.after_hash:
                    writer._restore_from(kept, path)
                    raise Conflict(None)
                after, message = None, f"Moved {e.note_id}, which write {e.id} created, to the trash."
            elif e.old_path is not None and e.old_content is None:  # the move itself
                back = col.path / e.old_path
                os.link(path, back)
                os.unlink(path)
                paths.add(e.old_path)
                after, message = e.after_hash, f"Moved {e.note_id} back to {e.old_path}."
            else:
                assert e.old_content is not None and e.after_hash is not None
                if path.exists():
                    replace_if(path, e.old_content, e.after_hash, journal.keep_aside, journal.forget_aside,
                               writer.retire)
                else:
                    create(path, e.old_content)
                after, message = e.before_hash, f"Put {e.note_id} back as it was before write {e.id}."
        except (Conflict, FileExistsError):
            raise UsageError(f"{e.note_id} changed while it was being put back; nothing more was undone.") from None
        except OSError as exc:
            raise UsageError(f"Could not put back {e.note_id}: {exc.strerror or exc}.") from None
        paths.add(e.path)
        new_id = journal.record(client=client, tool="undo", collection=e.collection,
                                path=e.old_path if e.old_path is not None and e.old_content is None else e.path,
                                old_path=e.path if e.old_path is not None and e.old_content is None else None,
                                before_hash=e.after_hash, after_hash=after, old_content=None, undoes=head,
                                summary=f"undid write {e.id}")
        results.append(WriteResult("undone", e.collection, e.path, after, e.after_hash, new_id, message))
    for name, paths in touched.items():
        col = writer._collections.get(name)
        writer._index(name, paths)
        for rel in paths:
            writer._forget_mark(col, rel)
    return results
