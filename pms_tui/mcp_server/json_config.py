"""A JSON config file's text with one server entry set or taken out, every other byte as it
was (a hand-written ``"args": [...]`` on one line stays on one line): the entry is written
into the text, before the first server, in the style of its neighbours. The members of an
object are found with the json module's own decoder (the text is known to parse already);
``clients`` checks that each edit reads back as intended and writes the file anew when not.

The text comes with ``\\n`` line endings (``clients`` turns a CRLF file's into ``\\n`` and
back), without its BOM.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass


def parse(text: str) -> object:
    """The JSON value of ``text`` (an empty file: an empty object); ValueError when it is not
    plain JSON, saying where."""
    if not text.strip():
        return {}
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"line {exc.lineno}, column {exc.colno}: {exc.msg}") from None


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


def _put(text: str, opening: int, key: str, value: object, unit: str) -> str:
    """``key: value`` set in the object at ``opening``: its value replaced where the key is,
    else a member added before the first one (no other line changes, so none is shown),
    written as its neighbours are."""
    members, closing = _members(text, opening)
    same = [m for m in members if m.key == key]
    if same:
        m = same[-1]
        one_line = "\n" not in text[m.value:m.end]
        return text[:m.value] + _value(value, _line_indent(text, m.start), None if one_line else unit) + text[m.end:]
    name = json.dumps(key, ensure_ascii=False)
    if not members:
        outer = _line_indent(text, opening)
        inner = outer + unit
        return text[:opening] + "{\n" + inner + f"{name}: {_value(value, inner, unit)}" + "\n" + outer + "}" + \
            text[closing + 1:]
    first = members[0]
    if "\n" in text[opening:first.start]:
        inner = _line_indent(text, first.start)
        member = f"\n{inner}{name}{first.colon}{_value(value, inner, unit)},"
    else:
        member = f"{name}{first.colon}{_value(value, '', None)}, "
        opening = first.start - 1  # after "{" and the spaces that follow it
    return text[:opening + 1] + member + text[opening + 1:]


def _drop(text: str, opening: int, key: str) -> str:
    """The member ``key`` taken out of the object at ``opening``, with its comma."""
    members, closing = _members(text, opening)
    at = max(i for i, m in enumerate(members) if m.key == key)
    if len(members) == 1:
        return text[:opening] + "{}" + text[closing + 1:]
    if at > 0:
        return text[:members[at - 1].end] + text[members[at].end:]
    return text[:members[0].start] + text[members[1].start:]


def _holder(text: str, servers_key: str) -> tuple[int, int | None]:
    """The index of the top object's "{", and of the servers object's "{" (None: no servers object)."""
    top = _skip(text, 0)
    holders = [m for m in _members(text, top)[0] if m.key == servers_key]
    return top, holders[-1].value if holders else None


def set_entry(text: str, servers_key: str, name: str, entry: dict) -> str:
    """``text`` with the server ``name`` set to ``entry`` (the servers object made if missing);
    ValueError (or IndexError) where the text is not what it should be."""
    if not text.strip():
        return render(None, {servers_key: {name: entry}})
    unit = indent_of(text)
    top, holder = _holder(text, servers_key)
    if holder is not None:
        return _put(text, holder, name, entry, unit)
    return _put(text, top, servers_key, {name: entry}, unit)


def remove_entry(text: str, servers_key: str, name: str, drop_empty: bool) -> str:
    """``text`` without the server ``name``; with ``drop_empty``, without the servers object
    too (it held only that server)."""
    top, holder = _holder(text, servers_key)
    if holder is None:
        raise ValueError("no servers object")
    if drop_empty:
        return _drop(text, top, servers_key)
    return _drop(text, holder, name)
