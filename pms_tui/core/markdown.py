"""The structure of a Markdown text, found once by markdown-it: blocks, headings and fenced
code, each with its line numbers. The one scanner of Markdown structure: the chunker cuts
along it, the reader uses it to keep a window of a note from cutting a fence in half.

Lines are 0-based indices into ``text.split("\\n")`` after ``\\r\\n``/``\\r`` are normalised
to ``\\n`` (as markdown-it counts them); ranges are half-open, ``[start, end)``.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token


@cache
def _parser(block_only: bool) -> MarkdownIt:
    """markdown-it, made when a note is first parsed (a search never needs it)."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark")
    return md.disable("inline") if block_only else md


class Block(NamedTuple):
    """One block-level element: ``kind`` is markdown-it's token type without ``_open``
    (``paragraph``, ``heading``, ``fence``, ``code_block``, ``html_block``, ``bullet_list``,
    ``list_item``, ``blockquote``, ``table``, ``hr``, ...)."""

    kind: str
    start: int
    end: int
    top: bool  # at the top level (not inside a list item or a blockquote)


class Heading(NamedTuple):
    start: int
    end: int  # a setext heading spans two lines
    level: int  # 1..6
    text: str  # inline markup removed: emphasis, code ticks and links become their text


@dataclass(frozen=True, slots=True)
class Structure:
    blocks: list[Block]  # in document order, outer blocks before the blocks they hold
    headings: list[Heading]  # top-level headings only: a heading in a list item is text

    @property
    def fences(self) -> list[tuple[int, int]]:
        return [(b.start, b.end) for b in self.blocks if b.kind == "fence"]


def normalize_newlines(text: str) -> str:
    """``\\r\\n`` and lone ``\\r`` become ``\\n``; a leading BOM is dropped (line count unchanged)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


# markdown-it holds a token object per block, about 130 bytes of memory per byte of a note
# of one-line blocks (4 MB of headings: 0.5 GB): a long note is parsed a window at a time.
WINDOW_CHARS = 64_000


def scan(text: str) -> Structure:
    """Blocks and headings of ``text`` (newlines already normalised).

    Parsed in windows of about ``WINDOW_CHARS``. A window ends where its last block at the top
    level, or directly inside a top-level list or blockquote, starts: that block may go on past
    the window, so it is parsed again at the start of the next one. So a fence, a paragraph or
    a setext heading is never cut by a window; a long list or blockquote may be, between its
    items, which continue as a list of their own. A window holding a single block (one huge
    fence or line) grows until the block ends. Memory stays that of one window (markdown-it
    keeps hundreds of bytes per token), whatever the note's length."""
    if len(text) <= WINDOW_CHARS:
        return _scan_window(text, 0)[0]
    lines = text.split("\n")
    n = len(lines)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    blocks: list[Block] = []
    headings: list[Heading] = []
    first, want = 0, WINDOW_CHARS
    while first < n:
        last = bisect_right(starts, starts[first] + want) - 1  # lines [first, last) fit the window
        last = max(last, first + 1)
        window = "\n".join(lines[first:last])
        part, cuts = _scan_window(window, first)
        if last >= n:
            blocks += part.blocks
            headings += part.headings
            break
        cut = cuts[-1] if cuts else first
        if cut <= first:  # one block fills the window: widen it
            want *= 2
            continue
        # a list or quote cut between its items ends at the cut; its rest starts the next window
        blocks += [b if b.end <= cut else b._replace(end=cut) for b in part.blocks if b.start < cut]
        headings += [h for h in part.headings if h.start < cut]
        first, want = cut, WINDOW_CHARS
    return Structure(blocks, headings)


def _scan_window(text: str, offset: int) -> tuple[Structure, list[int]]:
    """Blocks and headings of one window of lines, numbered from ``offset``, and the lines
    where the window may be cut (starts of blocks at nesting level 0 or 1)."""
    env: dict = {}
    tokens = _parser(True).parse(text, env)
    n = text.count("\n") + 1
    blocks: list[Block] = []
    headings: list[Heading] = []
    cuts: list[int] = []
    add = blocks.append
    for i, tok in enumerate(tokens):
        if tok.nesting == -1 or tok.map is None or tok.type == "inline":
            continue
        start, end = tok.map
        if start >= n:
            continue
        kind = tok.type.removesuffix("_open")
        add(Block(kind, offset + start, offset + (end if end < n else n), tok.level == 0))
        if tok.level <= 1 and start > 0 and (not cuts or cuts[-1] < offset + start):
            cuts.append(offset + start)
        if kind == "heading" and tok.level == 0:
            headings.append(Heading(offset + start, offset + end, int(tok.tag[1]),
                                    plain_inline(tokens[i + 1].content, env)))
    return Structure(blocks, headings), cuts


def fence_ranges(text: str) -> list[tuple[int, int]]:
    """``[start, end)`` lines of every fenced code block (an unclosed fence runs to the end)."""
    return scan(normalize_newlines(text)).fences


def headings(text: str) -> list[Heading]:
    """The top-level headings of ``text`` with their lines, levels and plain text."""
    return scan(normalize_newlines(text)).headings


def plain_inline(source: str, env: dict | None = None) -> str:
    """Inline Markdown as plain text on one line (emphasis, code ticks, links -> their text)."""
    tokens = _parser(False).parseInline(source, env if env is not None else {})
    parts: list[str] = []
    _collect_text(tokens[0].children or [], parts)
    return " ".join("".join(parts).split())


def _collect_text(tokens: list[Token], out: list[str]) -> None:
    for tok in tokens:
        if tok.type in ("text", "text_special", "code_inline"):
            out.append(tok.content)
        elif tok.type in ("softbreak", "hardbreak"):
            out.append(" ")
        elif tok.type == "image":
            _collect_text(tok.children or [], out)
