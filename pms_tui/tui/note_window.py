"""The part of a note the reader renders, and the pieces it renders it in.

A long note is rendered as a window of lines around the chunk (Textual's Markdown mounts a
widget per block, so 5,000 lines at once would stall), and the window itself in pieces: first
a screenful or two from the chunk or the followed link's heading (what is shown at once), then
the lines below it and those above it, a piece at a time. Cuts fall where the Markdown of each
piece stands on its own (found by the engine's one Markdown scanner).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from pms_tui.core.errors import PmsError
from pms_tui.core.kb import KnowledgeBase, is_document_name, split_frontmatter
from pms_tui.core.markdown import normalize_newlines, scan
from pms_tui.core.results import Hit

from .hit_place import page_number
from .passage import bounded, open_fence

WINDOW_LINES = 600  # a longer note is shown as this many lines around the chunk
FIRST_LINES = 25  # lines rendered before the note is shown (from the chunk or the link's heading): ~a screen
PIECE_LINES = 80  # then the rest of the window, this many lines at a time

# A note longer than this many lines is scanned for its window's cuts only around the window
# (scanning a 20 MB note took minutes): from a line outside any fence before it.
SCAN_WHOLE_LINES = 20_000
SCAN_BEFORE_LINES = 5_000  # how far back from the window its scan may start


@dataclass
class NoteWindow:
    """The part of a note that is rendered: its Markdown and the file line of its first line."""

    markdown: str
    first_line: int  # 1-based file line of the markdown's first line
    total_lines: int
    clipped: bool
    pages: tuple[int, int, int] | None = None  # a PDF's: (first, last) page shown, and its last page


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
    if len(lines) <= SCAN_WHOLE_LINES:
        points: tuple[int, ...] | list[int] = _cut_points_of(body)
    else:
        points = _cut_points_near(lines, lo_target, min(len(lines), hi_target + budget))
    lo = max((p for p in points if p <= lo_target), default=0)
    hi = min((p for p in points if p >= hi_target), default=len(lines))
    return NoteWindow("\n".join(lines[lo:hi]), offset + lo + 1, total, True)


def _cut_points_near(lines: list[str], lo: int, hi: int) -> list[int]:
    """The cut points of ``lines[lo:hi]`` (as indices of ``lines``) in a long note: scanned from
    the last blank line outside any fence at or before ``lo`` (the fences above are followed
    line by line, which is fast), so what is code stays code; at most ``SCAN_BEFORE_LINES``
    back (inside a longer fence the scan starts at ``lo``)."""
    mark, begin = "", 0
    for i in range(lo + 1):
        if not mark and not lines[i].strip():
            begin = i
        mark = open_fence([lines[i]], mark)
    if lo - begin > SCAN_BEFORE_LINES:
        begin = lo
    return [begin + p for p in _cut_points_of("\n".join(lines[begin:hi]))]


def safe_cuts(lines: list[str]) -> list[int]:
    """Where a window may be split into pieces rendered one after the other: headings and code
    blocks' first lines, and blank lines before an unindented line (never inside a list item
    or a code block: each piece is Markdown on its own)."""
    points = _cut_points_of("\n".join(lines))
    n = len(lines)
    return [p for p in points if lines[p].strip() or (p + 1 < n and lines[p + 1][:1] not in ("", " ", "\t"))]


def pieces(window: NoteWindow, line: int) -> list[tuple[int, int]]:
    """The window split into (start, end) line ranges (0-based, of ``window.markdown``): first
    the part from file line ``line`` (the cut at or before it) about ``FIRST_LINES`` long, then
    the rest below it in ``PIECE_LINES`` steps, then what is above it (at most a quarter of the
    window and a section: see :func:`note_window`)."""
    lines = window.markdown.split("\n")
    n = len(lines)
    if n <= FIRST_LINES + FIRST_LINES // 2:  # splitting a screenful costs more than it saves
        return [(0, n)]
    cuts = safe_cuts(lines)
    at = min(max(0, line - window.first_line), n - 1)
    lo = max((p for p in cuts if p <= at), default=0)
    if at - lo > FIRST_LINES:  # a long section: start nearer the line
        lo = max((p for p in cuts if p <= at and at - p <= FIRST_LINES), default=lo)

    def end(start: int, size: int) -> int:
        return min((p for p in cuts if p >= start + size), default=n)

    hi = end(lo, FIRST_LINES)
    out = [(lo, hi)]
    while hi < n:
        out.append((hi, end(hi, PIECE_LINES)))
        hi = out[-1][1]
    if lo > 0:
        out.append((0, lo))
    return out


def max_note_bytes(kb: KnowledgeBase) -> int:
    """The largest note the reader reads: the largest the engine indexes (``max_note_mb``)."""
    return kb.settings.max_note_bytes


def read_window(hit: Hit, kb: KnowledgeBase | None = None) -> NoteWindow:
    """The window of the hit's note on disk, read by the engine (``kb``: only from inside its
    collection's folder); the indexed chunk with a note when it cannot be read. A PDF's or Word
    file's text comes from the index: it is never read as a note."""
    try:
        if kb is None:
            raise PmsError("no index is open")
        text = kb.notes.note_text(kb.notes.note(hit.id), max_bytes=max_note_bytes(kb))
    except PmsError as exc:
        if is_document_name(hit.relpath):
            return NoteWindow(bounded(hit.text), hit.start_line, hit.end_line, False)
        message = (f"> The note cannot be read from disk ({str(exc).rstrip('.')}); the indexed chunk is shown. "
                   "Sync to bring the index up to date.\n\n")
        return NoteWindow(message + bounded(hit.text), hit.start_line - message.count("\n"), hit.end_line, False)
    if not text:
        return NoteWindow(bounded(hit.text), hit.start_line, hit.end_line, False)
    window = note_window(text, hit.start_line, hit.end_line)
    if is_document_name(hit.relpath):
        window.pages = _pages(text, window)
    return window


def _pages(text: str, window: NoteWindow) -> tuple[int, int, int] | None:
    """The pages a PDF's window shows (first, last) and its last page, by the page headings
    the engine put in its text (None: a Word file, which has none)."""
    first = last = None
    end = window.first_line + window.markdown.count("\n")
    numbers: list[tuple[int, int]] = []  # (line, page)
    for n, line in enumerate(text.split("\n"), 1):
        page = page_number(line[2:]) if line.startswith("# ") else None
        if page is not None:
            numbers.append((n, page))
    if not numbers:
        return None
    for n, page in numbers:
        if n <= window.first_line or first is None and n <= end:
            first = page
        if n <= end:
            last = page
    if first is None or last is None:
        return None
    return first, last, numbers[-1][1]
