"""The links that follow a renamed or moved note, as Obsidian rewrites them: every
``[[wikilink]]``, ``![[embed]]`` and Markdown link ``[text](path.md)`` in the collection that
leads to the note (resolved by the index's own rule, ``indexing.link_resolve``) is made to
lead to its new path, its anchor, label and the rest of its line kept.

A wikilink by name stays a name (``[[Old]]`` -> ``[[New]]``) when no other note has the new
name, else becomes the path from the collection's top; one by path gets the new path (with
``.md`` when it had it). A Markdown link gets the path from its own note's folder, URL-quoted
as it is written in Markdown (``my%20note.md``), in ``<...>`` when it was. Only the lines
the index records a link on are looked at; code spans on them are skipped.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from urllib.parse import quote, unquote

from collections.abc import Callable

from ..errors import PmsError
from ..results import note_id
from ..indexing.collections import Collection
from ..indexing.link_resolve import NameIndex
from ..store import Store
from ..store import links as link_rows
from . import guard, shape
from ..markdown import WIKILINK, file_name_key, wikilink_parts
from .shape import bare, split_lines

_MD_LINK = re.compile(r"(\]\(\s*)(<[^<>\n]*>|[^()\s<>]+)")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


@dataclass(frozen=True)
class Move:
    doc_id: int  # the note's row before the move
    old: str  # its path before, inside the collection
    new: str  # its path after


def _strip_md(path: str) -> str:
    return path[:-3] if path.lower().endswith(".md") else path


def _wiki_target(raw: str, move: Move, index: NameIndex) -> str:
    had_md = raw.strip().lower().endswith(".md")
    if "/" not in raw.strip():
        stem = _strip_md(posixpath.basename(move.new))
        others = [d for d, _ in index.by_name.get(file_name_key(stem), []) if d != move.doc_id]
        if not others:
            return stem + (".md" if had_md else "")
    return _strip_md(move.new) + (".md" if had_md else "")


def _target_end(inner: str) -> int:
    """Where the target part of ``[[inner]]`` ends (before its ``#anchor`` or ``|label``)."""
    cuts = [i for i in (inner.find("#"), inner.find("|"), inner.find("\\|")) if i >= 0]
    return min(cuts) if cuts else len(inner)


def rewrite_line(line: str, source: str, move: Move, index: NameIndex) -> tuple[str, int]:
    """``line`` (without its ending) of the note at ``source`` with its links to the moved
    note rewritten; (the line, how many)."""
    code = [m.span() for m in _CODE_SPAN.finditer(line)] if "`" in line else []

    def in_code(pos: int) -> bool:
        return any(a <= pos < b for a, b in code)

    count = 0

    def wiki(m: re.Match) -> str:
        nonlocal count
        parts = wikilink_parts(m.group(2))
        if parts is None or not parts.target or in_code(m.start()):
            return m.group(0)
        status, doc = index.resolve(source, "wiki", parts.target)
        if status != "resolved" or doc != move.doc_id:
            return m.group(0)
        inner = m.group(2)
        end = _target_end(inner)
        raw = inner[:end]
        lead = raw[: len(raw) - len(raw.lstrip())]
        count += 1
        return f"{m.group(1)}[[{lead}{_wiki_target(raw, move, index)}{inner[end:]}]]"

    def markdown(m: re.Match) -> str:
        nonlocal count
        dest = m.group(2)
        angled = dest.startswith("<")
        path = dest[1:-1] if angled else dest
        if in_code(m.start()) or _SCHEME.match(path):
            return m.group(0)
        target, hash_, anchor = path.partition("#")
        if not target.lower().endswith(".md"):
            return m.group(0)
        status, doc = index.resolve(source, "md", unquote(target))
        if status != "resolved" or doc != move.doc_id:
            return m.group(0)
        here = posixpath.dirname(move.new if source == move.old else source)
        rel = posixpath.relpath(move.new, here or ".")
        new = (rel if angled else quote(rel, safe="/()!$&'*+,;=@~-._")) + hash_ + anchor
        count += 1
        return f"{m.group(1)}{'<' + new + '>' if angled else new}"

    out = WIKILINK.sub(wiki, line) if "[[" in line else line
    if "](" in out:
        out = _MD_LINK.sub(markdown, out)
    return out, count


def rewrite(text: str, source: str, lines: set[int], move: Move, index: NameIndex) -> tuple[str, int]:
    """The note's text (its own line endings kept) with the links on ``lines`` (1-based) to
    the moved note rewritten; (the text, how many links)."""
    parts = split_lines(text)
    total = 0
    for n in sorted(lines):
        if not 1 <= n <= len(parts):
            continue
        line = parts[n - 1]
        body = bare(line)
        new, count = rewrite_line(body, source, move, index)
        if count:
            parts[n - 1] = new + line[len(body):]
            total += count
    return "".join(parts), total


def plan(store: Store, col: Collection, rel: str, new_rel: str,
         read: Callable[[Collection, str], bytes]) -> list[tuple[str, bytes, bytes]]:
    """(source path, its new bytes, its bytes now) of each note of ``col`` whose links to
    ``rel`` change when it moves to ``new_rel`` (the links the index records, resolved by its
    rule); a note that cannot be read or written is left as it is."""
    conn = store.conn
    row = link_rows.document(conn, col.id, rel)
    if row is None:
        return []
    index = NameIndex(*link_rows.name_index(conn, col.id))
    lines: dict[str, set[int]] = {}
    for link in link_rows.incoming(conn, row[0]):
        lines.setdefault(link.source_path, set()).add(link.line)
    move = Move(row[0], rel, new_rel)
    plans = []
    for src, at in sorted(lines.items()):
        try:
            guard.check_relpath(col, src, new=False)
            old = read(col, src)
            note_shape, text = shape.read(old, note_id(col.name, src))
        except PmsError:
            continue
        new_text, count = rewrite(text, src, at, move, index)
        if count:
            plans.append((src, note_shape.encode(new_text), old))
    return plans
