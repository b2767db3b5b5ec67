"""The reader: the highlighted hit rendered as Markdown, under its breadcrumb.

Two views: the matched chunk alone, or the whole note scrolled to the chunk with the
chunk's blocks marked. A long note is rendered as a window of lines around the chunk
(Textual's Markdown mounts a widget per block, so 5,000 lines at once would stall).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Markdown, Static
from textual.widgets.markdown import MarkdownBlock

from pms_tui.core.errors import PmsError
from pms_tui.core.kb import read_note, split_frontmatter
from pms_tui.core.markdown import normalize_newlines, scan
from pms_tui.core.results import Hit
from pms_tui.core.safe_text import one_line, safe_text

WINDOW_LINES = 600  # a longer note is shown as this many lines around the chunk

# A note larger than this is never read whole into the reader (its indexed chunk is shown).
SHOW_WHOLE_BYTES = 2_000_000


def welcome_text(key: Callable[[str], str]) -> str:
    """What the reader shows before a hit is highlighted; ``key(binding_id)`` names the keys."""
    return f"""\
Type in the search bar: results appear as you type.

- **↑ ↓** move through the results; this pane follows
- **{key("app.toggle_document")}** shows the whole note, **{key("app.open_editor")}** opens it in your editor
- **{key("app.cycle_mode")}** changes the mode, **{key("app.cycle_collection")}** the collection filter
- **{key("app.help")}** lists every key, **{key("command_palette")}** every command
"""


@dataclass
class NoteWindow:
    """The part of a note that is rendered: its Markdown and the file line of its first line."""

    markdown: str
    first_line: int  # 1-based file line of the markdown's first line
    total_lines: int
    clipped: bool


def cut_points(lines: list[str]) -> list[int]:
    """Indices where a window may start or end: headings, code blocks' first lines, and blank
    lines outside code (found by the engine's one Markdown scanner)."""
    structure = scan("\n".join(lines))
    inside = bytearray(len(lines))
    starts = {h.start for h in structure.headings}
    for block in structure.blocks:
        if block.kind in ("fence", "code_block"):
            starts.add(block.start)
            inside[block.start + 1:block.end] = b"\x01" * max(0, block.end - block.start - 1)
    return [i for i, line in enumerate(lines) if i in starts or (not inside[i] and not line.strip())]


@lru_cache(maxsize=4)
def _cut_points_of(body: str) -> tuple[int, ...]:
    """Scanning is the slow part of a window: moving between hits of one note scans it once."""
    return tuple(cut_points(body.split("\n")))


def note_window(text: str, start_line: int, end_line: int, budget: int = WINDOW_LINES) -> NoteWindow:
    """The note's body without frontmatter, or a window of ``budget`` lines around the chunk."""
    _, body, offset = split_frontmatter(normalize_newlines(text))
    lines = body.split("\n")
    total = len(lines) + offset
    if len(lines) <= budget:
        return NoteWindow(body, offset + 1, total, False)
    start = max(0, start_line - offset - 1)
    end = min(len(lines), end_line - offset)
    lo_target = max(0, start - budget // 4)
    hi_target = min(len(lines), max(end, lo_target + budget))
    points = _cut_points_of(body)
    lo = max((p for p in points if p <= lo_target), default=0)
    hi = min((p for p in points if p >= hi_target), default=len(lines))
    return NoteWindow("\n".join(lines[lo:hi]), offset + lo + 1, total, True)


def read_window(hit: Hit) -> NoteWindow:
    """The window of the hit's note on disk; the indexed chunk with a note when it cannot be read."""
    path = Path(hit.path)
    try:
        if path.stat().st_size > SHOW_WHOLE_BYTES:
            raise OSError("the note is too large to show whole")
        text = read_note(path).text  # as sync reads it: UTF-8, or UTF-16 with a BOM
    except (OSError, PmsError) as exc:
        reason = (exc.strerror or str(exc)) if isinstance(exc, OSError) else str(exc)
        message = (f"> The note cannot be read from disk ({reason}); the indexed chunk is shown. "
                   "Sync to bring the index up to date.\n\n")
        return NoteWindow(message + hit.text, hit.start_line - message.count("\n"), hit.end_line, False)
    return note_window(text, hit.start_line, hit.end_line)


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
        if whole_note and window is not None and window.clipped:
            last = window.first_line + window.markdown.count("\n")
            view = f"lines {window.first_line}-{last} of {window.total_lines}"
        location = Content.assemble(
            (one_line(f"{hit.collection}/{hit.relpath}:{hit.start_line}-{hit.end_line}"), "$text-primary"),
            ("  ·  ", "$text-muted"),
            (view, "$text-muted italic"),
        )
        self.update(Content("\n").join([Content.assemble(*parts), location]))


class NoteMarkdown(Markdown, can_focus_children=False):
    """Markdown that never takes focus from navigation."""


class Reader(Vertical):
    """Breadcrumb above a scrollable Markdown view of the highlighted hit."""

    DEFAULT_CSS = """
    Reader {
        height: 1fr;
        & > VerticalScroll { height: 1fr; background: $background; }
        & NoteMarkdown { padding: 0 2 1 2; }
        & NoteMarkdown > .-match {
            background: $accent 12%;
            border-left: outer $accent;
        }
    }
    """

    whole_note: reactive[bool] = reactive(False, init=False)

    def __init__(self, *, empty_text: str = "", **kwargs) -> None:
        super().__init__(**kwargs)
        self.empty_text = empty_text
        self.hit: Hit | None = None
        self.window: NoteWindow | None = None
        self._pending: tuple[Hit | None] | None = None
        self._rendering = False
        self._shown: tuple[int | None, bool, str] | None = None

    def compose(self) -> ComposeResult:
        yield Breadcrumb(id="breadcrumb")
        with VerticalScroll(id="reader-scroll"):
            yield NoteMarkdown(self.empty_text, id="reader-markdown", open_links=False)

    @property
    def markdown(self) -> NoteMarkdown:
        return self.query_one(NoteMarkdown)

    def show(self, hit: Hit | None) -> None:
        """Render ``hit`` soon; a burst of calls (holding a key down) renders only the last."""
        self._pending = (hit,)
        if not self._rendering:
            self._rendering = True
            self.run_worker(self._render_pending(), group="reader", exit_on_error=False)

    def refresh_view(self) -> None:
        """Render the current hit again (after the note changed on disk)."""
        self._shown = None
        self.show(self.hit)

    def watch_whole_note(self) -> None:
        self.show(self.hit)

    async def _render_pending(self) -> None:
        try:
            while self._pending is not None:
                (hit,), self._pending = self._pending, None
                await self._show_hit(hit)
        finally:
            self._rendering = False

    async def _show_hit(self, hit: Hit | None) -> None:
        key = (hit.chunk_id if hit else None, self.whole_note, hit.text if hit else "")
        self.hit = hit
        if key == self._shown:
            return
        breadcrumb = self.query_one(Breadcrumb)
        markdown = self.markdown
        scroll = self.query_one("#reader-scroll", VerticalScroll)
        if hit is None:
            self.window = None
            breadcrumb.show_hit(None, self.whole_note)
            await markdown.update(self.empty_text)
        elif not self.whole_note:
            self.window = None
            breadcrumb.show_hit(hit, False)
            await markdown.update(safe_text(hit.text))
            scroll.scroll_home(animate=False)
        else:
            # reading and scanning a long note happens off the UI thread
            self.window = window = await asyncio.to_thread(read_window, hit)
            breadcrumb.show_hit(hit, True, window)
            await markdown.update(safe_text(window.markdown))
            first = self._mark_chunk(hit, window)
            if first is not None:
                self.call_after_refresh(self._scroll_to_match, first)
            else:
                scroll.scroll_home(animate=False)
        self._shown = key

    def _scroll_to_match(self, block: MarkdownBlock, again: bool = True) -> None:
        """Scroll the chunk's first block to the top; once more after the next refresh, when the
        scrollbar this note brings has re-wrapped the text (otherwise the position depends on
        which layout the first call saw)."""
        if not block.is_attached:
            return  # another hit is shown by now
        self.query_one("#reader-scroll", VerticalScroll).scroll_to_widget(block, top=True, animate=False)
        if again:
            self.call_after_refresh(self._scroll_to_match, block, False)

    def _mark_chunk(self, hit: Hit, window: NoteWindow) -> MarkdownBlock | None:
        """Mark the top-level blocks of the chunk; return the first."""
        lo = hit.start_line - window.first_line
        hi = hit.end_line - window.first_line
        first = None
        for block in self.markdown.children:
            if not isinstance(block, MarkdownBlock):
                continue
            start, end = block.source_range
            inside = start <= hi and end > lo
            block.set_class(inside, "-match")
            if inside and first is None:
                first = block
        return first
