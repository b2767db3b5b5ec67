"""The first screen of a followed note as one widget, laid out as Textual's Markdown lays it out.

Textual's Markdown mounts a widget per block, per list item and per paragraph in an item, and
styling, laying out and painting each has a cost: a short note of lists of links (Obsidian
Help's Home) painted through Textual's Markdown alone took several times the reader's target
from the link chosen to its paint (benchmarks/links.py follow). This widget paints the same
screenful as one widget: the note's Markdown parsed by markdown-it (never read as markup), each
block's text made by Textual's own inline conversion (links clickable, styles as in the reader),
spaced, indented and wrapped as Textual's Markdown CSS does it. The reader swaps in the real
blocks right after the first paint (:meth:`Reader._complete`). What it cannot lay out the same way
(tables, rules, HTML) ends it: what follows appears with the real blocks.
"""

from __future__ import annotations

from markdown_it.token import Token
from markdown_it.tree import SyntaxTreeNode
from textual.content import Content
from textual.widgets.markdown import Markdown, MarkdownBlock

from ..note_window import FIRST_LINES, NoteWindow, pieces
from .obsidian import CALLOUT_FAMILIES, ReaderLinks, callout_family, callout_heading, note_parser

# Textual's Markdown CSS, as (margin top, margin bottom) of a block and its heading styles
_HEADING_MARGIN = {1: (2, 1), 2: (2, 1)}  # h3-h6: (1, 1)
_QUOTE_STYLE = "on $boost"
_QUOTE_BORDER = "$text-primary 50% on $background"  # border-left: outer $text-primary 50%
_MATCH_STYLE = "on $accent 12%"  # the reader's .-match
_MATCH_BORDER = "$accent"
_FENCE_STYLE = "rgb(210,210,210) on black 10%"
_BULLET_STYLE = "$text-primary"
_SCROLLBAR_STYLE = "on $scrollbar-background"


def parse(text: str, links: ReaderLinks | None = None, lines_as_lines: bool = False) -> SyntaxTreeNode:
    """``text``'s blocks as the reader's Markdown parses them (its links resolved through ``links``)."""
    return SyntaxTreeNode(note_parser(links, lines_as_lines).parse(text))


class Unsupported(Exception):
    """A block this widget does not lay out as Textual's Markdown does: the first screen ends there."""


