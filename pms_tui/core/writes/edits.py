"""The edits a write makes to a note's text, as lines that keep their own endings
(``shape.split_lines``): add text at the end or the start (after the frontmatter), to the
end or the start of one heading's section, replace a section's text, replace an exact
passage. Only the lines of the change are new; every other line is the note's own.

A heading is named by its text (``Tasks``, ``## Tasks``; case and spacing do not count) or,
when several headings have that text, by its path (``Project > Tasks``). Its section runs
from the line after it to the next heading of the same or a higher level. Headings are the
ones markdown-it finds in the body (not a ``#`` line inside a code fence, not the
frontmatter), as the chunker finds them.

New text is set off by a blank line from a paragraph it would otherwise join.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import UsageError
from ..indexing.frontmatter import split_frontmatter
from ..markdown import scan
from ..safe_text import one_line
from .shape import NoteShape, bare

MAX_SHOWN = 80


def frontmatter_end(lines: list[str]) -> int:
    """The index of the body's first line: after the closing fence of a frontmatter block, as
    the index splits it (``indexing.frontmatter``), 0 when there is none."""
    if not lines or bare(lines[0]).rstrip() != "---":
        return 0  # (no frontmatter: not worth parsing the note for)
    return split_frontmatter("".join(lines))[2]


@dataclass(frozen=True)
class Section:
    heading: int  # the heading's first line (0-based index into the lines)
    start: int  # the section's first line, after the heading
    end: int  # the line after the section (the next heading of its level or higher, or the end)
    path: tuple[str, ...]  # the heading's text with those of the headings above it


def sections(lines: list[str]) -> list[Section]:
    """Every heading's section, in order."""
    first = frontmatter_end(lines)
    body = "\n".join(bare(line) for line in lines[first:])
    found = scan(body).headings
    out: list[Section] = []
    stack: list[tuple[int, str]] = []
    for i, h in enumerate(found):
        while stack and stack[-1][0] >= h.level:
            stack.pop()
        stack.append((h.level, h.text))
        end = next((o.start for o in found[i + 1:] if o.level <= h.level), len(lines) - first)
        out.append(Section(h.start + first, h.end + first, end + first, tuple(t for _, t in stack)))
    return out


def _key(text: str) -> str:
    return " ".join(text.lstrip("#").split()).casefold()


def find_section(lines: list[str], heading: str, name: str) -> Section:
    """The section of the heading named ``heading``; UsageError when none or several match."""
    if not isinstance(heading, str) or not heading.strip():
        raise UsageError("Name the heading whose section to edit, e.g. \"Tasks\" or \"Project > Tasks\".")
    every = sections(lines)
    whole = _key(heading)
    matches = [s for s in every if _key(s.path[-1]) == whole]
    if not matches and ">" in heading:
        parts = [_key(p) for p in heading.split(">")]
        matches = [s for s in every if len(s.path) >= len(parts)
                   and [_key(p) for p in s.path[-len(parts):]] == parts]
    shown = one_line(heading)[:MAX_SHOWN]
    if not matches:
        known = ", ".join(one_line(s.path[-1])[:40] for s in every[:8]) or "none"
        raise UsageError(f"{name} has no heading {shown!r} (its headings: {known}).")
    if len(matches) > 1:
        where = ", ".join(str(s.heading + 1) for s in matches[:5])
        said = f"{name} has {len(matches)} headings {shown!r} (lines {where})"
        paths = [s.path for s in matches]
        named = next((p for p in paths if paths.count(p) == 1), None)  # a path naming one of them
        if named is None:
            same = one_line(" > ".join(paths[0]))[:MAX_SHOWN]
            raise UsageError(f"{said} under the same headings ({same}): rename one of them to edit its section.")
        raise UsageError(f"{said}; name one by its path, e.g. {one_line(' > '.join(named))[:MAX_SHOWN]!r}.")
    return matches[0]


def _blank(line: str) -> bool:
    return not bare(line).strip()


_ITEM = re.compile(r"\s{0,3}(?:[-*+]|\d{1,9}[.)])(?:\s|$)")


def _apart(line: str, new: str) -> bool:
    """Whether a blank line must separate ``line`` from ``new`` beside it: not when either is
    blank, nor between two list items (a new item joins the list)."""
    if _blank(line) or _blank(new):
        return False
    return not (_ITEM.match(bare(line)) and _ITEM.match(bare(new)))


