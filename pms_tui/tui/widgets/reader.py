"""The reader: the highlighted hit rendered as Markdown, under its breadcrumb.

Two views: the matched chunk alone, or the whole note scrolled to the chunk with the
chunk's blocks marked. A long note is rendered as a window of lines around the chunk, in
pieces (:mod:`pms_tui.tui.note_window`). The whole note's first screen is painted as one
widget (:mod:`.first_screen`) and its blocks are mounted right after that paint, then the
other pieces, a piece at a time, while the first screen is already on the screen.
"""

from __future__ import annotations

import asyncio
import gc
import os
import time
from collections.abc import Callable

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets.markdown import MarkdownBlock

from pms_tui.core.kb import is_document_name
from pms_tui.core.results import Hit
from pms_tui.core.safe_text import safe_text

from ..note_window import NoteWindow, pieces, read_window
from ..passage import bounded
from .breadcrumb import Breadcrumb
from .first_screen import FirstScreen, warm_up
from .note_markdown import NoteMarkdown, remove_when_unmapped
from .obsidian import ReaderLinks
from .reader_scroll import ReaderScroll

PLAN_HERE_BYTES = 16_000  # a note this small is read and split into pieces on the UI thread
# Python's full garbage collection (a long pause over the app's objects) is held back from a
# render until its first paint, or this long at most.
HOLD_COLLECTION_SECONDS = 1.0


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0  # (read_window says why it cannot be read)


