"""A note replaced only if it is still the version a write was made from, atomically, with
nothing left beside it (the temporary files are ``clip.leftovers``'s).

Someone may be saving the same note right now (Obsidian, vim, a script). So the note is
first moved aside to a temporary name: from then on no save lands in the version being
checked without being seen. Its bytes are checked against the version named; the new text
is linked into the free name (so a save that recreated the note meanwhile wins, the write is
refused and the version it replaced goes to the writer's trash: an append that made the file
anew, a shell's ``>>``, had not read it); the moved-aside file is checked again (a save that wrote into the old
file in place, which arrives there, is put back and wins); only then is it removed. A write
refused at any step puts back what it moved: of a write that races another, one wins whole,
the other is told, and neither is merged into the other. For the milliseconds between the
first move and the link the note's name is free; a sync that looks exactly then sees it
gone, and the write's own index update that follows sees it back. One case stays unseen: a
program that opened the note before the move and writes to that open file only after the
check (a save held up for the whole write); its bytes go to the file the write retired.

The moved-aside file has a name of its own (``ASIDE_PREFIX``), never one ``clip.leftovers``
removes, and is recorded (``keep``) before the move: a write killed midway leaves the note
there, and the next write puts it back (``service.NoteWriter._recover``).
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import secrets
from collections.abc import Callable

from ..clip.leftovers import discard, fsync_dir, link_new, write_temp
from ..errors import UsageError
from .shape import version

MAX_DIFF_LINES = 40
ASIDE_PREFIX = ".pms-tui-aside-"


class Conflict(Exception):
    """The note is no longer the version named: ``current`` holds its bytes now (None: gone)."""

    def __init__(self, current: bytes | None):
        super().__init__("the note changed")
        self.current = current


class VersionConflict(UsageError):
    """The note changed since the version a write named: ``current`` is its version now
    (None: it is gone), ``diff`` what differs (a short unified diff, when the old is known)."""

    def __init__(self, message: str, current: str | None, diff: str):
        super().__init__(message)
        self.current = current
        self.diff = diff


def _read(path: Path) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def aside_name() -> str:
    return f"{ASIDE_PREFIX}{secrets.token_hex(8)}.tmp"


def replace_if(target: Path, data: bytes, expected: str, keep: Callable[[Path, Path], None] = lambda a, t: None,
               forget: Callable[[Path], None] = lambda a: None,
               retire: Callable[[Path, Path], None] = lambda a, t: discard(a)) -> None:
    """Put ``data`` at ``target`` if its bytes are still the version ``expected``; else
    Conflict with its bytes now. OSError for a folder that cannot be written. ``keep(aside,
    target)`` records the moved-aside file before the move, ``forget(aside)`` once it is gone;
    ``retire(aside, target)`` keeps the version a save recreating the note replaced (the
    writer's: in the home's trash)."""
    tmp = write_temp(target, data)
    try:
        try:
            mode = os.stat(target).st_mode & 0o7777
            os.chmod(tmp, mode)
        except OSError:
            pass
        aside = target.with_name(aside_name())
        keep(aside, target)
        try:
            os.rename(target, aside)
        except FileNotFoundError:
            forget(aside)
            raise Conflict(None) from None
        try:
            before = _read(aside)
            if before is None or version(before) != expected:
                _put_back(aside, target)
                raise Conflict(_read(target))
            try:
                link_new(tmp, target)
            except FileExistsError:  # a save recreated the note meanwhile: it wins
                # the version it replaced: read by a whole save, but not by an append that made
                # the file anew (a shell's >>), so it is kept (the writer's trash), never removed
                retire(aside, target)
                raise Conflict(_read(target)) from None
            late = _read(aside)
            if late is None or version(late) != expected:  # a save wrote into the old file in place
                os.replace(aside, target)
                raise Conflict(late)
            discard(aside)
        finally:
            if not os.path.lexists(aside):
                forget(aside)
    finally:
        discard(tmp)
    fsync_dir(target.parent)


def _put_back(aside: Path, target: Path) -> None:
    """The moved-aside note back at its name, unless a save put a newer one there."""
    try:
        link_new(aside, target)
    except FileExistsError:
        pass
    discard(aside) if os.path.exists(target) else os.replace(aside, target)


def create(target: Path, data: bytes) -> None:
    """Write a new note at ``target``; FileExistsError when the name is taken."""
    tmp = write_temp(target, data)
    try:
        link_new(tmp, target)
    finally:
        discard(tmp)
    fsync_dir(target.parent)


def diff(old: bytes, new: bytes, name: str) -> str:
    a = old.decode("utf-8", "replace").splitlines()
    b = new.decode("utf-8", "replace").splitlines()
    lines = list(difflib.unified_diff(a, b, f"{name} (the version named)", f"{name} (now)", n=1, lineterm=""))
    if len(lines) > MAX_DIFF_LINES:
        lines = lines[:MAX_DIFF_LINES] + [f"... ({len(lines) - MAX_DIFF_LINES} more lines)"]
    return "\n".join(lines)
