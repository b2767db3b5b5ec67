"""The reader's breadcrumb: where the passage shown sits, and which view shows it."""

from __future__ import annotations

import time

from textual.content import Content
from textual.widgets import Static

from pms_tui.core.results import Hit
from pms_tui.core.safe_text import one_line

from ..hit_place import page_label, place
from ..note_window import NoteWindow


class Breadcrumb(Static):
    """``H1 › H2 › H3`` over ``collection/relpath:start-end`` and the view."""

    DEFAULT_CSS = """
    Breadcrumb {
        height: auto;
        padding: 0 2;
        background: $panel;
        color: $text-muted;
    }
    """

    def show_hit(self, hit: Hit | None, whole_note: bool, window: NoteWindow | None = None) -> None:
        if hit is None:
            self.update(Content.styled("No passage selected", "$text-muted"))
            return
        crumbs = hit.heading_path or [hit.title]
        parts: list[str | tuple[str, str]] = []
        for i, crumb in enumerate(crumbs):
            if i:
                parts.append((" › ", "$text-muted"))
            parts.append((one_line(crumb), "bold $text-accent" if i == len(crumbs) - 1 else "bold $text"))
        view = "whole note" if whole_note else "chunk"
        if whole_note and window is not None and window.pages is not None:
            first, last, total = window.pages
            if window.clipped or first > 1 or last < total:
                view = f"pages {first}-{last} of {total}" if first != last else f"{page_label(first)} of {total}"
        elif whole_note and window is not None and window.clipped:
            last = window.first_line + window.markdown.count("\n")
            view = f"lines {window.first_line}-{last} of {window.total_lines}"
        changed = getattr(getattr(self.app, "kb", None), "write", None)  # a note an agent wrote: said so
        if changed is not None and (by := changed.changed_by(hit.collection, hit.relpath)):
            view += f"  ·  changed by {one_line(by[1])[:40]} {time.strftime('%Y-%m-%d %H:%M', time.localtime(by[0]))}"
        location = Content.assemble(
            (place(hit, span=True), "$text-primary"),
            ("  ·  ", "$text-muted"),
            (view, "$text-muted italic"),
        )
        self.update(Content("\n").join([Content.assemble(*parts), location]))
