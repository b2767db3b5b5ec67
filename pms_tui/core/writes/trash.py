"""The trash: a note deleted through ``kb.write`` is moved to ``trash/`` in the home (never
erased), under a name that keeps it apart from any other (``<journal id>-<file name>``), and
``undo`` moves it back. Nothing here empties the trash: the person does, by hand."""

from __future__ import annotations

import os
import secrets
import shutil
from pathlib import Path

TRASH_DIR = "trash"


def folder(home: Path) -> Path:
    return home / TRASH_DIR


def move_in(home: Path, note: Path, name: str | None = None) -> Path:
    """Move ``note`` into the home's trash (as ``name``, else its own name); where it went. A
    note on another disk than the home is copied (with fsync) and then removed."""
    target_dir = folder(home)
    target_dir.mkdir(parents=True, exist_ok=True)
    target = target_dir / f"{secrets.token_hex(6)}-{name or note.name}"
    try:
        os.rename(note, target)
    except OSError as exc:
        if exc.errno != 18:  # EXDEV: another file system
            raise
        shutil.copy2(note, target)
        with open(target, "rb") as handle:
            os.fsync(handle.fileno())
        os.unlink(note)
    return target