class _Layout:
    """Rows of Content for blocks at a width, given Textual's inline conversion."""

    def __init__(self, inline) -> None:
        self.inline = inline  # an inline token -> Content (as Textual's MarkdownBlock makes it)
        self.consumed = 0  # top-level blocks laid out by the last stack

    def block(self, node: SyntaxTreeNode, width: int, top_level: bool, in_list: bool,
              bullets: int, marked: bool = False) -> tuple[int, int, list[Content]]:
        """(margin top, margin bottom, rows) of one block; ``bullets``: the bullet items around it."""
        kind = node.type
        width = max(1, width)  # (a reader narrower than the indents: wrapped a cell wide)
        if kind == "heading":
            level = int(node.tag[1:])
            style = (f"$markdown-h{level}-color on $markdown-h{level}-background "
                     f"$markdown-h{level}-text-style")
            rows = self._inline(node).wrap(width)
            if level == 1:  # content-align: center
                widest = max((r.cell_length for r in rows), default=0)
                rows = [r.pad_left((width - widest) // 2) for r in rows]
            if level != 3:  # h3 is width: auto; the others fill the width with their background
                rows = [r.extend_right(max(0, width - r.cell_length)) for r in rows]
            rows = [r.stylize_before(style) for r in rows]
            top, bottom = _HEADING_MARGIN.get(level, (1, 1))
            return top, bottom, rows
        if kind == "paragraph":
            return 0, (1 if top_level else 0), self._inline(node).wrap(width)
        if kind in ("bullet_list", "ordered_list"):
            return 0, (0 if in_list else 1), self._list(node, width, bullets)
        if kind == "blockquote" and (node.meta or {}).get("callout"):
            return self._callout(node, width, in_list, bullets, marked)
        if kind == "blockquote":
            # (a marked quote's border and background are the mark's: see stack)
            quoted = self.stack(node.children, width - 2 - (not marked), False, in_list, bullets)
            rows = [Content.assemble(" ", row.extend_right(max(0, width - 2 - (not marked) - row.cell_length)), " ")
                    for row in quoted]
            if not marked:
                rows = [Content.styled("▌", _QUOTE_BORDER) + row.stylize_before(_QUOTE_STYLE) for row in rows]
            return 1, 1, rows
        if kind in ("fence", "code_block"):
            # padding 1 2, scrolled sideways, never wrapped: a line wider than the reader is cut
            # at the edge, and a scrollbar under the fence says so (NoteFence)
            code = [Content(line.expandtabs(8)) for line in (node.content or "").rstrip().split("\n")]
            room = width - 2
            wide = any(line.cell_length > width - 4 for line in code)
            rows = [Content(""), *(line.truncate(room) for line in code), Content("")]
            rows = [Content.assemble("  ", r.extend_right(max(0, room - r.cell_length)))
                    .stylize_before(_FENCE_STYLE) for r in rows]
            if wide:
                rows.append(Content.styled(" " * width, _SCROLLBAR_STYLE))
            return 1, 1, rows
        raise Unsupported(kind)

    def _callout(self, node: SyntaxTreeNode, width: int, in_list: bool, bullets: int,
                 marked: bool) -> tuple[int, int, list[Content]]:
        """A callout as NoteQuote draws it: its title line over its body (none when folded)."""
        meta = node.meta or {}
        kind, fold = str(meta["callout"]), str(meta.get("fold", ""))
        _, border, colour, _ = CALLOUT_FAMILIES[callout_family(kind)]
        inner_width = width - 2 - (not marked)
        title = next((c for c in node.children if c.type == "inline"), None)
        heading = callout_heading(kind, fold, fold == "-", self.inline(title.token) if title else Content(kind))
        body = [] if fold == "-" else self.stack([c for c in node.children if c.type != "inline"],
                                                 inner_width, False, in_list, bullets)
        inner = [row.stylize_before(f"bold {colour}") for row in heading.wrap(inner_width)] + body
        rows = [Content.assemble(" ", row.extend_right(max(0, inner_width - row.cell_length)), " ")
                for row in inner]
        if not marked:
            rows = [Content.styled("▌", f"{border} on $background") + row.stylize_before(_QUOTE_STYLE)
                    for row in rows]
        return 1, 1, rows

    def _inline(self, node: SyntaxTreeNode) -> Content:
        inline = next((c for c in node.children if c.type == "inline"), None)
        return Content("") if inline is None else self.inline(inline.token)

    def _list(self, node: SyntaxTreeNode, width: int, bullets: int) -> list[Content]:
        items = [c for c in node.children if c.type == "list_item"]
        if node.type == "ordered_list":
            try:  # numbered from the first item's number, as Textual numbers them
                start = int(items[0].info) if items else 1
            except ValueError:
                start = 1
            size = max((len(f"{n}. ") for n in range(start, start + len(items))), default=0)
            symbols = [f"{n}. ".rjust(size + 1) for n in range(start, start + len(items))]
        else:
            symbols = [Markdown.BULLETS[bullets % len(Markdown.BULLETS)]] * len(items)
            bullets += 1
        rows: list[Content] = []
        for item, symbol in zip(items, symbols):
            indent = len(symbol)
            inner = self.stack(item.children, width - indent, False, True, bullets)
            for i, row in enumerate(inner or [Content("")]):
                lead = Content.styled(symbol, _BULLET_STYLE) if i == 0 else Content(" " * indent)
                rows.append(lead + row)
        return rows

    def stack(self, nodes, width: int, top_level: bool, in_list: bool, bullets: int = 0,
              marked=None, max_rows: int | None = None) -> list[Content]:
        """Blocks one under the other, margins collapsed as Textual's vertical layout collapses
        them. At the top level an unsupported block ends the stack (inside one, it ends the block's
        parent: raised)."""
        rows: list[Content] = []
        gap = None
        if top_level:
            self.consumed = 0
        for node in nodes:
            match = marked is not None and marked(node)
            try:
                top, bottom, block = self.block(node, width - match, top_level, in_list, bullets, match)
            except Unsupported:
                if top_level and rows:
                    break
                raise
            if match:
                block = [Content.styled("▌", _MATCH_BORDER)
                         + r.extend_right(max(0, width - 1 - r.cell_length)).stylize_before(_MATCH_STYLE)
                         for r in block]
            rows.extend([Content("")] * (top if gap is None else max(gap, top)))
            rows.extend(block)
            gap = bottom
            if top_level:
                self.consumed += 1
            if max_rows is not None and len(rows) >= max_rows:
                break
        if not top_level and gap:
            rows.extend([Content("")] * gap)
        return rows


class FirstScreen(MarkdownBlock):
    """A screenful of a note's Markdown as one block; clicking a link follows it as the block would."""

    DEFAULT_CSS = "FirstScreen { height: auto; }"

    def __init__(self, markdown: Markdown, text: str, from_line: int, rows: int, more: bool,
                 marked: tuple[int, int] | None = None) -> None:
        """``text``: Markdown; its blocks from the one holding 0-based line ``from_line`` are laid
        out, about ``rows`` rows of them (a screen); ``more``: the note goes on below ``text``.
        When the note will not fit the screen, the widget is taller than it, so the reader's
        scrollbar is there from the start (the text wraps as it will). ``marked``: the [start,
        end) lines of ``text`` whose top-level blocks the reader marks as the passage."""
        tree = parse(text, getattr(markdown, "links", None), getattr(markdown, "lines_as_lines", False))
        super().__init__(markdown, Token("first_screen", "", 0), (0, 0))  # (its name and class)
        self.text = text
        self.nodes = [n for n in tree.children if n.map is None or n.map[1] > from_line]
        self.rows = rows
        self.fill = more or len(self.nodes) < len(tree.children)
        self.marked = marked
        self._cache: tuple[int, list[Content]] | None = None
        self._ends = False
        self._inline = Content()

    def _inline_content(self, token: Token) -> Content:
        """An inline token's text as Textual's Markdown makes a block's (links as ``@click``
        actions of this block, the reader's inline styles): through MarkdownBlock's
        ``build_from_token``, which hands it to :meth:`set_content`."""
        self._inline = Content()
        self.build_from_token(token)
        return self._inline

    def set_content(self, content: Content) -> None:
        self._inline = content  # (shown by render, as rows)

    def _is_marked(self, node: SyntaxTreeNode) -> bool:
        return self.marked is not None and node.map is not None and \
            node.map[0] < self.marked[1] and node.map[1] > self.marked[0]

    def laid_out(self, width: int) -> list[Content]:
        """The rows at ``width`` (cells)."""
        if self._cache is None or self._cache[0] != width:
            layout = _Layout(self._inline_content)
            try:
                rows = layout.stack(self.nodes, width, True, False, marked=self._is_marked, max_rows=self.rows)
            except Unsupported:  # the first block
                rows = []
            self._ends = layout.consumed == len(self.nodes) and len(rows) < self.rows
            if layout.consumed < len(self.nodes):
                self.fill = True
            if self.fill and len(rows) <= self.rows:
                rows.extend([Content("")] * (self.rows + 1 - len(rows)))
            self._cache = (width, rows)
        return self._cache[1]

    def ends_on_screen(self, width: int) -> bool:
        """Whether the text ends before the screen does, at ``width``."""
        self.laid_out(width)
        return self._ends

    def overflows(self, width: int) -> bool:
        """Whether the note will not fit the screen, judged by this screen laid out at ``width``
        (the reader then shows its scrollbar from the start: the text wraps as it will)."""
        return len(self.laid_out(width)) > self.rows

    def get_content_height(self, container, viewport, width: int) -> int:
        return len(self.laid_out(width))

    def render(self) -> Content:
        return Content("\n").join(self.laid_out(self.content_region.width or self.size.width))


def warm_up(links: ReaderLinks | None = None) -> None:
    """What the first followed link would otherwise pay for: the Markdown scanner that splits a
    note into pieces, and the parser of its first screen."""
    window = NoteWindow("# A\n\ntext\n\n" * (FIRST_LINES // 2), 1, FIRST_LINES * 2, False)
    pieces(window, 1)
    parse("- [a](b) `c` **d**\n", links)
