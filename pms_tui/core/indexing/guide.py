"""The bundled user guide: a folder of notes shipped in the package (``pms_tui/sample``), which
the app adds as a collection on its first run so there is something to search.

It is indexed where it is installed (read-only is fine: the index never writes notes). Once the
user has a collection of their own, the guide steps aside: it is left out of the default search
scope (every front end: the KnowledgeBase decides), still searchable with ``in:guide`` (or by
choosing its collection), and removable like any collection. A guide is known by its folder,
never by its name.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .collections import Collection

GUIDE_NAME = "guide"
GUIDE_DESCRIPTION = "The pms-tui user guide and a few sample notes (bundled)."
# state.json: the user was told once that the guide stepped aside
TOLD_STATE = "guide_aside_told"


@cache
def guide_dir() -> Path | None:
    """The bundled guide's folder, resolved; None when the installation lacks it. The package's
    own folder, not ``importlib.resources``: a guide is indexed where it lies on disk (never
    from inside a zip), and its readers would be imported by every one-shot search."""
    import pms_tui

    folder = Path(pms_tui.__file__).parent / "sample"
    try:
        return folder.resolve() if folder.is_dir() else None
    except OSError:
        return None


def is_guide_note(path: Path | str) -> bool:
    """Whether ``path`` (a note's file) is one of the bundled guide's notes: files of the
    installed package, read-only for every front end."""
    folder = guide_dir()
    if folder is None:
        return False
    try:
        return Path(path).resolve().is_relative_to(folder)
    except (OSError, ValueError):
        return False


def is_guide_path(path: Path | str) -> bool:
    """Whether ``path`` (a collection's folder) is the bundled guide's folder."""
    folder = guide_dir()
    if folder is None or Path(path).name != folder.name:
        return False
    try:
        return Path(path).resolve() == folder
    except OSError:
        return False


def stepped_aside(collections: Sequence[Collection]) -> Collection | None:
    """Of these (every collection of an index), the guide's when it steps aside: the index
    holds it and a collection of the user's own; else None."""
    guide = next((c for c in collections if is_guide_path(c.path)), None)
    return guide if guide is not None and len(collections) > 1 else None


def aside_notice(name: str) -> str:
    """What the user is told, once, when the guide ``name`` steps aside."""
    return (f"The bundled guide now stays out of your searches, since you have notes of your own: "
            f"search it with in:{name}, or remove it with `pms-tui remove {name}`.")