def _block(shape: NoteShape, text: str) -> list[str]:
    """An agent's text as whole lines ending as the note's do (trailing line breaks dropped:
    each line gets its ending)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").rstrip("\n")
    return shape.lines_of(text) if text else []


def insert(lines: list[str], at: int, shape: NoteShape, text: str, *, floor: int = 0) -> list[str]:
    """``text`` inserted before line ``at``, set off by a blank line from the lines around it
    (none above it when ``at`` is ``floor``: right after a heading or at the body's start)."""
    block = _block(shape, text)
    if not block:
        raise UsageError("The text to add is empty.")
    out = list(lines)
    if at > 0 and not out[at - 1].endswith(("\n", "\r")):
        out[at - 1] += shape.newline  # the last line had no ending: the new text starts a line
    if at > floor and _apart(out[at - 1], block[0]):
        block = [shape.newline] + block
    if at < len(out) and _apart(out[at], block[-1]):
        block = block + [shape.newline]
    return out[:at] + block + out[at:]


def _last_text_line(lines: list[str], start: int, end: int) -> int:
    """The line after the last non-blank line of ``lines[start:end]`` (``start`` when none)."""
    while end > start and _blank(lines[end - 1]):
        end -= 1
    return end


def append(lines: list[str], shape: NoteShape, text: str) -> list[str]:
    first = frontmatter_end(lines)
    return insert(lines, _last_text_line(lines, first, len(lines)), shape, text, floor=first)


def prepend(lines: list[str], shape: NoteShape, text: str) -> list[str]:
    first = frontmatter_end(lines)
    at = first
    while at < len(lines) and _blank(lines[at]):
        at += 1
    return insert(lines, at, shape, text, floor=first)


def append_to_section(lines: list[str], shape: NoteShape, heading: str, text: str, name: str) -> list[str]:
    s = find_section(lines, heading, name)
    return insert(lines, _last_text_line(lines, s.start, s.end), shape, text, floor=s.start)


def prepend_to_section(lines: list[str], shape: NoteShape, heading: str, text: str, name: str) -> list[str]:
    s = find_section(lines, heading, name)
    at = s.start
    while at < s.end and _blank(lines[at]):
        at += 1
    return insert(lines, at, shape, text, floor=s.start)


def replace_section(lines: list[str], shape: NoteShape, heading: str, text: str, name: str) -> list[str]:
    """The section's text (not its heading) replaced by ``text`` (empty: the section emptied),
    keeping the blank line it had after the heading and before the next one."""
    s = find_section(lines, heading, name)
    out = list(lines)
    block = _block(shape, text)
    head_gap = s.start < s.end and _blank(out[s.start])
    tail_gap = s.end < len(out) and s.end > s.start and _blank(out[s.end - 1])
    if block:
        block = ([shape.newline] if head_gap else []) + block + ([shape.newline] if tail_gap else [])
    elif head_gap or tail_gap:
        block = [shape.newline]
    if s.start > 0 and not out[s.start - 1].endswith(("\n", "\r")) and block:
        out[s.start - 1] += shape.newline
    return out[:s.start] + block + out[s.end:]


def replace_passage(text: str, shape: NoteShape, old: str, new: str, expected: int, name: str) -> str:
    """Every occurrence of the exact passage ``old`` replaced by ``new``, when it occurs exactly
    ``expected`` times (the count the caller saw); its line breaks match the note's."""
    if not isinstance(old, str) or not old:
        raise UsageError("Give the exact passage to replace (old_text); it is empty.")
    if isinstance(expected, bool) or not isinstance(expected, int) or expected < 1:
        raise UsageError("The count of occurrences expected must be a whole number, at least 1.")
    old_n = old.replace("\r\n", "\n").replace("\r", "\n").replace("\n", shape.newline)
    new_n = new.replace("\r\n", "\n").replace("\r", "\n").replace("\n", shape.newline)
    found = text.count(old_n)
    if found != expected:
        shown = one_line(old)[:MAX_SHOWN]
        times = "once" if found == 1 else f"{found} times"
        raise UsageError(f"The passage {shown!r} occurs {times} in {name}, not {expected} as expected; "
                         f"read the note again and give the count it has.")
    return text.replace(old_n, new_n)
