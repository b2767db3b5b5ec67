"""What of a passage the reader renders: its head, bounded, whatever the passage's size.

A passage of a big note can be 256 KB (a part of a fence of a million lines: 13,000 lines) or
16,000 characters on one line. Textual's Markdown lays out and renders every line of a code
block at once (a fence of thousands of lines took seconds to render and as long again to
lay out, twice per hit shown, on the event loop), so the reader shows the first ``MAX_LINES`` lines /
``MAX_CHARS`` characters and says what it left out; copying the chunk still copies all of it.
"""

from __future__ import annotations

import re

__all__ = ["MAX_CHARS", "MAX_LINES", "bounded", "open_fence"]

MAX_LINES = 200  # a few screens of the reader
MAX_CHARS = 20_000  # a whole-paragraph passage (up to 16,000 characters on one line) fits
# A fence's opening or closing line (CommonMark: up to 3 spaces, then 3+ backticks or tildes).
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")


def bounded(text: str, max_lines: int = MAX_LINES, max_chars: int = MAX_CHARS) -> str:
    """``text`` itself when it is small; else its first lines (at most ``max_lines`` and
    ``max_chars``; a single longer line cut at a space), a fence left open there closed, and
    one line saying how much of the passage follows. The lines kept keep their numbers."""
    if len(text) <= max_chars and text.count("\n") < max_lines:
        return text
    head = text[:max_chars]
    lines = head.split("\n", max_lines)
    cut_line = False
    if len(lines) > max_lines:
        del lines[max_lines:]  # the line cap came first: every line kept is whole
    elif len(head) < len(text) and text[len(head)] != "\n":  # the char cap cut the last line
        if len(lines) > 1:
            lines.pop()
        else:  # one long line: cut at a space
            space = head.rfind(" ", max_chars // 2)
            lines, cut_line = [head[:space] if space > 0 else head], True
    shown = "\n".join(lines)
    fence = open_fence(lines)
    rest = len(text) - len(shown)
    rest_lines = text.count("\n", len(shown)) - text.endswith("\n")
    more = " and ".join((["the rest of this line"] if cut_line else [])
                        + ([f"{rest_lines:,} more line{'s' if rest_lines != 1 else ''}"] if rest_lines > 0 else []))
    note = (f"*… {more} of this passage ({_size(rest)} in all) not shown here: open the note in your "
            "editor to read them, or copy the chunk.*")
    return shown + (f"\n{fence}" if fence else "") + "\n\n" + note + "\n"


def open_fence(lines: list[str], opened: str = "") -> str:
    """The closing line a fence still open at the end of ``lines`` needs ("" if none);
    ``opened``: the fence open before them."""
    for line in lines:
        found = _FENCE.match(line)
        if found is None:
            continue
        mark = found.group(1)
        if not opened:
            if mark[0] == "`" and "`" in line[found.end():]:
                continue  # not a fence: an info string may not hold a backtick
            opened = mark
        elif mark[0] == opened[0] and len(mark) >= len(opened) and not line[found.end():].strip():
            opened = ""
    return opened


def _size(chars: int) -> str:
    return f"{chars / 1_000_000:.1f} MB" if chars >= 1_000_000 else f"{max(1, round(chars / 1000)):,} KB"
