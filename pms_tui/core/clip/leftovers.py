"""The temporary files of every note pms-tui writes (a clip, a note an agent writes or edits),
writing through one (:func:`write_atomic`), and removing those a killed write left behind.

A note is written to a temporary file beside it (the same folder, so the final rename or
link is atomic), fsynced, and moved into place. A write killed in between (kill -9, a power
cut) leaves that file in the user's folder. Its name is one pms-tui owns: ``TEMP_PREFIX``,
16 hex digits, ``.tmp`` (earlier versions wrote ``.<date>-<slug>.md.<8 hex>.tmp``, matched as
exactly). A later write into the folder, and every sync of the collection (its top folder),
remove such files from the folder, and only:

- names matching one of those two patterns exactly,
- regular files (never a link, a folder or anything else),
- older than ``LEFTOVER_AGE`` (a running clip's file lives for the milliseconds of a write).

Nothing else is ever removed: the index never deletes a user's note. Light to import (a sync
calls it; the clipper's own imports, trafilatura and the rest, are not needed here).
"""

from __future__ import annotations

import os
import re
import secrets
import stat
import time
from pathlib import Path

TEMP_PREFIX = ".pms-tui-clip-"
LEFTOVER_AGE = 15 * 60.0  # seconds
_OWN = re.compile(re.escape(TEMP_PREFIX) + r"[0-9a-f]{16}\.tmp")
_EARLIER = re.compile(r"\.\d{4}-\d{2}-\d{2}-[a-z0-9-]+\.md\.[0-9a-f]{8}\.tmp")


def temp_name() -> str:
    """A new name for a temporary file (in the folder of the note it becomes)."""
    return f"{TEMP_PREFIX}{secrets.token_hex(8)}.tmp"


def is_leftover_name(name: str) -> bool:
    return bool(_OWN.fullmatch(name) or _EARLIER.fullmatch(name))


def remove_leftovers(folder: Path | str, older_than: float = LEFTOVER_AGE, now: float | None = None) -> list[str]:
    """Remove the clipper's temporary files left in ``folder`` (see the module); returns the
    names removed. Never raises: a folder that cannot be read or written is left as it is."""
    removed: list[str] = []
    now = time.time() if now is None else now
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        if not entry.name.startswith(".") or not is_leftover_name(entry.name):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
            if not stat.S_ISREG(info.st_mode) or now - info.st_mtime < older_than:
                continue
            os.unlink(entry.path)
        except OSError:
            continue
        removed.append(entry.name)
    return removed


def write_atomic(target: Path, data: bytes, *, replace: bool) -> None:
    """Write ``data`` to ``target`` via a fsynced temp file in the same folder.

    With ``replace=False`` an existing ``target`` raises FileExistsError and is left alone
    (the temp file is hard-linked into place, which fails atomically if the name is taken).
    """
    tmp = write_temp(target, data)
    try:
        if replace:
            try:
                os.chmod(tmp, stat.S_IMODE(target.stat().st_mode))
            except OSError:
                pass
            os.replace(tmp, target)
        else:
            link_new(tmp, target)
    except BaseException:
        discard(tmp)
        raise
    discard(tmp)
    fsync_dir(target.parent)


def write_temp(target: Path, data: bytes) -> Path:
    """A new fsynced temporary file beside ``target`` holding ``data``; its path."""
    tmp = target.with_name(temp_name())  # a name a later write or sync knows as pms-tui's
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        discard(tmp)
        raise
    return tmp


def link_new(tmp: Path, target: Path) -> None:
    """Put ``tmp`` at ``target`` only if that name is free (FileExistsError otherwise), by a
    hard link, which fails atomically when the name is taken; where the file system has no
    hard links, a check and a rename."""
    try:
        os.link(tmp, target)
    except FileExistsError:
        raise
    except OSError:  # no hard links on this file system: check, then rename
        if os.path.lexists(target):
            raise FileExistsError(str(target)) from None
        os.replace(tmp, target)


def discard(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def fsync_dir(folder: Path) -> None:
    """Make a rename durable where the OS allows opening a directory."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
