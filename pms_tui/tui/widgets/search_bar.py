"""The search bar: an Input that is focused at start and never steals the app's keys."""

from __future__ import annotations

from textual.widgets import Input


class SearchBar(Input):
    DEFAULT_CSS = """
    SearchBar {
        border: tall $primary 40%;
        &:focus { border: tall $primary; }
    }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(placeholder="Search your notes…  (F1 keys · ctrl+p commands)", **kwargs)
