"""The evidence panel: why the selected hit ranks where it does (toggled under the reader)."""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content
from textual.widgets import Static


class EvidencePanel(Static):
    DEFAULT_CSS = """
    EvidencePanel {
        height: auto;
        max-height: 12;
        padding: 0 1;
        border-top: solid $primary 40%;
        background: $surface;
        display: none;
        &.-shown { display: block; }
    }
    """

    def show_lines(self, title: str, lines: Sequence[str]) -> None:
        """Plain lines (note text is data: never markup)."""
        head = Content.styled(title, "bold $text-accent")
        body = [Content(line) for line in lines]
        self.update(Content("\n").join([head, *body]))
