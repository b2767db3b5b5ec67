"""The results list: one compact, themed row per hit, with the fusion evidence."""

from __future__ import annotations

import re
from collections.abc import Sequence

from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from pms_tui.core.results import SNIPPET_CLOSE, SNIPPET_OPEN, Hit
from pms_tui.core.safe_text import one_line

from ..hit_place import page_crumb, place
from ..keys import RESULTS_BINDINGS
from ..result_rows import Row, layout

SNIPPET_LINES = 2
# The title gets the room first: the ranks in full while the title keeps TITLE_ROOM cells, else
# in short (``b#2 v#1``) while it keeps MIN_TITLE, else the score alone
TITLE_ROOM = 26
MIN_TITLE = 20


def _ranks(hit: Hit) -> tuple[str, str]:
    bm25 = f"#{hit.bm25_rank}" if hit.bm25_rank else "-"
    vec = f"#{hit.vector_rank}" if hit.vector_rank else ("…" if hit.vector_pending else "-")
    return bm25, vec


def evidence(hit: Hit) -> str:
    """``0.87  bm25 #2  vec #1``, a dash where a lane did not return the chunk, ``vec …`` while
    the chunk's vector is still in the embedding queue."""
    bm25, vec = _ranks(hit)
    return f"{hit.score:.2f}  bm25 {bm25:<3} vec {vec:<3}".rstrip()


def short_evidence(hit: Hit) -> str:
    """``0.87 b#2 v#1``: the same, for a narrow list."""
    bm25, vec = _ranks(hit)
    return f"{hit.score:.2f} b{bm25} v{vec}"


_FENCE_MARK = re.compile(r"(?:`{3,}|~{3,})[\w+-]*")
_HEADING_MARK = re.compile(r"(^|\s)#{1,6}(?=\s)")
_TABLE_RULE = re.compile(r"\|?(?:\s*:?-{2,}:?\s*\|)+(?:\s*:?-{2,}:?)?")


def plain_snippet(snippet: str) -> str:
    """A snippet without Markdown's block marks (#, fences, table rules), on one line."""
    text = _FENCE_MARK.sub(" ", snippet)
    text = _TABLE_RULE.sub(" ", text)
    text = _HEADING_MARK.sub(r"\1", text)
    return " ".join(text.split())


def marked_snippet(snippet: str) -> Content:
    """The snippet with the words between « » highlighted (the marks themselves dropped)."""
    parts: list[str | tuple[str, str]] = []
    rest = snippet
    while SNIPPET_OPEN in rest:
        before, _, tail = rest.partition(SNIPPET_OPEN)
        word, _, rest = tail.partition(SNIPPET_CLOSE)
        parts += [before, (word, "bold $text-accent underline")]
    parts.append(rest)
    return Content.assemble(*parts)


def hit_row(hit: Hit, width: int, recent: bool, more: int = 0, extra: bool = False,
            expanded: bool = False) -> Content:
    """Title and evidence, location and breadcrumb, then the snippet: one hit. A note row says
    how many more of its passages matched; a passage shown under its note is indented."""
    if extra:
        inner = hit_row(hit, width - 2, recent)
        return Content("\n").join([Content.assemble(("↳ " if i == 0 else "  ", "$text-muted"), line)
                                   for i, line in enumerate(inner.split("\n"))])
    width = max(width, 20)
    right = Content.styled("recent" if recent else evidence(hit), "$text-muted")
    if not recent:
        score = f"{hit.score:.2f}"
        ranks = evidence(hit)[len(score):]
        if width - len(score) - len(ranks) - 2 < TITLE_ROOM:  # a narrow list: the title first
            ranks = short_evidence(hit)[len(score):]
        if width - len(score) - len(ranks) - 2 < MIN_TITLE:  # narrower still: the score alone
            ranks = ""
        right = Content.assemble((score, "bold $text-success"), (ranks, "$text-muted"))
    title_width = max(8, width - right.cell_length - 2)
    title = Content.styled(one_line(hit.title or hit.relpath), "bold").truncate(title_width, ellipsis=True, pad=True)
    first = Content.assemble(title, "  ", right)
    location = Content.styled(place(hit), "$text-primary")
    headings = page_crumb(hit)
    crumb = one_line(" › ".join(headings[1:] if headings[:1] == [hit.title] else headings))
    second = location
    if crumb:
        second = Content.assemble(location, ("  ", ""), (crumb, "$text-secondary italic"))
    second = second.truncate(width, ellipsis=True)
    snippet = marked_snippet(one_line(plain_snippet(hit.snippet))).wrap(width)
    if len(snippet) > SNIPPET_LINES:
        snippet = snippet[:SNIPPET_LINES]
        snippet[-1] = snippet[-1].truncate(width - 1) + "…"
    lines = [first, second, *snippet]
    if more:
        label = "hide" if expanded else "space to show"
        lines.append(Content.styled(f"+{more} more passage{'s' if more > 1 else ''} ({label})", "$text-accent"))
    return Content("\n").join(lines)


