"""The bundled sample collection: the user guide as Markdown notes, shipped in the package.

It is indexed where it is installed (read-only is fine: the index never writes notes), so
nothing is written into site-packages; clips never go there.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

SAMPLE_NAME = "guide"
SAMPLE_DESCRIPTION = "The pms-tui user guide and a few sample notes (bundled)."
OFFERED_STATE = "sample_added"  # app state (state.json): a guide removed stays removed


def sample_dir() -> Path | None:
    try:
        folder = Path(str(resources.files("pms_tui") / "sample"))
    except (ModuleNotFoundError, TypeError):
        return None
    return folder if folder.is_dir() else None


def is_sample_path(path: Path) -> bool:
    folder = sample_dir()
    if folder is None:
        return False
    try:
        return Path(path).resolve() == folder.resolve()
    except OSError:
        return False
