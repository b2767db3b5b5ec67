"""The prose of a note: the words a reader reads as running text, line by line.

What is not prose is found by markdown-it's tokens, not by patterns over raw lines: code
(fenced, indented, and inline code spans), HTML, Markdown links and images whole (their text
and their URL), autolinks, a heading's ``#`` marks (they are markup, not text), and a
backslash-escaped ``\\#``. Two things CommonMark does not know are taken out after it: Obsidian's
``[[wikilinks]]`` and ``![[embeds]]``, and bare URLs (``https://x/#part``). Each is replaced by
``GAP``, a character that is neither a word character nor a space, so words on either side never
join and a pattern anchored on a space does not match across it.

Used where a rule concerns what the note *says*: inline ``#tags`` (``facets``) and unlinked
mentions (``search.graph``). A long note is parsed a window of top-level blocks at a time (as
``core.markdown.scan`` does), and only the blocks that ``want`` accepts are parsed inline.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator

from ..markdown import WIKILINK, WINDOW_CHARS, Structure, scan, split_lines

GAP = "\x00"
_URL = re.compile(r"(?:\b[A-Za-z][A-Za-z0-9+.-]*://|\bwww\.)[^\s<>]*")


@functools.cache
def _parser(inline: bool):
    """markdown-it: blocks only (an ``inline`` token keeps its source), or the inline rules."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark")
    # text_join would merge an escape (``\\#``) into the text around it
    return md.disable("text_join") if inline else md.disable("inline")


def prose_lines(text: str, want: Callable[[str], object] | None = None,
                structure: Structure | None = None) -> Iterator[tuple[int, str]]:
    """(0-based line of ``text``, that line's prose) for every line of a paragraph or a heading
    (in lists, quotes and tables too); only for blocks whose inline source ``want`` accepts
    (a true value: ``pattern.search`` will do).
    ``text``'s newlines are normalised; ``structure``: its ``scan``, when the caller has it."""
    for start, source in _inline_sources(text, structure):
        if want is None or want(source):
            for row, line in enumerate(inline_prose(source).split("\n")):
                yield start + row, line


# Without these, a block's inline source holds no code span, link, image, HTML, autolink,
# escape, entity, wikilink or URL: it is its own prose (emphasis marks do not hide words), and
# most blocks of most notes skip the inline parse.
_MARKUP = re.compile(r"[`\[<\\&]|://|www\.")


def inline_prose(source: str) -> str:
    """One block's inline source as prose, one line per source line (see the module)."""
    if _MARKUP.search(source) is None:
        return source
    children = _parser(True).parseInline(source)[0].children or []
    parts: list[str] = []
    depth = 0  # inside a Markdown link: its text is the link's, not prose
    for tok in children:
        kind = tok.type
        if kind in ("softbreak", "hardbreak"):
            parts.append("\n")
        elif kind == "link_open":
            depth += 1
            parts.append(GAP)
        elif kind == "link_close":
            depth -= 1
        elif depth:
            continue
        elif kind == "text":
            parts.append(tok.content)
        elif kind == "text_special":  # an escape (``\\#`` is no tag) or an entity (``&amp;``)
            parts.append(GAP if tok.info == "escape" else tok.content)
        else:  # code_inline, image, html_inline
            parts.append(GAP)
    text = "".join(parts)
    if "[[" in text:
        text = WIKILINK.sub(GAP, text)  # the engine's one wikilink grammar
    if "/" in text or "www." in text:
        text = _URL.sub(GAP, text)
    return text


def _inline_sources(text: str, structure: Structure | None) -> Iterator[tuple[int, str]]:
    """(0-based line, inline source) of every block holding inline text, never code or HTML."""
    if len(text) <= WINDOW_CHARS:
        yield from _window(text, 0)
        return
    lines = split_lines(text)
    structure = structure if structure is not None else scan(text, lines)
    starts = sorted({b.start for b in structure.blocks if b.top} | {0}) + [len(lines)]
    first, size = 0, 0
    for a, b in zip(starts, starts[1:]):
        size += sum(len(x) + 1 for x in lines[a:b])
        if size >= WINDOW_CHARS or b == len(lines):
            yield from _window("\n".join(lines[first:b]), first)
            first, size = b, 0


def _window(text: str, offset: int) -> Iterator[tuple[int, str]]:
    for tok in _parser(False).parse(text):
        if tok.type == "inline" and tok.map is not None:
            yield offset + tok.map[0], tok.content
