"""The structure of a Markdown text, found once by markdown-it: blocks, headings and fenced
code, each with its line numbers. The one scanner of Markdown structure: the chunker cuts
along it, the reader uses it to keep a window of a note from cutting a fence in half.

Lines are 0-based indices into ``text.split("\\n")`` after ``\\r\\n``/``\\r`` are normalised
to ``\\n`` (as markdown-it counts them); ranges are half-open, ``[start, end)``.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, NamedTuple

from .errors import SkipFile

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token


@cache
def _parser(block_only: bool) -> MarkdownIt:
    """markdown-it, made when a note is first parsed (a search never needs it)."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark")
    md.core.ruler.at("normalize", _normalize)
    return md.disable("inline") if block_only else md


def _normalize(state) -> None:
    """markdown-it's own ``normalize`` rule, the same text out: its two regex passes held the
    GIL for a long time on a 20 MB line (the app's loop stalled while a big note was indexed); a
    text without ``\\r`` or NUL, all of them once ``normalize_newlines`` has run, is not copied."""
    src = state.src
    if "\r" in src:
        src = src.replace("\r\n", "\n").replace("\r", "\n")
    if "\0" in src:
        src = src.replace("\0", "\ufffd")
    state.src = src


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


# Lines are split this many characters at a time: one ``str.split`` of a 20 MB note holds the
# GIL long enough for the app's event loop (the sync runs in a thread) to stall.
SPLIT_PIECE_CHARS = 1 << 18


def split_lines(text: str) -> list[str]:
    """``text.split("\\n")``, done a piece of about ``SPLIT_PIECE_CHARS`` at a time (cut at a
    line break), so other threads run between the pieces."""
    if len(text) <= SPLIT_PIECE_CHARS:
        return text.split("\n")
    lines: list[str] = []
    start, size = 0, len(text)
    while start + SPLIT_PIECE_CHARS < size:
        end = text.find("\n", start + SPLIT_PIECE_CHARS)
        if end < 0:
            break
        lines += text[start:end].split("\n")
        start = end + 1
    lines += text[start:].split("\n")
    return lines


def join_lines(lines: Sequence[str], first: int = 0, end: int | None = None) -> str:
    """``"\\n".join(lines[first:end])``, in pieces of lines (see ``split_lines``)."""
    end = len(lines) if end is None else min(end, len(lines))
    if end - first <= 4096:
        return "\n".join(lines[first:end])
    return "\n".join(["\n".join(lines[i:min(i + 4096, end)]) for i in range(first, end, 4096)])


# markdown-it holds a token object per block, about 130 bytes of memory per byte of a note
# of one-line blocks (4 MB of headings: 0.5 GB): a long note is parsed a window at a time.
WINDOW_CHARS = 64_000
# A block longer than this (a paragraph of a million short lines) is cut at a window's end
# like a long list, rather than parsed whole: markdown-it keeps five numbers per line of a
# window (a 20 MB paragraph: hundreds of MB). Fences are not cut: their end is found directly.
MAX_WINDOW_CHARS = 1_000_000


def scan(text: str, lines: list[str] | None = None, max_blocks: int | None = None) -> Structure:
    """Blocks and headings of ``text`` (newlines already normalised).

    Parsed in windows of about ``WINDOW_CHARS``. A window ends where its last block at the top
    level, or directly inside a top-level list or blockquote, starts: that block may go on past
    the window, so it is parsed again at the start of the next one. So a fence, a paragraph or
    a setext heading is never cut by a window; a long list or blockquote may be, between its
    items, which continue as a list of their own. A window holding a single block (one huge
    line or paragraph) grows until the block ends, up to ``MAX_WINDOW_CHARS``; a longer block
    ends with its window, except a fence, whose end is found by its closing line. Memory stays
    that of one window (markdown-it keeps hundreds of bytes per token), whatever the note's
    length. ``lines``: ``text.split("\\n")``, if the caller has it. ``max_blocks``: SkipFile
    as soon as the text holds more blocks (the memory of a note grows with its blocks)."""
    if len(text) <= WINDOW_CHARS:
        return _scan_window(text, 0)[0]
    if lines is None:  # the caller may have split it already (the chunker has)
        lines = split_lines(text)
    n = len(lines)
    starts = array("q", accumulate((len(line) + 1 for line in lines), initial=0))  # 8 bytes a line
    blocks: list[Block] = []
    headings: list[Heading] = []
    first, want = 0, WINDOW_CHARS
    while first < n:
        if max_blocks is not None and len(blocks) > max_blocks:
            break
        last = bisect_right(starts, starts[first] + want) - 1  # lines [first, last) fit the window
        last = max(last, first + 1)
        window = "\n".join(lines[first:last])
        part, cuts = _scan_window(window, first)
        if last >= n:
            blocks += part.blocks
            headings += part.headings
            break
        cut = cuts[-1] if cuts else first
        if cut <= first and part.blocks and part.blocks[0].kind == "fence" and part.blocks[0].top \
                and part.blocks[0].start == first:
            # a top-level fence longer than the window: its end is its closing line (found
            # by CommonMark's rule), not a parse of a million lines of code at once
            end = _fence_end(lines, first)
            if end is not None:
                blocks.append(Block("fence", first, end, True))
                first, want = end, WINDOW_CHARS
                continue
        if cut <= first and want < MAX_WINDOW_CHARS:  # one block fills the window: widen it
            want *= 2
            continue
        if cut <= first:  # a block longer than MAX_WINDOW_CHARS: it ends with the window
            cut = last
        # a list or quote cut between its items ends at the cut; its rest starts the next window
        blocks += [b if b.end <= cut else b._replace(end=cut) for b in part.blocks if b.start < cut]
        headings += [h for h in part.headings if h.start < cut]
        first, want = cut, WINDOW_CHARS
    if max_blocks is not None and len(blocks) > max_blocks:
        raise SkipFile(f"too many Markdown blocks (over {max_blocks:,}: a list item or heading every "
                       f"few bytes; the limit keeps indexing within bounded memory)")
    return Structure(blocks, headings)


_FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})")


def _fence_end(lines: list[str], first: int) -> int | None:
    """The line after the fence opened at ``lines[first]`` closes (or the text's end, as for
    an unclosed fence); None if that line opens no fence. CommonMark: the closing line holds
    the opening's character, at least as many times, indented by at most 3 spaces, and
    nothing else but spaces and tabs."""
    opening = _FENCE_OPEN.match(lines[first])
    if opening is None:
        return None
    marks = opening.group(1)
    if marks[0] == "`" and "`" in lines[first][opening.end():]:
        return None  # a backtick in the info string: a code span, not a fence
    closing = re.compile(rf" {{0,3}}{re.escape(marks[0])}{{{len(marks)},}}[ \t]*")
    for i in range(first + 1, len(lines)):
        if closing.fullmatch(lines[i]):
            return i + 1
    return len(lines) - (lines[-1] == "")  # unclosed: to the last line (markdown-it's count)


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


# Obsidian's link syntax, read the same way by the index (``core.indexing.links``) and by the
# reader: ``[[target#anchor|label]]``, ``![[embed]]``, and a ``^block-id`` ending a block's line.
# No newline, no bracket and no code placeholder inside; at most 800 characters.
def name_key(name: str) -> str:
    """A note's name as it is looked up (a wikilink's target, an alias, ``linksto:``): any case,
    runs of spaces as one. The one key of ``note_names`` and of a link's target."""
    return " ".join(name.lower().split())


def file_name(path: str) -> str:
    """The name a file is linked by, as written: the last part of its path without ``.md`` (any
    case), spaces folded."""
    last = " ".join(path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1].split())
    return last[:-3] if last.lower().endswith(".md") else last


def file_name_key(path: str) -> str:
    """:func:`file_name` keyed as :func:`name_key`."""
    return name_key(file_name(path))


WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n\x00]{0,800}?)\]\]")
BLOCK_ID = re.compile(r"(?:^|\s)\^([A-Za-z0-9-]{1,64})\s*$")
MAX_TARGET_CHARS = 400


class WikiLink(NamedTuple):
    target: str  # the path or name as written, without its #anchor ('' = this note)
    anchor: str  # the heading (the last one of ``#H1#H2``) or ``^block`` ('' for none)
    label: str  # the alias ('' for none); an embedded file's size (``|300``) too


def wikilink_parts(inner: str) -> WikiLink | None:
    """What ``[[inner]]`` links to, as Obsidian reads it; None when it is not a link."""
    # in a table Obsidian escapes the alias' bar (``[[Note\|alias]]``); Markdown's inline
    # parser drops the backslash, a line read from the file still has it
    target, _, label = inner.replace("\\|", "|").partition("|")
    target, _, anchor = target.partition("#")
    target = target.strip().replace("\\", "/")
    anchor = anchor.strip()
    if "#" in anchor:  # [[Note#H1#H2]]: the last heading names the place
        anchor = anchor.rsplit("#", 1)[1].strip()
    if not target and not anchor:
        return None  # [[ ]] or [[|x]]: not a link
    if len(target) > MAX_TARGET_CHARS:
        return None
    return WikiLink(target, anchor[:MAX_TARGET_CHARS], label.strip()[:MAX_TARGET_CHARS])
