"""A JSON config file's text with one server entry set or taken out, every other byte as it
was (a hand-written ``"args": [...]`` on one line stays on one line): the entry is written
into the text, before the first server, in the style of its neighbours. The members of an
object are found with the json module's own decoder (the text is known to parse already);
``clients`` checks that each edit reads back as intended and writes the file anew when not.

The text comes with ``\\n`` line endings (``clients`` turns a CRLF file's into ``\\n`` and
back), without its BOM. A file with comments (VS Code, Zed, opencode) is scanned with its
comments blanked out (``blank``) and edited at the same offsets, so the comments stay.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass


def parse(text: str, comments: bool = False) -> object:
    """The JSON value of ``text`` (an empty file: an empty object); ValueError when it is not
    plain JSON (with ``comments``: JSON with comments and trailing commas), saying where."""
    if not text.strip():
        return {}
    try:
        return json.loads(blank(text) if comments else text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"line {exc.lineno}, column {exc.colno}: {exc.msg}") from None


def blank(text: str) -> str:
    """``text`` with its ``//`` and ``/* */`` comments and its trailing commas made spaces
    (newlines kept), so that every other character stays at its offset and the json module
    reads the rest; ValueError for a comment that never ends. (JSON with comments, as VS Code,
    Zed and opencode read their settings. No maintained Python library edits it in place: the
    ones on PyPI strip comments on reading, or drive Microsoft's jsonc-parser through Node.)"""
    out = list(text)
    i, n, comma = 0, len(text), -1
    while i < n:
        char = text[i]
        if char == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            comma = -1
        elif text.startswith("//", i) or text.startswith("/*", i):
            end = text.find("\n", i) if text[i + 1] == "/" else text.find("*/", i + 2) + 2
            if end == 1:
                raise ValueError("a /* comment never ends")
            end = n if end == -1 else end
            out[i:end] = [c if c == "\n" else " " for c in text[i:end]]
            i = end
            continue
        elif char == ",":
            comma = i
        elif char in "}]" and comma >= 0:
            out[comma] = " "
            comma = -1
        elif char not in " \t\r\n":
            comma = -1
        i += 1
    return "".join(out)


def comments(text: str) -> str:
    """The characters ``blank`` takes out of ``text`` (its comments, its trailing commas), in
    order: what an edit must leave as they were."""
    return "".join(ours for ours, scanned in zip(text, blank(text)) if ours != scanned)


def indent_of(text: str | None) -> str:
    found = re.search(r"\n([ \t]+)\S", text or "")
    return found.group(1) if found else "  "


def render(text: str | None, data: dict) -> str:
    """``data`` as the file's whole text, indented as ``text`` was."""
    ending = "\n" if text is None or text.endswith("\n") else ""
    return json.dumps(data, indent=indent_of(text), ensure_ascii=False) + ending


_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def _skip(text: str, index: int) -> int:
    """The index of the first character at or after ``index`` that is not JSON whitespace."""
    found = _WS.match(text, index)
    return found.end() if found else index


@dataclass(frozen=True)
class _Member:
    key: str
    start: int  # the key's opening quote
    colon: str  # what separates the key from its value, as written (": ")
    value: int
    end: int


def _members(text: str, opening: int) -> tuple[list[_Member], int]:
    """The members of the object whose "{" is at ``opening``, and the index of its "}"."""
    members: list[_Member] = []
    i = _skip(text, opening + 1)
    while text[i] != "}":
        key, after_key = _DECODER.raw_decode(text, i)
        value = _skip(text, _skip(text, after_key) + 1)
        _, end = _DECODER.raw_decode(text, value)
        members.append(_Member(key, i, text[after_key:value], value, end))
        i = _skip(text, end)
        if text[i] == ",":
            i = _skip(text, i + 1)
    return members, i


def _line_indent(text: str, index: int) -> str:
    before = text[text.rfind("\n", 0, index) + 1:index]
    return before[:len(before) - len(before.lstrip(" \t"))]


def _value(value: object, indent: str, unit: str | None) -> str:
    """``value`` as JSON whose lines after the first start at ``indent`` (one line: ``unit`` None)."""
    if unit is None:
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value, indent=unit, ensure_ascii=False).replace("\n", "\n" + indent)


