"""The clipper's temporary files, and removing those a killed clip left behind.

A clip writes its note to a temporary file beside it (the same folder, so the final rename or
link is atomic) and moves it into place. A clip killed in between (kill -9, a power cut)
leaves that file in the user's folder. Its name is one the clipper owns: ``TEMP_PREFIX``,
16 hex digits, ``.tmp`` (earlier versions wrote ``.<date>-<slug>.md.<8 hex>.tmp``, matched as
exactly). A later clip into the folder, and every sync of the collection, remove such files
from the folder (not its subfolders: a clip writes only there), and only:

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
    """A new name for a clip's temporary file (in the folder it is written to)."""
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
