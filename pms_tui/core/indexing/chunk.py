"""Split a Markdown note into search chunks along its structure.

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
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from itertools import accumulate
from pathlib import PurePath

from ..markdown import normalize_newlines, scan
from .frontmatter import frontmatter_title, split_frontmatter

__all__ = ["Chunk", "ParsedNote", "chunk_markdown", "parse_note"]

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


def embed_header(title: str, path: tuple[str, ...]) -> str:
    """Title and breadcrumb for the model, the title said once when the H1 repeats it.

    Most notes' H1 is their title; saying it twice measurably weakened the vector lane
    (SciFact nDCG@10 0.631 -> 0.647 once said once, docs/evaluation.md).
    """
    crumb = " > ".join(path)
    if title and path and path[0].strip().casefold() == title.strip().casefold():
        return crumb
    return "\n".join(part for part in (title, crumb) if part)


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
    return ParsedNote(title=title, metadata=metadata, chunks=chunks)


class _Layout:
    """Per-line facts about one body, computed in a few linear passes."""

    def __init__(self, body: str) -> None:
        lines = body.split("\n")
        n = len(lines)
        self.lines = lines
        self.blank = blank = [not line.strip() for line in lines]
        # cum[i]: chars of lines[:i] including their newlines; cum has n + 1 entries.
        self.cum = [0, *accumulate(len(line) + 1 for line in lines)]

        structure = scan(body)
        # skip_to[i] > 0: line i is strictly inside a fence/heading block ending at skip_to[i].
        skip_to = [0] * n
        heading_at: dict[int, int] = {}  # first line -> level (top-level headings only)
        in_heading = [False] * n
        block_start = [False] * n
        raw_line = [False] * n
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
        self.path_lines = path_lines
        self.paths = paths

        # sub[i]: chars of non-blank, non-heading lines before line i ("real" content).
        content = [not (b or h) for b, h in zip(blank, in_heading)]
        if not any(content):  # a document of headings only: let headings count
            content = [not b for b in blank]
        self.sub = [0, *accumulate(len(line) if c else 0 for line, c in zip(lines, content))]
        last_content = max((i for i in range(n) if content[i]), default=-1)

        # A line of only '>' markers is a blank line inside a blockquote: never a cut
        # point itself (markdown-it may leave a trailing one outside a quoted fence's map),
        # but a paragraph break for the line after it.
        empty = [b or not line.strip("> \t") for line, b in zip(lines, blank)]
        score = [_SCORE_NONE] * n
        prev_is_heading = False  # last non-blank line so far was a heading line
        for i in range(n):
            if empty[i]:
                continue
            if skip_to[i] == 0 and not prev_is_heading and i <= last_content:
                level = heading_at.get(i)
                if level is not None:
                    score[i] = 100 - 10 * level
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


def _best_cut(score: list[int], start: int, stop: int) -> int:
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
    lines = layout.lines
    limit = max(target * MAX_CHUNK_FACTOR, MIN_CHUNK_CAP)
    for first, last in _spans(layout, target, overlap):
        path = layout.path_at(first)
        header = embed_header(title, path)
        whole = "\n".join(lines[first : last + 1])
        # one line too long to cut by structure (a 15 MB base64 image) is cut by size; a span
        # of many lines stays whole (chunks keep their exact lines)
        for text in _pieces(whole, limit) if first == last else (whole,):
            chunks.append(
                Chunk(
                    seq=len(chunks),
                    start_line=first + 1 + line_offset,
                    end_line=last + 1 + line_offset,
                    heading_path=path,
                    text=text,
                    embed_text=f"{header}\n\n{text}" if header else text,
                )
            )
    return chunks


def _pieces(text: str, limit: int):
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
