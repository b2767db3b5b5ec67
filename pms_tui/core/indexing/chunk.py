"""Split a Markdown note into search chunks along its structure. (One module of ~500 lines on
purpose: the cut scores, the spans and the long-line windows are one algorithm with shared state.)

The document is parsed once with markdown-it (``core.markdown.scan``: block rules only;
inline parsing is run just for heading text). Every body line gets a *cut score*: the value
of starting a new chunk at that line.

    heading H1..H6        90, 80, 70, 60, 50, 40
    after a blank line    30   (paragraph / block break; ">" alone counts as blank)
    list item or block    20   (start of a block without a blank line before it)
    any other line break  10   (5 inside indented code or HTML blocks)
    not a cut point       -1   blank or ">"-only lines; lines inside a fenced code
                               block or a multi-line (setext) heading; the first
                               non-blank line after a heading (a chunk must not end
                               on a heading); lines after the last content line (a
                               trailing run of empty headings stays with the last
                               chunk)

Chunks are built greedily. From the chunk start:

1. A heading cut is taken as soon as the chunk holds at least ``target // 5`` chars of
   new non-heading content and the heading lies within ``target`` chars. Smaller
   sections are merged forward, so a heading never becomes a tiny chunk of its own.
2. Otherwise the best cut in the window ``[target // 2, target]`` (chars from the chunk
   start) wins: highest score, then the latest line.
3. If the window holds no cut point (a long fence or line straddles it), take the best
   cut before the window that leaves at least ``target // 5`` chars of new content,
   else the first cut point past the target: an oversized fence stays whole.

A chunk cut at a non-heading line starts its successor up to ``overlap_lines`` lines
(and at most ``target // 4`` chars) before its end, moved forward past blank lines and
out of fences. Line numbers are 1-based in the original file; lines are ``\\n``-split
after ``\\r\\n``/``\\r`` normalisation, exactly as markdown-it counts them. Only
top-level headings are structure: a heading inside a list item or blockquote is text.

Cuts go between lines. A prose line longer than the target (a one-line paragraph: every
BEIR abstract) stays whole in its chunk for BM25 and the reader; the model, which reads
only the first ``max_tokens`` tokens, reads it whole when it fits, else by *windows* (the
line cut at sentence ends into balanced parts of at most ``target`` chars, at spaces where a
sentence is longer, and packed again with the chunk's lines, each led by the header): the
embed text is the passage whole then its windows, joined by ``WINDOW_SEP``, and the vector is
the whole's or the windows' mean (``windows``; measured: docs/evaluation.md, "Whole
paragraphs", and research/long_queries). Fences, indented code and HTML blocks are never cut, except where a chunk
would grow past bounds: a line longer than ``MAX_CHUNK_FACTOR`` times the
target is cut by size, a block of lines longer than ``MAX_BLOCK_FACTOR`` times it (a fence of a
million lines) between lines.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Sequence
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from itertools import accumulate
from pathlib import PurePath

from ..errors import SkipFile
from ..markdown import Structure, join_lines, normalize_newlines, scan, split_lines
from .frontmatter import frontmatter_title, split_frontmatter
from .sentences import MIN_CUT_LINE, split_long_line
from .windows import join as join_windows

__all__ = ["CHUNKER_VERSION", "Chunk", "ParsedNote", "chunk_markdown", "parse_note"]

# The version of how a note becomes chunks and their embed texts: this module and what it calls
# (frontmatter.py, sentences.py, windows.py, markdown.scan). Raise it with any change that
# changes a chunk, its heading path or its embed text: each index row records the version that
# made it, and a sync re-chunks exactly the notes made by an older one (plan.py).
CHUNKER_VERSION = 1

_PATH_DEPTH = 3  # H1..H3 enter the heading path
_SCORE_NONE = -1
_SCORE_BLANK_BEFORE = 30
_SCORE_BLOCK_START = 20
_SCORE_LINE = 10
_SCORE_RAW_LINE = 5
_RAW_BLOCKS = frozenset({"code_block", "html_block"})


# A single line longer than MAX_CHUNK_FACTOR times the target (and at least MIN_CHUNK_CAP)
# characters is split by size into several chunks that share its line number.
MAX_CHUNK_FACTOR = 16
MIN_CHUNK_CAP = 16_000
# A block of many lines (a fence, indented code) stays one chunk however long, up to this many
# times the target (and at least MIN_BLOCK_CAP characters: longer than any real note's fence);
# past that (a fence of a million lines) it is cut between lines, so memory stays bounded.
MAX_BLOCK_FACTOR = 256
MIN_BLOCK_CAP = 256_000
# A note of more Markdown blocks is skipped with the reason: memory grows with the blocks (20 MB
# of bare "## h N" lines held 1,000,000 of them in 617 MB before it was skipped). 200,000
# headings with their paragraphs are 400,000; a 100,000-row table is 3 (benchmarks/big_notes.py).
MAX_NOTE_BLOCKS = 500_000
# Likewise lines, counted before anything is split (each costs ~70 bytes as a Python string):
# a fence of a million lines indexes within bounds, 5 million lines of list items would not.
MAX_NOTE_LINES = 2_000_000


@dataclass(frozen=True, slots=True)
class Chunk:
    seq: int
    start_line: int  # 1-based, original file (frontmatter lines counted)
    end_line: int  # inclusive
    heading_path: tuple[str, ...]
    text: str
    embed_text: str

    @property
    def breadcrumb(self) -> str:
        return " > ".join(self.heading_path)


@dataclass(frozen=True, slots=True)
class ParsedNote:
    title: str
    metadata: dict
    chunks: list[Chunk]
    body: str = ""  # the text after the frontmatter (the link graph reads it)
    body_offset: int = 0  # body line N (1-based) is file line N + body_offset
    structure: Structure | None = None  # the body's blocks and headings (the link graph reuses them)


def embed_header(title: str, path: tuple[str, ...]) -> str:
    """Title and breadcrumb for the model, the title said once when the H1 repeats it.

    Most notes' H1 is their title; saying it twice measurably weakened the vector lane
    (SciFact nDCG@10 0.631 -> 0.647 once said once, docs/evaluation.md).
    """
    crumb = " > ".join(path)
    if title and path and path[0].strip().casefold() == title.strip().casefold():
        return crumb
    return "\n".join(part for part in (title, crumb) if part)


# An inline image or file (``![x](data:image/png;base64,...)``) is bytes, not words: it stays in
# the note but is indexed as a short stand-in, so a 5 MB picture is not thousands of chunks of
# noise in both lanes (and a notes folder full of pasted screenshots syncs in seconds). One
# line at most (base64 without whitespace), so no line number moves.
_INLINE_DATA = re.compile(r"(data:[\w.+-]*/?[\w.+-]*(?:;[\w.+-]+=[\w.+-]+)*;base64,)[A-Za-z0-9+/=]{64,}")


def without_inline_data(text: str) -> str:
    """``text`` with every long base64 payload of a ``data:`` URI replaced by ``…``."""
    if "base64," not in text:
        return text
    return _INLINE_DATA.sub(r"\1…", text)


def chunk_markdown(
    markdown: str,
    title: str | None = None,
    target_chars: int = 1000,
    overlap_lines: int = 2,
    *,
    line_offset: int = 0,
) -> list[Chunk]:
    """Chunk a Markdown body; ``line_offset`` is added to every line number.

    ``title`` defaults to the first H1 (or ``""``); it only feeds ``embed_text``.
    """
    layout = _Layout(normalize_newlines(markdown))
    if title is None:
        title = layout.first_h1 or ""
    return _build_chunks(layout, title, target_chars, overlap_lines, line_offset)


def parse_note(
    text: str, filename: str, target_chars: int = 1000, overlap_lines: int = 2
) -> ParsedNote:
    """Frontmatter + chunks of one note. Title: frontmatter, else first H1, else file stem."""
    metadata, body, offset = split_frontmatter(text)
    layout = _Layout(body)
    title = frontmatter_title(metadata) or layout.first_h1 or PurePath(filename).stem
    chunks = _build_chunks(layout, title, target_chars, overlap_lines, offset)
    return ParsedNote(title=title, metadata=metadata, chunks=chunks, body=body, body_offset=offset,
                      structure=layout.structure)


class _Layout:
    """Per-line facts about one body, computed in a few linear passes. Flags are bytearrays
    and numbers arrays (1 to 8 bytes a line, not a list's 8 plus an int object's 28): a note
    of a million lines keeps tens of MB of them, not hundreds."""

    def __init__(self, body: str) -> None:
        body = without_inline_data(body)
        if body.count("\n") >= MAX_NOTE_LINES:
            raise SkipFile(f"too many lines ({body.count(chr(10)) + 1:,}; notes of up to {MAX_NOTE_LINES:,} "
                           "lines are indexed, the limit that keeps indexing within bounded memory)")
        lines = split_lines(body)  # in pieces, so the app's event loop runs between them
        n = len(lines)
        self.lines = lines
        self.blank = blank = bytearray(not line.strip() for line in lines)
        # cum[i]: chars of lines[:i] including their newlines; cum has n + 1 entries.
        self.cum = array("q", accumulate((len(line) + 1 for line in lines), initial=0))

        structure = self.structure = scan(body, lines, MAX_NOTE_BLOCKS)
        # skip_to[i] > 0: line i is strictly inside a fence/heading block ending at skip_to[i].
        skip_to = array("i", [0]) * n
        heading_at: dict[int, int] = {}  # first line -> level (top-level headings only)
        in_heading = bytearray(n)
        block_start = bytearray(n)
        raw_line = bytearray(n)
        whole = bytearray(n)  # in a fence, indented code or HTML block: a line is never cut inside
        path_lines: list[int] = []
        paths: list[tuple[str, ...]] = []
        stack: list[str] = [""] * _PATH_DEPTH
        self.first_h1: str | None = None

        for block in structure.blocks:
            start, end = block.start, block.end
            block_start[start] = True
            if block.kind == "fence" or (block.kind == "heading" and block.top):
                for j in range(start + 1, end):
                    skip_to[j] = end
            if block.kind == "fence" or block.kind in _RAW_BLOCKS:
                for j in range(start, min(end, n)):
                    whole[j] = True
            elif block.kind in _RAW_BLOCKS:
                for j in range(start + 1, end):
                    raw_line[j] = True
        for heading in structure.headings:
            start, level, text = heading.start, heading.level, heading.text
            heading_at[start] = level
            for j in range(start, heading.end):
                in_heading[j] = True
            if level == 1 and text and self.first_h1 is None:
                self.first_h1 = text
            if level <= _PATH_DEPTH:
                stack[level - 1] = text
                for deeper in range(level, _PATH_DEPTH):
                    stack[deeper] = ""
                path_lines.append(start)
                paths.append(tuple(t for t in stack if t))
        self.skip_to = skip_to
        self.heading_at = heading_at
        self.in_heading = in_heading
        self.prose = bytearray(not (w or h) for w, h in zip(whole, in_heading))
        self.path_lines = path_lines
        self.paths = paths

        # sub[i]: chars of non-blank, non-heading lines before line i ("real" content).
        content = bytearray(not (b or h) for b, h in zip(blank, in_heading))
        if not any(content):  # a document of headings only: let headings count
            content = bytearray(not b for b in blank)
        self.sub = array("q", accumulate((len(line) if c else 0 for line, c in zip(lines, content)), initial=0))
        last_content = content.rfind(1)

        # A line of only '>' markers is a blank line inside a blockquote: never a cut
        # point itself (markdown-it may leave a trailing one outside a quoted fence's map),
        # but a paragraph break for the line after it.
        empty = bytearray(b or not line.strip("> \t") for line, b in zip(lines, blank))
        score = array("b", [_SCORE_NONE]) * n
        prev_is_heading: int = False  # last non-blank line so far was a heading line (an in_heading byte)
        for i in range(n):
            if empty[i]:
                continue
            if skip_to[i] == 0 and not prev_is_heading and i <= last_content:
                head_level = heading_at.get(i)
                if head_level is not None:
                    score[i] = 100 - 10 * head_level
                elif i > 0 and empty[i - 1]:
                    score[i] = _SCORE_BLANK_BEFORE
                elif block_start[i]:
                    score[i] = _SCORE_BLOCK_START
                else:
                    score[i] = _SCORE_RAW_LINE if raw_line[i] else _SCORE_LINE
            prev_is_heading = in_heading[i]
        self.score = score
        self.heading_cuts = [i for i in sorted(heading_at) if score[i] >= 0]

    def path_at(self, line: int) -> tuple[str, ...]:
        k = bisect_right(self.path_lines, line)
        return self.paths[k - 1] if k else ()


def _spans(layout: _Layout, target: int, overlap: int) -> list[tuple[int, int]]:
    """Inclusive 0-based (first, last) body line of each chunk."""
    blank, cum, sub, score = layout.blank, layout.cum, layout.sub, layout.score
    heads = layout.heading_cuts
    n = len(blank)
    s = next((i for i in range(n) if not blank[i]), n)
    if s == n:
        return []
    lo, min_new, max_overlap = target // 2, max(1, target // 5), target // 4
    spans: list[tuple[int, int]] = []
    floor = s  # the previous cut; new cuts must come after it, so the loop always advances
    while True:
        base = cum[s]
        last_fit = bisect_right(cum, base + target) - 1  # last cut keeping size <= target
        cut = -1
        k = bisect_right(heads, floor)
        while k < len(heads) and heads[k] <= last_fit:
            if sub[heads[k]] - sub[floor] >= min_new:
                cut = heads[k]
                break
            k += 1
        if cut < 0 and last_fit < n:
            window = max(floor + 1, bisect_left(cum, base + lo))
            cut = _best_cut(score, window, last_fit + 1)
            if cut < 0:  # nothing in the window: best earlier cut with enough new content
                enough = max(floor + 1, bisect_left(sub, sub[floor] + min_new))
                cut = _best_cut(score, enough, window)
            if cut < 0:  # else grow past the target to the first cut point
                start = max(floor, last_fit) + 1
                cut = next((i for i in range(start, n) if score[i] >= 0), -1)
        end = cut if cut >= 0 else n
        last = end - 1
        while blank[last]:
            last -= 1
        spans.append((s, last))
        if cut < 0:
            return spans
        nxt = cut
        if overlap > 0 and cut not in layout.heading_at:
            nxt = max(last - overlap + 1, s + 1)
            while nxt < cut and (blank[nxt] or layout.skip_to[nxt] or cum[cut] - cum[nxt] > max_overlap):
                nxt = layout.skip_to[nxt] or nxt + 1
            nxt = min(nxt, cut)
        s, floor = nxt, cut


def _best_cut(score: Sequence[int], start: int, stop: int) -> int:
    """Index in [start, stop) with the highest score, latest on ties; -1 if none."""
    best, best_score = -1, _SCORE_NONE
    for i in range(start, stop):
        if score[i] >= best_score and score[i] >= 0:
            best, best_score = i, score[i]
    return best


def _build_chunks(
    layout: _Layout, title: str, target: int, overlap: int, line_offset: int
) -> list[Chunk]:
    if target <= 0:
        raise ValueError("target_chars must be positive")
    if overlap < 0:
        raise ValueError("overlap_lines must be >= 0")
    chunks: list[Chunk] = []
    limit = max(target * MAX_CHUNK_FACTOR, MIN_CHUNK_CAP)
    block_limit = max(target * MAX_BLOCK_FACTOR, MIN_BLOCK_CAP)
    prev_last, prev_cut = -1, False  # no overlap lines into or out of a span cut and packed
    for first, last in _spans(layout, target, overlap):
        cut_here = _has_long_line(layout, first, last, target)
        if first <= prev_last and (cut_here or prev_cut):
            first = prev_last + 1
            while first <= last and layout.blank[first]:
                first += 1
            if first > last:
                continue
        size = layout.cum[last + 1] - layout.cum[first] - 1  # of the span's text
        windows = [t for _, _, t in _pieces(layout, first, last, target)] if cut_here and size <= limit else []
        prev_last, prev_cut = last, cut_here
        for start, end, text in _bounded(layout.lines, first, last, size, limit, block_limit):
            path = layout.path_at(start)
            header = embed_header(title, path)
            parts = (windows or split_long_line(text, max(target, MIN_CUT_LINE))) if cut_here else []
            lead = f"{header}\n\n" if header else ""
            chunks.append(
                Chunk(
                    seq=len(chunks),
                    start_line=start + 1 + line_offset,
                    end_line=end + 1 + line_offset,
                    heading_path=path,
                    text=text,
                    embed_text=(join_windows(lead + text, [lead + part for part in parts]) if len(parts) > 1
                                else lead + text),
                )
            )
    return chunks


def _cut_by_size(text: str, limit: int):
    """``text`` cut into parts of at most ``limit`` characters, at a space or line break
    where there is one in the second half of the window (a 15 MB line of base64, a fence
    of a million lines, a paragraph without breaks): what one chunk may cost is bounded."""
    if len(text) <= limit:
        yield text
        return
    start, size = 0, len(text)
    while start < size:
        end = min(size, start + limit)
        if end < size:
            cut = max(text.rfind(" ", start + limit // 2, end), text.rfind("\n", start + limit // 2, end))
            if cut > start:
                end = cut + 1
        yield text[start:end]
        start = end


def _bounded(lines: list[str], first: int, last: int, size: int, limit: int, block_limit: int):
    """The text of lines ``first``..``last`` (``size`` characters), with what one chunk may cost
    bounded: one line too long to cut by structure or sentences (a 15 MB base64 image, a fence
    line of megabytes) cut by size into parts of ``limit``; a span of many lines longer than
    ``block_limit`` (a fence of a million lines) cut between lines, each part keeping its exact
    lines (taken from ``lines``: the span is never joined whole and split again)."""
    if first == last and size > limit:
        for part in _cut_by_size(lines[first], limit):
            yield first, last, part
    elif size > block_limit:
        yield from _cut_by_lines(lines, first, last, block_limit, limit)
    else:
        yield first, last, join_lines(lines, first, last + 1)


def _cut_by_lines(lines: list[str], first: int, last: int, block_limit: int, limit: int):
    """Lines ``first``..``last`` as parts of whole lines of at most ``block_limit`` characters;
    a line longer than ``limit`` is cut by size on its own."""
    start, size = first, -1  # the part so far: lines [start, line_no), size chars joined
    for line_no in range(first, last + 1):
        line = lines[line_no]
        if line_no > start and (size + 1 + len(line) > block_limit or len(line) > limit):
            yield start, line_no - 1, join_lines(lines, start, line_no)
            start, size = line_no, -1
        if len(line) > limit:
            for part in _cut_by_size(line, limit):
                yield line_no, line_no, part
            start, size = line_no + 1, -1
            continue
        size += len(line) + 1
    if start <= last:
        yield start, last, join_lines(lines, start, last + 1)


def _has_long_line(layout: _Layout, first: int, last: int, target: int) -> bool:
    limit = max(target, MIN_CUT_LINE)
    return any(len(layout.lines[i]) > limit and layout.prose[i] for i in range(first, last + 1))


def _pieces(layout: _Layout, first: int, last: int, target: int) -> list[tuple[int, int, str]]:
    """The model's windows of a span holding a prose line longer than ``target``: the line cut
    at sentence ends, the span's lines and parts packed again into texts of at most ``target``
    chars, so the model, which reads only the start of a text, sees every part of it. Fences,
    indented code and HTML blocks are never cut."""
    lines = layout.lines
    target = max(target, MIN_CUT_LINE)
    segments: list[tuple[int, str, bool]] = []  # (line, text, is a part of a cut line)
    for i in range(first, last + 1):
        if len(lines[i]) > target and layout.prose[i]:
            segments.extend((i, part, True) for part in split_long_line(lines[i], target))
        else:
            segments.append((i, lines[i], False))
    groups: list[list[tuple[int, str, bool]]] = []
    group: list[tuple[int, str, bool]] = []
    size = 0

    def loose(seg: tuple[int, str, bool]) -> bool:  # a heading or blank line: never a chunk's end
        return bool(layout.in_heading[seg[0]]) or not seg[1].strip()

    for seg in segments:
        if group and size + 1 + len(seg[1]) > target:
            keep = len(group)
            while keep and loose(group[keep - 1]):
                keep -= 1  # trailing headings and blanks move on with the text after them
            if keep:
                groups.append(group[:keep])
                group = group[keep:]
                while group and not group[0][1].strip():
                    group.pop(0)
                size = sum(len(text) + 1 for _, text, _ in group) - (1 if group else 0)
        if not group and not seg[1].strip():
            continue  # a chunk never starts with a blank line
        group.append(seg)
        size += len(seg[1]) + (1 if len(group) > 1 else 0)
    if group and groups and all(loose(seg) for seg in group):
        groups[-1].extend(group)  # a trailing run of headings stays with the last chunk
    elif group:
        groups.append(group)
    return [_joined(g) for g in groups]


def _joined(group: list[tuple[int, str, bool]]) -> tuple[int, int, str]:
    while len(group) > 1 and not group[-1][1].strip():
        group = group[:-1]
    text = group[0][1]
    for (prev_line, _, _), (line, part, _) in zip(group, group[1:]):
        text += (" " if line == prev_line else "\n") + part
    return group[0][0], group[-1][0], text