Splice = tuple[int, int, str]  # text[start:end] becomes the string


def _put(text: str, opening: int, key: str, value: object, unit: str, original: str) -> Splice:
    """``key: value`` set in the object at ``opening``: its value replaced where the key is,
    else a member added before the first one (no other line changes, so none is shown),
    written as its neighbours are. (``text`` is ``original`` with its comments blanked.)"""
    members, closing = _members(text, opening)
    same = [m for m in members if m.key == key]
    if same:
        m = same[-1]
        one_line = "\n" not in text[m.value:m.end]
        return m.value, m.end, _value(value, _line_indent(text, m.start), None if one_line else unit)
    name = json.dumps(key, ensure_ascii=False)
    if not members:
        outer = _line_indent(text, opening)
        inner = outer + unit
        member = f"{name}: {_value(value, inner, unit)}"
        if original[opening + 1:closing].strip():  # only a comment inside: it stays, after the member
            return opening + 1, opening + 1, "\n" + inner + member
        return opening, closing + 1, "{\n" + inner + member + "\n" + outer + "}"
    first = members[0]
    if "\n" in text[opening:first.start]:
        inner = _line_indent(text, first.start)
        return opening + 1, opening + 1, f"\n{inner}{name}{first.colon}{_value(value, inner, unit)},"
    return first.start, first.start, f"{name}{first.colon}{_value(value, '', None)}, "


def _drop(text: str, opening: int, key: str, original: str) -> Splice:
    """The member ``key`` taken out of the object at ``opening``, with its comma."""
    members, closing = _members(text, opening)
    at = max(i for i, m in enumerate(members) if m.key == key)
    if len(members) == 1:
        m = members[0]
        if (original[opening + 1:m.start] + original[m.end:closing]).strip():  # a comment beside it stays
            return opening + 1, m.end, ""
        return opening, closing + 1, "{}"
    if at > 0:
        return members[at - 1].end, members[at].end, ""
    return members[0].start, members[1].start, ""


def _holder(text: str, servers_key: str) -> tuple[int, int | None]:
    """The index of the top object's "{", and of the servers object's "{" (None: no servers object)."""
    top = _skip(text, 0)
    holders = [m for m in _members(text, top)[0] if m.key == servers_key]
    return top, holders[-1].value if holders else None


def _apply(text: str, splice: Splice) -> str:
    start, end, new = splice
    return text[:start] + new + text[end:]


def set_entry(text: str, servers_key: str, name: str, entry: dict) -> str:
    """``text`` with the server ``name`` set to ``entry`` (the servers object made if missing);
    ValueError (or IndexError) where the text is not what it should be. Found in the text with
    its comments blanked (``blank``), made on the text itself."""
    if not text.strip():
        return render(None, {servers_key: {name: entry}})
    scan = blank(text)
    unit = indent_of(scan)
    top, holder = _holder(scan, servers_key)
    if holder is not None:
        return _apply(text, _put(scan, holder, name, entry, unit, text))
    return _apply(text, _put(scan, top, servers_key, {name: entry}, unit, text))


def remove_entry(text: str, servers_key: str, name: str, drop_empty: bool) -> str:
    """``text`` without the server ``name``; with ``drop_empty``, without the servers object
    too (it held only that server)."""
    scan = blank(text)
    top, holder = _holder(scan, servers_key)
    if holder is None:
        raise ValueError("no servers object")
    if drop_empty:
        return _apply(text, _drop(scan, top, servers_key, text))
    return _apply(text, _drop(scan, holder, name, text))
