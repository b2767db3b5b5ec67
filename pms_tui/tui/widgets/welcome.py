"""What the reader shows before a hit is highlighted: how to begin, with the keys as bound."""

from __future__ import annotations

from collections.abc import Callable


def welcome_text(key: Callable[[str], str]) -> str:
    """What the reader shows before a hit is highlighted; ``key(binding_id)`` names the keys."""
    return f"""\
Type in the search bar: results appear as you type.

- **↑ ↓** move through the results; this pane follows
- **{key("app.toggle_document")}** shows the whole note, **{key("app.open_editor")}** opens it in your editor
- **{key("app.cycle_mode")}** changes the mode, **{key("app.cycle_collection")}** the collection filter
- **{key("app.help")}** lists every key, **{key("command_palette")}** every command
"""