class ResultsList(OptionList):
    """Ranked hits; the highlighted one is announced so the reader can follow."""

    BINDINGS = [*RESULTS_BINDINGS]  # a list of Textual's wider BindingType

    DEFAULT_CSS = """
    ResultsList {
        height: 1fr;
        border: none;
        padding: 0;
        background: $surface;
        & > .option-list--option { padding: 0 1; }
        &:focus { background-tint: $foreground 3%; }
    }
    """

    class HitHighlighted(Message):
        """The highlighted hit changed (None: the list is empty)."""

        def __init__(self, hit: Hit | None) -> None:
            super().__init__()
            self.hit = hit

    class HitChosen(Message):
        """Enter was pressed on a hit."""

        def __init__(self, hit: Hit) -> None:
            super().__init__()
            self.hit = hit

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.hits: list[Hit] = []  # the passages found, best first
        self.rows: list[Row] = []  # what is listed: notes (with their extra passages) or passages
        self.view = "notes"
        self.sort = "relevance"
        self.limit: int | None = None
        self.expanded: set[tuple[str, str]] = set()
        self.recent = False
        self.weak = False  # no note matches the query well: rows dimmed
        self.empty_message = ""
        self._built_width = 0
        self._built_rows = 0  # rows with an option so far; the rest are added after the paint
        self._build_number = 0  # which rebuild the options belong to (a newer one drops the rest of an older)

    @property
    def current(self) -> Hit | None:
        row = self.current_row
        return row.hit if row is not None else None

    @property
    def current_row(self) -> Row | None:
        if self.highlighted is None or not self.rows:
            return None
        option = self.get_option_at_index(self.highlighted)
        return self.rows[int(option.id)] if option.id is not None else None

    def _row_width(self) -> int:
        width = self.scrollable_content_region.width or self.size.width or 60
        return max(20, width - 2)

    def show_hits(self, hits: Sequence[Hit], *, recent: bool = False, empty_message: str = "",
                  keep_selection: bool = False, view: str | None = None, sort: str | None = None,
                  limit: int | None = None, weak: bool = False) -> None:
        """Replace the rows and highlight the first; with ``keep_selection`` (the same query run
        again) the highlighted chunk stays highlighted where it is still listed. ``weak``: no
        note matches well, the rows are only the nearest and are shown dimmed."""
        previous = self.current if keep_selection else None
        self.hits = list(hits)
        self.weak = weak
        self.recent = recent
        self.empty_message = empty_message
        self.view = view or self.view
        self.sort = sort or self.sort
        self.limit = limit
        if not keep_selection:
            self.expanded = set()
        self._layout(previous)

    def set_layout(self, view: str, sort: str) -> None:
        """Show the same hits as notes or passages, by relevance or date."""
        self.view, self.sort = view, sort
        self._layout(self.current)

    def action_toggle_expand(self) -> None:
        """Show or hide the other matching passages of the highlighted note, in place."""
        row = self.current_row
        if row is None or self.view != "notes" or (not row.more and not row.extra):
            return
        self.expanded ^= {row.note}
        note_row = next((r for r in self.rows if r.note == row.note and not r.extra), row)
        self._layout(note_row.hit)

    def _layout(self, keep: Hit | None) -> None:
        self.rows = layout(self.hits, "passages" if self.recent else self.view, self.sort, self.expanded, self.limit)
        index = 0
        if keep is not None:
            index = next((i for i, r in enumerate(self.rows) if r.hit.chunk_id == keep.chunk_id), 0)
        self._rebuild(index if self.rows else None)
        # announce even when the index did not change (the hit under it did)
        self.post_message(self.HitHighlighted(self.rows[index].hit if self.rows else None))

    def _rebuild(self, highlight: int | None) -> None:
        """Options for the rows: first those the list can show (through the highlighted row
        and a screenful after it), the rest after that paint, so that the results on screen
        do not wait for the rows below them (building a row costs enough to be felt by the tenth)."""
        width = self._row_width()
        self._built_width = width
        self._build_number += 1
        height = self.scrollable_content_region.height
        options = self._row_options(0, width, fill=(highlight or 0, height) if height else None)
        if not self.rows and self.empty_message:
            options.append(Option(Content.styled(self.empty_message, "$text-muted"), disabled=True))
        with self.app.batch_update():
            self.clear_options()
            self.add_options(options)
            if highlight is not None:
                self.highlighted = highlight  # separators are not options: index == hit index
        if self._built_rows < len(self.rows):
            self.call_after_refresh(self._add_rest, self._build_number)
        # a scrollbar that appears with these rows narrows them without a resize event
        self.call_after_refresh(self._fit_width)

    def _row_options(self, start: int, width: int, fill: tuple[int, int] | None = None) -> list[Option | None]:
        """The options of the rows from ``start`` on, a separator after each row that a note's
        row follows. ``fill`` = (highlighted row, lines): stop once the rows after the
        highlighted one overflow that many lines (a row is at least as tall as its line breaks
        say), so that the scrollbar is there from the first paint when the whole list needs
        one (a list that gained it only with the rest would narrow, and be built again)."""
        options: list[Option | None] = []
        lines = 0
        stop = len(self.rows)
        for i in range(start, len(self.rows)):
            if fill is not None and i > fill[0] and lines >= fill[1] + 2:
                stop = i
                break
            row = self.rows[i]
            content = hit_row(row.hit, width, self.recent, row.more, row.extra, row.note in self.expanded)
            if self.weak:
                content = content.stylize("dim")
            options.append(Option(content, id=str(i)))
            if i + 1 < len(self.rows) and not self.rows[i + 1].extra:
                options.append(None)
            if fill is not None and i >= fill[0]:
                lines += content.plain.count("\n") + 2  # and the separator
        self._built_rows = stop
        return options

    def _add_rest(self, build: int) -> None:
        """The rows below the first screen (unless a newer rebuild replaced these rows)."""
        if build == self._build_number and self._built_rows < len(self.rows):
            self.add_options(self._row_options(self._built_rows, self._built_width))

    def _add_all_rows(self) -> None:
        """Every row's option now (a key that moves past the first screen)."""
        self._add_rest(self._build_number)

    def action_cursor_down(self) -> None:
        self._add_all_rows()
        super().action_cursor_down()

    def action_page_down(self) -> None:
        self._add_all_rows()
        super().action_page_down()

    def action_last(self) -> None:
        self._add_all_rows()
        super().action_last()

    def on_resize(self) -> None:
        self._fit_width()

    def on_focus(self) -> None:
        # focus draws the list's border, narrowing its rows without a resize event: rows built
        # for the wider list would wrap their last cell onto a line of their own
        self.call_after_refresh(self._fit_width)

    def on_blur(self) -> None:
        self.call_after_refresh(self._fit_width)

    def _fit_width(self) -> None:
        if self.rows and self._row_width() != self._built_width:
            self._rebuild(self.highlighted)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option.id is not None and self.rows:
            self.post_message(self.HitHighlighted(self.rows[int(event.option.id)].hit))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None and self.rows:
            self.post_message(self.HitChosen(self.rows[int(event.option.id)].hit))
