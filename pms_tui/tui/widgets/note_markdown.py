"""The reader's Markdown widget: Textual's Markdown with fewer widgets per list item.

Textual's Markdown mounts four widgets for every list item (a row, its bullet, a column and
the item's paragraph), and mounting, styling and laying out widgets is what following a link
costs. An item that is one paragraph (most are) gets a row holding its bullet and that
paragraph, which looks the same; other items keep Textual's column. A followed note's first
screen can be shown as one widget until its blocks are mounted (:mod:`.first_screen`).
A fence whose info string names no language is plain text, and one wider than the reader shows
a scrollbar under it (:class:`NoteFence`). Obsidian's syntax (:mod:`.obsidian`): wikilinks and
embeds, callouts (:class:`NoteQuote`, folded ones open with a click), tables with their columns'
alignment and links in their cells (:class:`NoteTable`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from markdown_it import MarkdownIt
from markdown_it.token import Token
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.events import Click, Mount
from textual.layout import Layout
from textual.layouts.grid import GridLayout
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Markdown, Static
from textual.widgets.markdown import MarkdownBlock, MarkdownFence

from .first_screen import FirstScreen
from .obsidian import CALLOUT_FAMILIES, ReaderLinks, callout_family, callout_heading, note_parser

if TYPE_CHECKING:
    from textual.widgets.markdown import MarkdownBlock as BulletList
    from textual.widgets.markdown import MarkdownBlock as OrderedList
else:  # Textual's list blocks, public through Markdown.BLOCKS (the module defining them is private)
    BulletList = Markdown.BLOCKS["bullet_list_open"]
    OrderedList = Markdown.BLOCKS["ordered_list_open"]
Paragraph = Markdown.BLOCKS["paragraph_open"]
OrderedListItem = Markdown.BLOCKS["list_item_ordered_open"]
ListItems = (OrderedListItem, Markdown.BLOCKS["list_item_unordered_open"])


class ItemRow(Horizontal):
    """A list item of one paragraph: its bullet beside it."""

    DEFAULT_CSS = """
    ItemRow { height: auto; width: 1fr; }
    ItemRow > MarkdownParagraph { width: 1fr; }
    """


class ItemBullet(Widget):
    """A list item's bullet or number, as Textual's Markdown draws it."""

    DEFAULT_CSS = """
    ItemBullet {
        width: auto;
        color: $text-primary;
        &:light {
            color: $text-secondary;
        }
    }
    """

    symbol = reactive("")

    def __init__(self, symbol: str) -> None:
        super().__init__()
        self.symbol = symbol

    def get_selection(self, _selection) -> tuple[str, str] | None:
        return self.symbol, " "

    def render(self) -> Content:
        return Content(self.symbol)


def _children(block: MarkdownBlock) -> list[MarkdownBlock]:
    """A block's child blocks, taken out of it (MarkdownBlock's own compose hands them over)."""
    return [b for b in MarkdownBlock.compose(block) if isinstance(b, MarkdownBlock)]


def _bullet(item: MarkdownBlock) -> str:
    return str(getattr(item, "bullet", ""))  # (MarkdownListItem's, given when it is made)


def _rows(items: Iterable[tuple[MarkdownBlock, str]]) -> ComposeResult:
    for item, symbol in items:
        bullet = ItemBullet(symbol)
        blocks = _children(item)
        if len(blocks) == 1 and type(blocks[0]) is Paragraph:
            yield ItemRow(bullet, blocks[0])
        else:
            yield Horizontal(bullet, Vertical(*blocks))


class LightBulletList(BulletList):
    def compose(self) -> ComposeResult:
        yield from _rows((b, _bullet(b)) for b in _children(self) if isinstance(b, ListItems))


class LightOrderedList(OrderedList):
    def compose(self) -> ComposeResult:  # numbered as Textual numbers them
        items = [b for b in _children(self) if isinstance(b, ListItems)]
        start = 1
        if items and isinstance(items[0], OrderedListItem):
            try:
                start = int(_bullet(items[0]))
            except ValueError:
                pass
        width = max((len(f"{n}. ") for n in range(start, start + len(items))), default=0)
        yield from _rows((b, f"{n}. ".rjust(width + 1)) for n, b in enumerate(items, start))


class NoteFence(MarkdownFence):
    """A fence highlighted in the language its info string names, and one that names none shown
    as plain text, as GitHub and Obsidian show it (and as the first screen does). Textual's
    guesses the language with Pygments' guess_lexer, which imports every lexer the first time
    (on the UI thread, right after the app's first paint when the first note shown had such a
    fence, guessed as "text" anyway) and asks each of them to rate the code, every
    fence after that."""

    DEFAULT_CSS = """
    NoteFence {
        overflow-x: auto;
        scrollbar-size-horizontal: 1;
    }
    """

    @classmethod
    def highlight(cls, code: str, language: str, ansi: bool = False, dark: bool = False):
        return super().highlight(code, language or "text", ansi=ansi, dark=dark)


class CalloutTitle(Static):
    """A callout's first line: its type's icon and name, its title; a click folds or unfolds a
    foldable one."""

    DEFAULT_CSS = "CalloutTitle { height: auto; width: 1fr; text-style: bold; }"

    def __init__(self, kind: str, title: Content, fold: str) -> None:
        self.kind, self.title_text, self.fold = kind, title, fold
        super().__init__(classes="callout-title")

    def label(self, folded: bool) -> Content:
        return callout_heading(self.kind, self.fold, folded, self.title_text)

    async def action_link(self, href: str) -> None:
        """A link in the title is followed as the reader's."""
        self.post_message(Markdown.LinkClicked(self.query_ancestor(Markdown), href))

    def on_click(self, event: Click) -> None:
        if self.fold and isinstance(self.parent, NoteQuote):
            event.stop()
            self.parent.folded = not self.parent.folded


