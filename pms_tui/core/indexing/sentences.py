"""One over-long line of prose cut into parts at sentence ends: the windows the model reads of
a long paragraph (``windows``), and the parts of a line too long for one passage."""

from __future__ import annotations

import re

# Lines shorter than this are never cut, whatever the target (a tiny target is a test's or a
# benchmark's setting; the cut exists for the model's window of some hundreds of tokens).
MIN_CUT_LINE = 400
_SENTENCE_END = re.compile(r"(?<=[.!?;:])[)\]\"']*\s+")


def split_long_line(line: str, limit: int) -> list[str]:
    """Cut one over-long line into parts of at most ``limit`` chars, at sentence ends.

    Parts are balanced (a 1,500-char line becomes two of ~750, not 1,000 + 500). Where no
    sentence end falls in reach, the cut goes at the last space; a run of ``limit`` chars
    without a space is cut hard. Joined with single spaces the parts give back the line's words.
    """
    line = line.strip()
    parts: list[str] = []
    pos, end = 0, len(line)  # positions: copying the rest after each cut was quadratic (19 s at 20 MB)
    while end - pos > limit:
        goal = (end - pos) / -(-(end - pos) // limit)
        ends = [m.end() - pos for m in _SENTENCE_END.finditer(line, pos, pos + limit + 1)
                if m.start() > pos and m.end() - pos <= limit]  # at pos: its lookbehind saw the last part
        if ends:
            cut = min(ends, key=lambda e: (abs(e - goal), -e))
        else:
            space = line.rfind(" ", pos, pos + limit + 1)
            cut = space - pos + 1 if space > pos else limit
        parts.append(line[pos:pos + cut].strip())
        pos += cut
        while pos < end and line[pos].isspace():
            pos += 1
    parts += [line[pos:]] if pos < end else []
    return parts