class Reader(Vertical):
    """Breadcrumb above a scrollable Markdown view of the highlighted hit."""

    DEFAULT_CSS = """
    Reader {
        height: 1fr;
        & > VerticalScroll { height: 1fr; background: $background; }
        & NoteMarkdown { padding: 0 2 1 2; }
        & #reader-above { padding: 0 2 0 2; }
        & NoteMarkdown > .-match {
            background: $accent 12%;
            border-left: outer $accent;
        }
    }
    """

    whole_note: reactive[bool] = reactive(False, init=False)
    first_screens = True  # a whole note's first screen is painted as one widget, its blocks mounted after
    _collection_held: Timer | None  # see _hold_collection

    def __init__(self, *, empty_text: str = "", decorate: Callable[[Hit, str, int], str] | None = None,
                 links: ReaderLinks | None = None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.empty_text = empty_text
        self.hit: Hit | None = None
        self.window: NoteWindow | None = None
        self._pending: tuple[Hit | None] | None = None
        self._rendering = False
        self._shown: tuple[int | None, bool, str] | None = None
        # (hit, markdown, its first file line) -> the markdown to render: the links controller
        # makes wikilinks followable; it keeps the line count
        self.decorate = decorate
        self.links = links  # the shown note's links, for its wikilinks, embeds and Markdown links
        self.target_line: int | None = None  # the file line to scroll to once (a followed link)
        # the window's pieces still to render, and the file lines of the first line of the
        # main Markdown (the first piece and those below) and of the one above it
        self._rest: list[tuple[int, int]] = []
        self._main_first = 1
        self._above_first = 1
        self._rendered: tuple[int, int] = (0, 0)  # file lines [first, end) rendered so far
        self._generation = 0  # a new render stops the filling of the last one
        self._lock = asyncio.Lock()  # one render or one piece at a time (never a stale piece after a render)
        self._main = NoteMarkdown(self.empty_text, open_links=False, links=links)  # replaced by each render
        self._stale: list[NoteMarkdown] = []  # main Markdowns swapped out, removed once the new one is painted
        # the main Markdown's text while its first screen stands in for its blocks, and the
        # file line to scroll to once they are mounted
        self._incomplete: str | None = None
        self._incomplete_target: int | None = None
        self.complete_painted_at: float | None = None  # when a note's blocks were last painted (benchmark)
        self._collection_held = None  # the timer that ends holding back garbage collection
        # where the reader is, kept across a change of its size (a resize, a panel shown or
        # hidden re-wraps the text: the same scroll offset would show another part of the
        # note): (the file line of the block at the top, the part of it scrolled past),
        # taken at the reader's size ``_place_size``; None: at the passage
        self._place: tuple[int, float] | None = None
        self._place_size: Size | None = None

    class HitShown(Message):
        """The reader finished rendering a hit (the links controller times following a link)."""

        def __init__(self, hit: Hit | None, painted_at: float | None = None) -> None:
            super().__init__()
            self.hit = hit
            self.painted_at = painted_at  # time.perf_counter() when the screen showed it

    def whole_note_at(self, hit: Hit, line: int | None = None) -> None:
        """Show ``hit``'s whole note scrolled to it, or to the block holding file line
        ``line`` (following a link to a heading or a block)."""
        self.set_reactive(Reader.whole_note, True)
        self.target_line = line
        self.show(hit)

    def _top_blocks(self):
        """(block, first file line, end file line) of every top-level block shown, top down."""
        for widget, first in ((self.above, self._above_first), (self.markdown, self._main_first)):
            if widget is self.above and not widget.display:
                continue  # hidden: empty, or the last note's lines above (replaced when it is filled)
            for block in widget.children:
                if isinstance(block, MarkdownBlock) and not isinstance(block, FirstScreen):
                    start, end = block.source_range
                    yield block, first + start, first + end

    def _block_at(self, line: int, window: NoteWindow | None = None) -> MarkdownBlock | None:
        """The top-level block holding file line ``line`` (or the first one after it)."""
        for block, start, end in self._top_blocks():
            if end > line or start >= line:
                return block
        return None

    @property
    def source(self) -> str:
        """The Markdown shown (what is rendered so far), top down."""
        above = self.above.source if self.above.display else ""
        return above + self.markdown.source

    def _decorated(self, hit: Hit, text: str, first_line: int) -> str:
        return self.decorate(hit, text, first_line) if self.decorate is not None else text

    def on_mount(self) -> None:
        self.run_worker(lambda: warm_up(self.links), thread=True, group="reader-warm-up", exit_on_error=False)
        self.set_timer(0.5, self._warm_up_first_screen)
        self.watch(self.query_one("#reader-scroll", VerticalScroll), "scroll_y", self._scrolled, init=False)

    # -- keeping the place across a change of size -----------------------------------------------
    def _scrolled(self, _y: float) -> None:
        self.call_after_refresh(self._take_place)  # (where the blocks are once the screen shows it)

    def _take_place(self) -> None:
        scroll = self.query_one("#reader-scroll", VerticalScroll)
        if scroll.size != self._place_size:
            return  # the layout moved it, at another size: on_resize puts the place back
        self._place = self._top_place(scroll)

    def _top_place(self, scroll: VerticalScroll) -> tuple[int, float] | None:
        """(file line of the block at the top of the reader, the part of it above the top)."""
        top = scroll.content_region.y
        for block, start, _ in self._top_blocks():
            region = block.region
            if region.height and region.bottom > top:
                return start, max(0.0, (top - region.y) / region.height)
        return None

    def on_resize(self) -> None:
        self.call_after_refresh(self._keep_place_after_resize)

    def _keep_place_after_resize(self, again: bool = True) -> None:
        scroll = self.query_one("#reader-scroll", VerticalScroll)
        place = self._place
        block = None
        if place is not None:
            block = next((b for b, start, _ in self._top_blocks() if start >= place[0]), None)
        elif self.hit is not None and self.whole_note:
            block = next((b for b in self._blocks_marked()), None)
        if block is not None:
            scroll.scroll_to_widget(block, top=True, animate=False, immediate=True)
            if place is not None and place[1]:
                scroll.scroll_relative(y=int(place[1] * block.outer_size.height), animate=False, immediate=True)
        if again:  # once more when the new width's scrollbar has re-wrapped the text
            self.call_after_refresh(self._keep_place_after_resize, False)
        else:
            self._place_size = scroll.size
            self._place = place

    def _blocks_marked(self):
        return (block for block, _, _ in self._top_blocks() if block.has_class("-match"))

    def _warm_up_first_screen(self) -> None:
        """Lay out a first screen once (Textual's inline conversion, wrapping and the styles'
        parsing; a widget, so here, on the UI thread): the first followed link paid for it."""
        sample = "# A\n\n## B\n\nSee [a](b), `c`, **d**, _e_, ~~f~~.\n\n1. g\n\n- h\n\t- i\n\n> j\n\n```\nk\n```\n"
        FirstScreen(NoteMarkdown(), sample, 0, 20, False, (0, 3)).laid_out(40)

    def compose(self) -> ComposeResult:
        yield Breadcrumb(id="breadcrumb")
        with ReaderScroll(id="reader-scroll"):
            above = NoteMarkdown("", id="reader-above", open_links=False, links=self.links)
            above.display = False
            yield above
            yield self._main

    @property
    def markdown(self) -> NoteMarkdown:
        """The main Markdown: the chunk, or the note from the first piece of its window down."""
        return self._main

    async def _replace_main(self, text: str, first_screen: tuple[int, bool, tuple[int, int]] | None = None
                            ) -> NoteMarkdown:
        """Render ``text`` as the main Markdown: into a new, hidden one, then swapped for the
        old one, which is removed after the screen shows the new one (removing a long note's
        hundreds of block widgets took as long as mounting the next note's, before its first
        paint). ``first_screen``: (0-based line of ``text`` to start at, whether the note goes
        on below ``text``, the lines of ``text`` marked as the passage): show a screenful of
        it as one widget, and mount the blocks after the screen showed it (:meth:`_complete`)."""
        old = self.markdown
        scroll = self.query_one("#reader-scroll", VerticalScroll)
        new = NoteMarkdown(open_links=False, links=self.links, lines_as_lines=self._lines_as_lines())
        new.display = False  # (display, not a class: a class change restyles every block below it)
        self._incomplete = None
        stand_in = None
        if first_screen is not None:
            start, more, marked = first_screen
            rows = max(1, scroll.scrollable_content_region.height or scroll.size.height)
            stand_in = FirstScreen(new, text, start, rows, more, marked)
            width = scroll.size.width - old.styles.gutter.width
            if start and not more and stand_in.ends_on_screen(width):
                stand_in = None  # the note ends on this screen: the reader scrolls back from the line
        if stand_in is not None:
            new.stand_in(stand_in)  # mounted with it
            # the scrollbar the note will have, at once (Textual would add or remove it a frame
            # later, re-wrapping the text); until _complete
            scroll.styles.overflow_y = "scroll" if stand_in.overflows(width) else "hidden"
            self._incomplete = text
        await scroll.mount(new, after=old)
        if stand_in is None:
            await new.show_blocks(text, continued=bool(self._rest))
        with self.app.batch_update():
            old.display, new.display = False, True
            if stand_in is not None:
                scroll.scroll_to(y=0, animate=False, immediate=True, force=True)  # at once: from its top
        self._main = new
        self._stale.append(old)
        return new

    def _lines_as_lines(self) -> bool:  # a document's text (a PDF's page) is shown line by line
        return self.hit is not None and is_document_name(self.hit.relpath)

    @property
    def above(self) -> NoteMarkdown:
        """The note's lines above the first piece of its window (rendered after it)."""
        return self.query_one("#reader-above", NoteMarkdown)

    def show(self, hit: Hit | None) -> None:
        """Render ``hit`` soon; a burst of calls (holding a key down) renders only the last."""
        self._pending = (hit,)
        self._hold_collection()
        if not self._rendering:
            self._rendering = True
            self.run_worker(self._render_pending(), group="reader", exit_on_error=False)

    def _hold_collection(self) -> None:
        """No garbage collection until the render is painted: a full one took about half a
        followed link's time to its paint, at random; it runs after the paint."""
        if gc.isenabled():
            gc.disable()
            self._collection_held = self.set_timer(HOLD_COLLECTION_SECONDS, self._release_collection)

    def _release_collection(self) -> None:
        if self._collection_held is not None:
            self._collection_held.stop()
            self._collection_held = None
            gc.enable()

    def refresh_view(self) -> None:
        """Render the current hit again (after the note changed on disk): the one asked for
        last, if it is still to be rendered (rendering the one shown instead left the reader on
        a passage the results no longer highlighted)."""
        self._shown = None
        self.show(self._pending[0] if self._pending is not None else self.hit)

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
        self._generation += 1  # a piece being added finishes; no other follows
        async with self._lock:
            await self._show_hit_now(hit)

    async def _show_hit_now(self, hit: Hit | None) -> None:
        key = (hit.chunk_id if hit else None, self.whole_note, hit.text if hit else "")
        self.hit = hit
        self.query_one("#reader-scroll", ReaderScroll).went = None
        if key == self._shown and (self.target_line is None or self._rendered[0] <= self.target_line
                                   < self._rendered[1] or not self._rest):
            if self.target_line is not None and self._incomplete is not None:  # its blocks are yet to come
                self._incomplete_target, self.target_line = self.target_line, None
            elif self.target_line is not None and self.window is not None:  # another place in the note shown
                block = self._block_at(self.target_line)
                self.target_line = None
                if block is not None:
                    self._scroll_to_match(block)
                self._shown_then_fill(hit)
            return
        self._place = None  # at the passage, until the reader is scrolled
        planned, whole = None, self.whole_note  # (a toggle meanwhile renders again after this)
        if hit is not None and whole:
            # reading and scanning a long note happens off the UI thread, before the batch
            # below (which holds back every repaint of the screen until it ends); a small one
            # here (the hop to a thread and back costs more than reading it, on a loaded machine)
            line = self.target_line or hit.start_line
            kb = getattr(self.app, "kb", None)  # a PDF's or Word file's text is in the index
            if _size(hit.path) <= PLAN_HERE_BYTES:
                planned = self._plan(hit, line, kb)
            else:
                planned = await asyncio.to_thread(self._plan, hit, line, kb)
        with self.app.batch_update():  # one layout when it is all in place, none while it is built
            self._rest = []
            breadcrumb = self.query_one(Breadcrumb)
            scroll = self.query_one("#reader-scroll", VerticalScroll)
            scroll.styles.clear_rule("overflow_y")  # a first screen's scrollbar (see _replace_main)
            self.above.display = False  # its blocks stay hidden until the next note's lines above replace them
            self.above.lines_as_lines = self._lines_as_lines()
            if hit is None:
                self.window = None
                breadcrumb.show_hit(None, self.whole_note)
                await self._replace_main(self.empty_text)
            elif planned is None:
                self.window = None
                breadcrumb.show_hit(hit, False)
                await self._replace_main(safe_text(self._decorated(hit, bounded(hit.text), hit.start_line)))
                scroll.scroll_home(animate=False)
            else:
                window, parts = planned
                self.window = window
                breadcrumb.show_hit(hit, True, window)
                (lo, hi), self._rest = parts[0], parts[1:]
                self._main_first = self._above_first = window.first_line + lo
                self._rendered = (self._main_first, window.first_line + hi)
                text = self._piece(hit, window, lo, hi)
                first_screen = None
                if self.first_screens:
                    at = (self.target_line or hit.start_line) - self._main_first
                    marked = (hit.start_line - self._main_first, hit.end_line - self._main_first + 1)
                    first_screen = (max(0, at), any(start >= hi for start, _ in self._rest), marked)
                await self._replace_main(text, first_screen)
                if self._incomplete is not None:  # its first screen is shown; _complete mounts its blocks
                    self._incomplete_target, self.target_line = self.target_line, None
                    self._shown = key
                    self._shown_then_fill(hit)
                    return
                first = self._mark_chunk(hit, window)
                if self.target_line is not None:
                    first = self._block_at(self.target_line) or first
                    self.target_line = None
                if first is not None:
                    self.call_after_refresh(self._scroll_to_match, first)
                else:
                    scroll.scroll_home(animate=False)
        self._shown = key
        self._shown_then_fill(hit)

    def _shown_then_fill(self, hit: Hit | None) -> None:
        """Once the screen shows what was rendered: say so (HitShown), then render the rest of
        the window (the pieces would otherwise be laid out before the first one is painted)."""
        generation = self._generation

        def after_paint() -> None:
            now = time.perf_counter()
            self.post_message(self.HitShown(hit, now))
            if self._incomplete is None:  # the blocks were painted (no first screen stood in)
                self.complete_painted_at = now
            self._release_collection()
            stale, self._stale = self._stale, []
            for widget in stale:
                remove_when_unmapped(widget)
            if (self._rest or self._incomplete is not None) and generation == self._generation:
                self.run_worker(self._fill(generation), group="reader-fill", exit_on_error=False)

        self.call_after_refresh(after_paint)

    @staticmethod
    def _plan(hit: Hit, line: int, kb=None) -> tuple[NoteWindow, list[tuple[int, int]]]:
        window = read_window(hit, kb)
        return window, pieces(window, line)

    def _piece(self, hit: Hit, window: NoteWindow, lo: int, hi: int) -> str:
        text = "\n".join(window.markdown.split("\n")[lo:hi]) + "\n"
        return safe_text(self._decorated(hit, text, window.first_line + lo))

    async def _fill(self, generation: int) -> None:
        """Render the rest of the window, a piece at a time: below the first piece, then above
        it (keeping what is on the screen where it is)."""
        scroll = self.query_one("#reader-scroll", ReaderScroll)
        if self._incomplete is not None:
            await self._complete(generation)
        while True:
            await asyncio.sleep(0)  # keys first
            async with self._lock:
                hit, window = self.hit, self.window
                if generation != self._generation or not self._rest or hit is None or window is None:
                    return
                (lo, hi), self._rest = self._rest[0], self._rest[1:]
                text = self._piece(hit, window, lo, hi)
                if window.first_line + lo >= self._rendered[1]:  # below
                    await self.markdown.append(text)
                    self._rendered = (self._rendered[0], window.first_line + hi)
                    if scroll.went == "end":
                        self.call_after_refresh(scroll.keep_end)
                else:  # above: the lines above the first piece, in their own Markdown
                    above = self.above
                    height, y = 0, scroll.scroll_y  # hidden until now
                    self._above_first = window.first_line + lo
                    await above.update(text)  # (replacing what the last note left in it, hidden)
                    above.display = True
                    self._rendered = (self._above_first, self._rendered[1])
                    self.call_after_refresh(self._keep_place, y, height)
                self._mark_chunk(hit, window)

    async def _complete(self, generation: int) -> None:
        """Mount the blocks of the note whose first screen stands in for them, in one batch,
        and scroll to the target (as far below it as the reader has scrolled meanwhile)."""
        await asyncio.sleep(0)  # keys first
        async with self._lock:
            text, self._incomplete = self._incomplete, None
            hit, window = self.hit, self.window
            if generation != self._generation or text is None or hit is None or window is None:
                return
            scroll = self.query_one("#reader-scroll", VerticalScroll)
            markdown = self.markdown
            below = scroll.scroll_y
            with self.app.batch_update():
                scroll.styles.clear_rule("overflow_y")
                await markdown.show_blocks(text, continued=bool(self._rest))
                first = self._mark_chunk(hit, window)
                target, self._incomplete_target = self._incomplete_target, None
                if target is not None:
                    first = self._block_at(target) or first
                scroll_went = self.query_one("#reader-scroll", ReaderScroll)
                if scroll_went.went is not None:
                    self.call_after_refresh(scroll_went.keep_end)
                elif first is not None and first is not self._first_block():
                    self.call_after_refresh(self._scroll_to_match, first, True, below)

        def painted() -> None:
            self.complete_painted_at = time.perf_counter()

        self.call_after_refresh(painted)

    def _first_block(self) -> MarkdownBlock | None:
        return next((block for block, _, _ in self._top_blocks()), None)

    def _keep_place(self, y: float, height: int) -> None:
        """Lines were added above the screen: scroll down by their height (or to the top or
        the end, where the person went)."""
        grown = self.above.outer_size.height - height
        scroll = self.query_one("#reader-scroll", ReaderScroll)
        if not scroll.keep_end() and grown:
            scroll.scroll_to(y=y + grown, animate=False)

    def _scroll_to_match(self, block: MarkdownBlock, again: bool = True, below: float = 0) -> None:
        """Scroll the chunk's first block to the top (and ``below`` rows further); once more
        after the next refresh, when the scrollbar this note brings has re-wrapped the text
        (otherwise the position depends on which layout the first call saw)."""
        if not block.is_attached:
            return  # another hit is shown by now
        scroll = self.query_one("#reader-scroll", ReaderScroll)
        if scroll.went is not None:
            return  # the person went to the top or the end meanwhile
        scroll.scroll_to_widget(block, top=True, animate=False)
        if below:
            scroll.scroll_relative(y=below, animate=False)
        if again:
            self.call_after_refresh(self._scroll_to_match, block, False, below)

    def _mark_chunk(self, hit: Hit, window: NoteWindow) -> MarkdownBlock | None:
        """Mark the top-level blocks of the chunk; return the first."""
        first = None
        for block, start, end in self._top_blocks():
            inside = start <= hit.end_line and end > hit.start_line
            block.set_class(inside, "-match")
            if inside and first is None:
                first = block
        return first