def _callout_css() -> str:
    """Each callout family's colours (see obsidian.CALLOUT_FAMILIES)."""
    return "\n".join(f"NoteQuote.-callout-{family} {{ border-left: outer {border}; "
                     f"& > CalloutTitle {{ color: {title}; }} }}"
                     for family, (_, border, title, _) in CALLOUT_FAMILIES.items())


class NoteQuote(MarkdownBlock):
    """A blockquote as Textual draws one, or an Obsidian callout: a title line (its type's icon,
    name and colour: obsidian.CALLOUT_FAMILIES) over its body; ``[!type]-`` folded until its title is clicked,
    ``[!type]+`` open and foldable."""

    DEFAULT_CSS = """
    NoteQuote {
        background: $boost;
        border-left: outer $text-primary 50%;
        margin: 1 0;
        padding: 0 1;
    }
    NoteQuote:light {
        border-left: outer $text-secondary;
    }
    NoteQuote > .callout-body { height: auto; }
    """ + _callout_css()

    def __init__(self, markdown: Markdown, token: Token, *args, **kwargs) -> None:
        super().__init__(markdown, token, *args, **kwargs)
        meta = token.meta or {}
        self.callout: str | None = meta.get("callout")
        self.fold: str = meta.get("fold", "")
        self._folded = self.fold == "-"
        self._title: Content | None = None
        if self.callout is not None:
            self.add_class("-callout", f"-callout-{callout_family(self.callout)}")

    def set_content(self, content: Content) -> None:
        self._title = content  # a callout's title (see obsidian._callouts), its inline token's text

    @property
    def folded(self) -> bool:
        """Whether the callout's body is hidden."""
        return self._folded

    @folded.setter
    def folded(self, folded: bool) -> None:
        self._folded = folded
        for title in self.query_children(CalloutTitle):
            title.update(title.label(folded))
        for body in self.query_children(".callout-body"):
            body.display = not folded

    def compose(self) -> ComposeResult:
        if self.callout is None:
            yield from super().compose()
            return
        title = CalloutTitle(self.callout, self._title or Content(self.callout.capitalize()), self.fold)
        title.update(title.label(self._folded))
        yield title
        body = Vertical(*_children(self), classes="callout-body")
        body.display = not self._folded
        yield body


