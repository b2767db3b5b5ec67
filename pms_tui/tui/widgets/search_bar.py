"""The search bar: an Input that is focused at start and never steals the screen's keys (a
``TypingInput``: backspace and the editing keys keep their place among fast-typed characters)."""

from __future__ import annotations

from collections.abc import Callable

from ..typing_input import TypingInput


def search_placeholder(key: Callable[[str], str]) -> str:
    """The empty bar's hint; ``key(binding_id)`` names the keys as they are bound now."""
    return f"Search your notes…  ({key('app.help')} keys · {key('command_palette')} commands)"


class SearchBar(TypingInput):
    DEFAULT_CSS = """
    SearchBar {
        border: tall $primary 40%;
        &:focus { border: tall $primary; }
    }
    """
