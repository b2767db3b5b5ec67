"""Setting and removing a note's frontmatter properties, every other line of the block as it
was (its comments, its quoting, its key order, its blank lines).

A top-level key's entry is its ``key:`` line at the block's left edge and the lines below it
that are indented, list items or blank. A property set is written by the clipper's YAML rule
(``clip.yaml_out``) in place of its entry, or before the closing fence when new; a property
removed loses its entry. The new block must read back as the old mapping with exactly those
changes, else nothing is written (YAML this cannot edit line by line: anchors, flow mappings
over several keys, a key written twice)."""

from __future__ import annotations

import re

from ..clip.yaml_out import dump
from ..errors import UsageError
from ..safe_text import one_line
from .edits import frontmatter_end
from .shape import NoteShape, bare

_KEY_LINE = re.compile(r"[^\s#\-][^\n]*?:(?:\s|$)|['\"][^\n]*?['\"]\s*:(?:\s|$)")
MAX_KEY_CHARS = 200


def _load(lines: list[str]) -> dict | None:
    import yaml  # on first use: a search never edits a note

    try:
        value = yaml.safe_load("".join(bare(line) + "\n" for line in lines))
    except yaml.YAMLError:
        return None
    if value is None:
        return {}
    return value if isinstance(value, dict) else None


def _entries(block: list[str]) -> dict[str, tuple[int, int]]:
    """{key: (first, end)} of each top-level entry of the block's lines (fences excluded)."""
    out: dict[str, tuple[int, int]] = {}
    starts = [i for i, line in enumerate(block) if _KEY_LINE.match(bare(line))]
    for n, first in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(block)
        while end > first + 1 and bare(block[end - 1]).lstrip().startswith("#") and not block[end - 1][:1].isspace():
            end -= 1  # a comment at the left edge belongs to what follows it
        parsed = _load(block[first:end])
        if parsed and len(parsed) == 1:
            out[str(next(iter(parsed)))] = (first, end)
    return out


def check_key(key: object) -> str:
    if not isinstance(key, str) or not key.strip() or len(key) > MAX_KEY_CHARS or any(
            not ch.isprintable() for ch in key):
        raise UsageError("A property's name must be printable text of 1 to 200 characters.")
    return key


def set_properties(lines: list[str], shape: NoteShape, values: dict, remove: list, name: str) -> list[str]:
    """The note's lines with the properties ``values`` set and those in ``remove`` removed."""
    values = {check_key(k): v for k, v in (values or {}).items()}
    remove = [check_key(k) for k in (remove or [])]
    if not values and not remove:
        raise UsageError("Give properties to set or to remove.")
    both = set(values) & set(remove)
    if both:
        raise UsageError(f"{one_line(sorted(both)[0])!r} is both set and removed; choose one.")
    end = frontmatter_end(lines)
    if end == 0:  # no frontmatter: a new block at the top
        missing = [k for k in remove]
        if missing:
            raise UsageError(f"{name} has no property {one_line(missing[0])[:80]!r}.")
        block = [line for line in shape.lines_of(dump(values).rstrip("\n"))]
        new = ["---" + shape.newline, *block, "---" + shape.newline, *lines]
        if not _check(new, {}, values, remove):
            raise UsageError(f"The properties for {name} do not read back as given; nothing was written.")
        return new
    inner = lines[1:end - 1]
    old = _load(inner)
    if old is None:
        raise UsageError(f"The frontmatter of {name} is not a YAML mapping pms-tui can read; edit it by hand.")
    entries = _entries(inner)
    for key in remove:
        if key not in old:
            raise UsageError(f"{name} has no property {one_line(key)[:80]!r}.")
    new_inner = list(inner)
    # from the bottom up, so the lines of the entries above keep their places
    edits: list[tuple[int, int, list[str]]] = []
    for key in remove:
        if key not in entries:
            raise _cannot(name)
        edits.append((*entries[key], []))
    added: list[str] = []
    for key, value in values.items():
        text = shape.lines_of(dump({key: value}).rstrip("\n"))
        if key in entries:
            edits.append((*entries[key], text))
        elif key in old:
            raise _cannot(name)
        else:
            added += text
    for first, stop, text in sorted(edits, reverse=True):
        new_inner[first:stop] = text
    if added:
        at = len(new_inner)
        while at > 0 and not bare(new_inner[at - 1]).strip():
            at -= 1  # before the block's trailing blank lines, after its last entry
        if at > 0 and not new_inner[at - 1].endswith(("\n", "\r")):
            new_inner[at - 1] += shape.newline
        new_inner[at:at] = added
    new = [lines[0], *new_inner, *lines[end - 1:]]
    if not _check(new, old, values, remove):
        raise _cannot(name)
    return new


def _cannot(name: str) -> UsageError:
    return UsageError(f"The frontmatter of {name} is YAML pms-tui cannot edit line by line (a key written twice, "
                      f"an anchor, a mapping on one line); edit it by hand.")


def _check(new: list[str], old: dict, values: dict, remove: list) -> bool:
    """Whether the new block reads back as the old mapping with exactly these changes."""
    end = frontmatter_end(new)
    if end == 0:
        return False
    got = _load(new[1:end - 1])
    want = {k: v for k, v in old.items() if k not in remove}
    want.update(values)
    return got == want
