"""Where a link leads, decided as Obsidian decides it, within the link's own collection.

* ``[[Name]]`` (no folder): the note whose file name is ``Name`` anywhere in the collection,
  case-insensitive, ``.md`` optional; when several notes share the name, the one with the
  shortest path wins (fewest folders, then fewest characters); a tie is *ambiguous*. A name
  no file has may be a frontmatter alias of exactly one note.
* ``[[folder/Name]]``: that path from the note's own folder, else from the collection's top,
  else any note whose path ends with it.
* ``[text](some%20note.md)``: relative to the note's folder, else from the collection's top.
* ``[[#Heading]]``: the note itself.
* A target with another extension (``![[diagram.png]]``, ``[[file.pdf]]``) is a *file*: not
  a note, never opened. A target that is absolute (``/etc/passwd``, ``C:\\``, ``~``) or whose
  ``..`` climbs above the collection's folder is *outside* and never looked up. Nothing
  here touches the file system: a link can only lead to a note the index already holds (and
  the walk that indexed it never follows a symlink out of the folder).
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict

from ..markdown import file_name_key
from ..store import Store
from ..store import links as link_rows
from ..store import meta

_OTHER_EXT = re.compile(r"\.([A-Za-z0-9]{1,8})$")
_ABSOLUTE = re.compile(r"^(?:/|~|[A-Za-z]:[/\\]?)")


def file_kind(target: str) -> bool:
    """Whether the target names a file other than a note (an image, a PDF, a canvas)."""
    m = _OTHER_EXT.search(target.strip())
    return m is not None and m.group(1).lower() != "md" and any(c.isalpha() for c in m.group(1))


def _strip_md(path: str) -> str:
    return path[:-3] if path.lower().endswith(".md") else path


class NameIndex:
    """A collection's notes by lower-case file name, path and alias."""

    def __init__(self, docs: list[tuple[int, str]], aliases: list[tuple[str, int]]):
        self.by_name: dict[str, list[tuple[int, str]]] = defaultdict(list)
        self.by_path: dict[str, int] = {}
        self.paths = docs
        for doc_id, path in docs:
            self.by_name[file_name_key(path)].append((doc_id, path))
            self.by_path[_strip_md(path).lower()] = doc_id
        path_of = dict(docs)
        self.by_alias: dict[str, list[tuple[int, str]]] = defaultdict(list)
        for alias, doc_id in aliases:
            if doc_id in path_of:
                self.by_alias[alias].append((doc_id, path_of[doc_id]))

    def resolve(self, source_path: str, syntax: str, target: str) -> tuple[str, int | None]:
        """(status, note id or None) of one link made by the note at ``source_path``."""
        target = target.strip().replace("\\", "/")
        if not target:
            return "self", None
        if _ABSOLUTE.match(target) or "\x00" in target:
            return "outside", None
        here = posixpath.dirname(source_path)
        if syntax == "md" or "/" in target:
            tried_inside = False
            for base in (here, ""):
                joined = posixpath.normpath(posixpath.join(base, target))
                if joined == ".." or joined.startswith("../"):
                    continue
                tried_inside = True
                doc = self.by_path.get(_strip_md(joined).lower())
                if doc is not None:
                    return "resolved", doc
            if not tried_inside:
                return "outside", None
            if file_kind(target):
                return "file", None
            if syntax == "wiki" and ".." not in target.split("/"):
                tail = "/" + _strip_md(target.lstrip("./")).lower()
                found = [(d, p) for d, p in self.paths if ("/" + _strip_md(p).lower()).endswith(tail)]
                if found:
                    return self._shortest(found)
            return "dangling", None
        key = file_name_key(target)
        if key in self.by_name:
            return self._shortest(self.by_name[key])
        if file_kind(target):
            return "file", None
        if key in self.by_alias:
            return self._shortest(self.by_alias[key])
        return "dangling", None

    @staticmethod
    def _shortest(found: list[tuple[int, str]]) -> tuple[str, int | None]:
        ranked = sorted(found, key=lambda f: (f[1].count("/"), len(f[1]), f[1]))
        if len(ranked) > 1:
            a, b = ranked[0][1], ranked[1][1]
            if (a.count("/"), len(a)) == (b.count("/"), len(b)):
                return "ambiguous", None
        return "resolved", ranked[0][0]


def resolve_pending(store: Store, collection_ids: list[int]) -> int:
    """Resolve every pending link of these collections (one transaction per collection);
    returns how many were resolved."""
    done = 0
    for cid in collection_ids:
        conn = store.conn
        waiting = link_rows.pending(conn, cid)
        if not waiting:
            continue
        with store.transaction() as conn:
            index = NameIndex(*link_rows.name_index(conn, cid))
            waiting = link_rows.pending(conn, cid)
            id_of = {p: d for d, p in index.paths}
            updates = []
            for link in waiting:
                status, target = index.resolve(link.source_path, link.syntax, link.target)
                if status == "self":
                    status, target = "resolved", id_of.get(link.source_path)
                updates.append((status, target, link.id))
            link_rows.set_resolved(conn, updates)
            done += len(updates)
    return done


def backfill_pending(store: Store) -> bool:
    """Whether notes indexed before the link graph still need their links read."""
    return meta.get_meta(store.conn, link_rows.BACKFILL_KEY) is not None


def backfill_done(store: Store) -> None:
    with store.transaction() as conn:
        conn.execute("DELETE FROM meta WHERE key = ?", (link_rows.BACKFILL_KEY,))
