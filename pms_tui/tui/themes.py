"""Theme files: TOML with the fields of :class:`textual.theme.Theme`, turned into themes.

The app's own themes live in the repository's ``themes/`` folder, packaged as
``pms_tui/themes``; a person's own themes are ``<home>/themes/*.toml``. A broken file is
reported, never fatal.
"""

from __future__ import annotations

import tomllib
from dataclasses import fields
from importlib import resources
from pathlib import Path

from textual.theme import Theme

DEFAULT_DARK = "pms-dark"
_FIELDS = {f.name for f in fields(Theme)}


def bundled_theme_dir() -> Path | None:
    """The packaged ``pms_tui/themes`` folder, else the source checkout's ``themes/``."""
    try:
        packaged = Path(str(resources.files("pms_tui") / "themes"))
        if packaged.is_dir() and any(packaged.glob("*.toml")):
            return packaged
    except (ModuleNotFoundError, TypeError, OSError):
        pass
    checkout = Path(__file__).resolve().parents[2] / "themes"
    return checkout if checkout.is_dir() else None


def theme_from_file(path: Path) -> Theme:
    """One theme from a TOML file; ValueError with a sentence when it cannot be used."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"Cannot read the theme file {path.name}: {exc}.") from None
    data.setdefault("name", path.stem)
    unknown = sorted(set(data) - _FIELDS)
    if unknown:
        raise ValueError(f"The theme file {path.name} has unknown fields: {', '.join(unknown)}.")
    if "primary" not in data:
        raise ValueError(f"The theme file {path.name} needs a 'primary' colour.")
    variables = data.get("variables", {})
    if not isinstance(variables, dict):
        raise ValueError(f"In the theme file {path.name}, 'variables' must be a table.")
    data["variables"] = {str(k): str(v) for k, v in variables.items()}
    try:
        theme = Theme(**data)
        theme.to_color_system()  # parse the colours now, not at first paint
    except Exception as exc:  # noqa: BLE001 - any bad colour is the file's problem
        raise ValueError(f"The theme file {path.name} has a colour that cannot be used: {exc}.") from None
    return theme


def load_themes(*folders: Path | None) -> tuple[list[Theme], list[str]]:
    """Themes from every ``*.toml`` of the folders, in order, and the problems found."""
    themes: list[Theme] = []
    problems: list[str] = []
    for folder in folders:
        if folder is None or not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.toml")):
            try:
                themes.append(theme_from_file(path))
            except ValueError as exc:
                problems.append(str(exc))
    return themes, problems