class TableCell(Static):
    """A table cell whose links are followed as the reader's."""

    async def action_link(self, href: str) -> None:
        self.post_message(Markdown.LinkClicked(self.query_ancestor(Markdown), href))


class NoteTableCell(MarkdownBlock):
    """A header or data cell's text, and its column's alignment (``:-:``, ``-:``)."""

    def __init__(self, markdown: Markdown, token: Token, *args, **kwargs) -> None:
        super().__init__(markdown, token, *args, **kwargs)
        style = str((token.attrs or {}).get("style", ""))
        self.align = style.partition("text-align:")[2].strip() or "left"
        self.text = Content()

    def set_content(self, content: Content) -> None:
        self.text = content  # (never shown itself: NoteTable shows it in a TableCell)


class NoteTableGrid(Widget):
    """The cells of a table in a grid, as Textual's Markdown lays a table out."""

    DEFAULT_CSS = """
    NoteTableGrid {
        width: 1fr;
        height: auto;
        layout: grid;
        grid-columns: auto;
        grid-rows: auto;
        grid-gutter: 1 1;

        & > .cell {
            margin: 0 0;
            height: auto;
            padding: 0 1;
            text-overflow: ellipsis;
        }
        & > .header {
            height: auto;
            margin: 0 0;
            padding: 0 1;
            color: $primary;
            text-overflow: ellipsis;
            content-align: left bottom;
        }
        keyline: thin $foreground 20%;
    }
    """

    def __init__(self, columns: int, cells: list[TableCell]) -> None:
        super().__init__()
        self.columns = columns
        self.cells = cells
        self.shrink = True

    def pre_layout(self, layout: Layout) -> None:
        if isinstance(layout, GridLayout):
            layout.auto_minimum = True
            layout.expand = not (self.parent is not None and self.parent.styles.is_auto_width)
            layout.shrink = True
            layout.stretch_height = True

    def compose(self) -> ComposeResult:
        yield from self.cells

    def on_mount(self) -> None:
        self.styles.grid_size_columns = self.columns


class NoteTable(MarkdownBlock):
    """A table as Textual's Markdown shows it, its columns aligned as written and its wikilinks,
    embeds and Markdown links live in their cells."""

    DEFAULT_CSS = """
    NoteTable {
        width: 1fr;
        margin-bottom: 1;
        &:light {
            background: white 30%;
        }
    }
    """

    def _cells(self, block: MarkdownBlock) -> Iterator[MarkdownBlock]:
        for child in _children(block):
            if child.name == "tr_open":
                yield child
            yield from self._cells(child)
            if isinstance(child, NoteTableCell):
                yield child

    def compose(self) -> ComposeResult:
        headers: list[NoteTableCell] = []
        rows: list[list[NoteTableCell]] = []
        for block in self._cells(self):
            if isinstance(block, NoteTableCell):
                if block.name == "th_open":
                    headers.append(block)
                elif rows:
                    rows[-1].append(block)
            elif block.name == "tr_open" and headers:
                rows.append([])
        rows = [row for row in rows if row]
        cells: list[TableCell] = []
        for header in headers:
            cell = TableCell(header.text, classes="header").with_tooltip(header.text)
            cell.styles.text_align = header.align  # type: ignore[assignment]
            cells.append(cell)
        for number, row in enumerate(rows, 1):
            for column, data in enumerate(row, 1):
                cell = TableCell(data.text, classes=f"row{number} cell", name=f"cell{number}.{column}")
                cell.with_tooltip(data.text)  # (Content: a note's text is never markup)
                cell.styles.text_align = data.align  # type: ignore[assignment]
                cells.append(cell)
        yield NoteTableGrid(len(headers), cells)


