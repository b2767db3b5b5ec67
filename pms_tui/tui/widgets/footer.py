"""The footer: the screen's keys, as many whole ones as fit, then the command palette's.

Textual's Footer lays every shown key in a grid and a narrow terminal cuts the last one in
the middle ("^r Ch"); this one leaves out the keys that do not fit, last first (the help key,
f1, is first and lists them all), and goes compact below 100 columns. Built on the Footer's
own compose: what it yields is kept or left out, nothing else changes. A key is known by
what Footer's key widgets hold (``key_display`` and ``description``, public attributes of a
class Textual keeps private), so no private name of Textual's is imported.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Footer

COMPACT_BELOW = 100  # columns


def is_key(widget: Widget) -> bool:
    """One of the footer's keys (Footer's compose also yields group labels)."""
    return hasattr(widget, "key_display") and hasattr(widget, "description")


def key_cells(key: Widget, compact: bool) -> int:
    """The cells one key takes in the footer (its key, its words, their padding and gap)."""
    shown = cell_len(getattr(key, "key_display", "")) + cell_len(getattr(key, "description", ""))
    return shown + (2 if compact else 3)


class FittingFooter(Footer):
    def compose(self) -> ComposeResult:
        width = self.size.width
        keys = list(super().compose())
        if not width:  # before the first layout: every key, fitted once the size is known
            yield from keys
            return
        palette = [k for k in keys if is_key(k) and k.has_class("-command-palette")]
        room = width - sum(key_cells(k, self.compact) + 1 for k in palette)
        kept = []
        for key in keys:
            if key in palette:
                continue
            cells = key_cells(key, self.compact) if is_key(key) else 0
            if cells > room:
                break
            room -= cells
            kept.append(key)
        self.styles.grid_size_columns = len(kept)
        yield from kept + palette

    def on_resize(self) -> None:
        compact = self.size.width < COMPACT_BELOW
        if compact != self.compact:
            self.compact = compact
        self.call_after_refresh(self.recompose)