class NoteMarkdown(Markdown, can_focus_children=False):
    """Markdown that never takes focus from navigation, with lighter list items and fences that
    are not guessed at."""

    BLOCKS = {**Markdown.BLOCKS, "bullet_list_open": LightBulletList, "ordered_list_open": LightOrderedList,
              "fence": NoteFence, "code_block": NoteFence, "blockquote_open": NoteQuote,
              "table_open": NoteTable, "th_open": NoteTableCell, "td_open": NoteTableCell}

    def __init__(self, *args, links: ReaderLinks | None = None, lines_as_lines: bool = False, **kwargs) -> None:
        super().__init__(*args, parser_factory=self.parser, **kwargs)
        self.links = links  # the shown note's links, as the index resolved them (None: shown as written)
        self.lines_as_lines = lines_as_lines  # a document's text: each line shown as a line
        self._first_screen: FirstScreen | None = None

    def parser(self) -> MarkdownIt:
        """The parser of this widget's text (its first screen's too)."""
        return note_parser(self.links, self.lines_as_lines)

    def stand_in(self, first_screen: FirstScreen) -> None:
        """Before this is mounted: show ``first_screen`` (a screenful of the note as one
        widget, see :mod:`.first_screen`), mounted with this; :meth:`show_blocks` mounts the
        note's blocks later."""
        self._first_screen = first_screen

    @property
    def source(self) -> str:
        """The Markdown shown (the first screen's text while it stands in)."""
        return self._first_screen.text if self._first_screen is not None else super().source

    async def show_blocks(self, text: str, continued: bool = False) -> None:
        """Mount ``text``'s blocks (in place of a first screen standing in). ``continued``: more
        pieces will be appended (:meth:`append`), continuing from the start of the last block,
        which ``append`` re-parses with them; ``update`` would continue from the text's end.

        The first screen is hidden with the blocks' mounting and removed once the screen no
        longer maps it (:func:`remove_when_unmapped`): Textual's ``update`` or ``append`` would
        remove it while the screen still maps it, and a click then reached a widget with no
        parent (Textual's screen reads the clicked widget's parent to start a selection)."""
        holder = next(iter(self.query_children(FirstScreenHolder)), None)
        self._first_screen = None
        if continued or holder is not None:
            assert not super().source  # (a new widget: append starts from its first line)
            await self.append(text)  # (append leaves the holder: it is no block; update would remove it)
        else:
            await self.update(text)
        if holder is not None:
            holder.display = False
            self.call_after_refresh(remove_when_unmapped, holder)

    def compose(self) -> ComposeResult:
        if self._first_screen is not None:
            yield FirstScreenHolder(self._first_screen)

    def on_mount(self, event: Mount) -> None:
        if self._first_screen is not None:  # Textual's Markdown's would update with "" (a thread, a lock)
            event.prevent_default()

    @property
    def first_screen(self) -> FirstScreen | None:
        """The stand-in shown until the note's blocks are mounted (None once they are)."""
        holder = next(iter(self.query_children(FirstScreenHolder)), None)
        if holder is None or not holder.display:
            return None
        return next(iter(holder.query_children(FirstScreen)), None)


class FirstScreenHolder(Widget):
    """Holds a first screen in the Markdown: not a block itself, so Textual's ``append``
    leaves it where it is while the note's blocks are mounted beside it."""

    DEFAULT_CSS = "FirstScreenHolder { width: 1fr; height: auto; }"

    def __init__(self, first_screen: FirstScreen) -> None:
        super().__init__()
        self.first_screen = first_screen

    def compose(self) -> ComposeResult:
        yield self.first_screen


def remove_when_unmapped(widget: Widget) -> None:
    """Remove ``widget`` (hidden) once the screen no longer maps it, or after another refresh.

    Textual's screen finds the widget under a click in the map of its last layout; a widget
    removed before the next layout can still be found there, detached, and a click on it
    ended the app. A hidden widget leaves the map at the next layout."""
    if not widget.is_attached:
        return
    if widget.region:
        widget.call_after_refresh(remove_when_unmapped, widget)
    else:
        widget.remove()
