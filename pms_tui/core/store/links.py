"""The link graph: ``links`` (every link a note makes, and where it leads), ``note_names``
(the names a note can be linked by: its file name and its aliases, lower case) and
``note_anchor_keys`` (the keys of its headings and ``^block`` ids with their first line, one
row per note, packed as text: see ``pack_anchors``; schema 8, store.migrate_anchors).

A link is written ``pending`` with the note that makes it; ``indexing.link_resolve`` then
resolves every pending link of a collection, once per sync. Whatever could change where a
link leads marks it pending again: a note that appears, changes its names or aliases
(``write``), or is deleted (the trigger below), so a rename re-resolves the links naming
either name.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from ..markdown import name_key

# schema 5 (every statement can run again: a test rewinds a current file's version)
MIGRATION_LINKS = """
CREATE TABLE IF NOT EXISTS links (
    id          INTEGER PRIMARY KEY,
    source_id   INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    line        INTEGER NOT NULL,        -- 1-based line of the source file
    embed       INTEGER NOT NULL,        -- ![[...]]
    syntax      TEXT NOT NULL,           -- 'wiki' or 'md'
    target      TEXT NOT NULL,           -- as written, without its #anchor ('' = the note itself)
    anchor      TEXT NOT NULL,           -- heading text or ^block id ('' = none)
    label       TEXT NOT NULL,           -- alias or link text
    key         TEXT NOT NULL,           -- lower-case name looked up: last path part, no .md
    target_id   INTEGER,                 -- the note it leads to (resolved), else NULL
    status      TEXT NOT NULL            -- pending, resolved, dangling, ambiguous, outside, file
);
CREATE INDEX IF NOT EXISTS links_by_source ON links(source_id);
CREATE INDEX IF NOT EXISTS links_by_target ON links(target_id) WHERE target_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS links_by_key ON links(key);
CREATE INDEX IF NOT EXISTS links_pending ON links(source_id) WHERE status = 'pending';
CREATE TABLE IF NOT EXISTS note_names (
    name        TEXT NOT NULL,           -- lower case
    document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    kind        TEXT NOT NULL,           -- 'file' or 'alias'
    PRIMARY KEY (name, document_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS note_names_by_document ON note_names(document_id);
CREATE TABLE IF NOT EXISTS note_anchors (  -- until schema 8 (store.migrate_anchors)
    document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    key         TEXT NOT NULL,
    kind        TEXT NOT NULL,           -- 'heading' or 'block'
    line        INTEGER NOT NULL,
    text        TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS note_anchors_by_document ON note_anchors(document_id, key);
CREATE TRIGGER IF NOT EXISTS documents_bd_links BEFORE DELETE ON documents BEGIN
    UPDATE links SET status = 'pending', target_id = NULL
     WHERE target_id = old.id AND source_id != old.id;
    UPDATE links SET status = 'pending'
     WHERE status = 'ambiguous' AND key IN (SELECT name FROM note_names WHERE document_id = old.id);
END;
INSERT INTO meta(key, value) VALUES ('links_backfill', '1')
    ON CONFLICT(key) DO UPDATE SET value = '1';
"""
BACKFILL_KEY = "links_backfill"
_BATCH = 900


class NewLink(NamedTuple):
    line: int
    embed: bool
    syntax: str
    target: str
    anchor: str
    label: str
    key: str


class PendingLink(NamedTuple):
    id: int
    source_path: str
    syntax: str
    target: str
    key: str


class LinkRow(NamedTuple):
    """One link with both ends: what ``links``/``backlinks`` answer with."""

    source_id: int
    source_path: str
    source_title: str
    line: int
    embed: bool
    syntax: str
    target: str
    anchor: str
    label: str
    status: str
    target_id: int | None
    target_path: str | None
    target_title: str | None
    collection: str


_ROW_SQL = (
    "SELECT l.source_id, s.path, s.title, l.line, l.embed, l.syntax, l.target, l.anchor, l.label, "
    "l.status, l.target_id, t.path, t.title, col.name FROM links l "
    "JOIN documents s ON s.id = l.source_id JOIN collections col ON col.id = s.collection_id "
    "LEFT JOIN documents t ON t.id = l.target_id"
)


# -- writing (in the transaction that writes the note) ---------------------------------------
def write(conn, document_id: int, collection_id: int, names: dict[str, str], links: Iterable[NewLink],
          anchors: Iterable[tuple[str, str, int, str]]) -> None:
    """A note's names ({lower-case name: 'file' or 'alias'}), links (written pending) and
    anchors ((key, kind, line, text)). Links elsewhere in the collection naming a name the
    note gained or lost are marked pending, to be resolved again."""
    old = {r[0] for r in conn.execute("SELECT name FROM note_names WHERE document_id = ?", (document_id,))}
    changed = old.symmetric_difference(names)
    if changed:
        conn.execute("DELETE FROM note_names WHERE document_id = ?", (document_id,))
        conn.executemany("INSERT OR IGNORE INTO note_names(name, document_id, kind) VALUES (?, ?, ?)",
                         [(n, document_id, k) for n, k in names.items()])
        conn.execute(
            "UPDATE links SET status = 'pending', target_id = NULL WHERE key IN "
            "(SELECT value FROM json_each(?)) AND EXISTS "  # per matching link: not a list of every note
            "(SELECT 1 FROM documents d WHERE d.id = links.source_id AND d.collection_id = ?)",
            (json.dumps(sorted(changed)), collection_id),
        )
    conn.execute("DELETE FROM links WHERE source_id = ?", (document_id,))
    conn.executemany(
        "INSERT INTO links(source_id, line, embed, syntax, target, anchor, label, key, status) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending')",
        [(document_id, *link) for link in links],
    )
    packed = pack_anchors((key, line) for key, _kind, line, _text in anchors)
    if packed:
        conn.execute("INSERT OR REPLACE INTO note_anchor_keys(document_id, anchors) VALUES (?, ?)",
                     (document_id, packed))
    else:
        conn.execute("DELETE FROM note_anchor_keys WHERE document_id = ?", (document_id,))


def pack_anchors(anchors: Iterable[tuple[str, int]]) -> str:
    """A note's anchors, (key, line), as stored: 'line<TAB>key' for each key at its first line,
    in line order, one a line. A key holds no tab or newline (``anchor_key`` folds white space;
    a block id is letters, digits and '-')."""
    first: dict[str, int] = {}
    for key, line in anchors:
        if key not in first or line < first[key]:
            first[key] = line
    return "\n".join(f"{line}\t{key}" for key, line in sorted(first.items(), key=lambda kv: (kv[1], kv[0])))


def unpack_anchors(packed: str) -> list[tuple[str, int]]:
    """(key, first line) of a packed row, in line order."""
    out = []
    for entry in packed.split("\n") if packed else []:
        line, _, key = entry.partition("\t")
        out.append((key, int(line)))
    return out


def pending(conn, collection_id: int) -> list[PendingLink]:
    return [PendingLink(*r) for r in conn.execute(
        "SELECT l.id, d.path, l.syntax, l.target, l.key FROM links l JOIN documents d ON d.id = l.source_id "
        "WHERE l.status = 'pending' AND d.collection_id = ?", (collection_id,)
    )]


def set_resolved(conn, resolved: Iterable[tuple[str, int | None, int]]) -> None:
    """(status, target id or None, link id) of resolved links."""
    conn.executemany("UPDATE links SET status = ?, target_id = ? WHERE id = ?", list(resolved))


def name_index(conn, collection_id: int) -> tuple[list[tuple[int, str]], list[tuple[str, int]]]:
    """([(document id, path)] of the collection's notes, [(alias, document id)] of its aliases)."""
    docs = [(r[0], r[1]) for r in conn.execute(
        "SELECT id, path FROM documents WHERE collection_id = ?", (collection_id,))]
    aliases = [(r[0], r[1]) for r in conn.execute(
        "SELECT n.name, n.document_id FROM note_names n JOIN documents d ON d.id = n.document_id "
        "WHERE n.kind = 'alias' AND d.collection_id = ?", (collection_id,))]
    return docs, aliases


def documents_without_links(conn, collection_id: int) -> list[tuple[int, str]]:
    """(id, path) of the collection's notes that have no names yet (indexed before schema 5)."""
    return [(r[0], r[1]) for r in conn.execute(
        "SELECT id, path FROM documents d WHERE collection_id = ? AND NOT EXISTS "
        "(SELECT 1 FROM note_names n WHERE n.document_id = d.id)", (collection_id,))]


# -- reading ---------------------------------------------------------------------------------
def outgoing(conn, document_id: int) -> list[LinkRow]:
    return [LinkRow(*r) for r in conn.execute(f"{_ROW_SQL} WHERE l.source_id = ? ORDER BY l.line, l.id",
                                              (document_id,))]


def incoming(conn, document_id: int) -> list[LinkRow]:
    """The links to a note from other notes: a note's links to its own headings or blocks
    (``[[#Heading]]``, ``[[Itself#^block]]``) are its outline, not backlinks."""
    return [LinkRow(*r) for r in conn.execute(
        f"{_ROW_SQL} WHERE l.target_id = ? AND l.source_id != l.target_id ORDER BY s.path, l.line, l.id",
        (document_id,))]


def anchor_line(conn, document_id: int, key: str) -> int | None:
    """The first line of a heading (``anchor_key``) or ``^block`` id in a note, None if it has none."""
    return next((line for k, line in anchors(conn, document_id) if k == key), None)


def anchors(conn, document_id: int) -> list[tuple[str, int]]:
    """(key, first line) of a note's headings and block ids, in line order."""
    row = conn.execute("SELECT anchors FROM note_anchor_keys WHERE document_id = ?", (document_id,)).fetchone()
    return unpack_anchors(row[0]) if row else []


def names(conn, document_id: int) -> list[tuple[str, str]]:
    return [(r[0], r[1]) for r in conn.execute(
        "SELECT name, kind FROM note_names WHERE document_id = ? ORDER BY kind, name", (document_id,))]


def status_counts(conn) -> dict[str, dict[str, int]]:
    """{collection name: {status: links}} over every collection."""
    out: dict[str, dict[str, int]] = {}
    for name, status, n in conn.execute(
        "SELECT col.name, l.status, count(*) FROM links l JOIN documents d ON d.id = l.source_id "
        "JOIN collections col ON col.id = d.collection_id GROUP BY col.name, l.status"
    ):
        out.setdefault(name, {})[status] = n
    return out


def linked_ids(conn, document_ids: Sequence[int], *, towards: bool) -> set[int]:
    """The notes linking to any of ``document_ids`` (``towards``), or that they link to."""
    if not document_ids:
        return set()
    ids = json.dumps(list(document_ids))
    if towards:
        sql = "SELECT DISTINCT source_id FROM links WHERE target_id IN (SELECT value FROM json_each(?))"
    else:
        sql = ("SELECT DISTINCT target_id FROM links WHERE source_id IN (SELECT value FROM json_each(?)) "
               "AND target_id IS NOT NULL")
    return {r[0] for r in conn.execute(sql, (ids,))}


def mention_chunks(conn, collection_id: int, expression: str, exclude: Sequence[int], limit: int):
    """(document id, path, title, chunk start line, body) of the collection's chunks matching
    the FTS5 ``expression``, outside the notes ``exclude``, one note after another."""
    return conn.execute(
        "SELECT d.id, d.path, d.title, c.start_line, c.body FROM chunks_fts f JOIN chunks c ON c.id = f.rowid "
        "JOIN documents d ON d.id = c.document_id WHERE chunks_fts MATCH ? AND d.collection_id = ? "
        "AND d.id NOT IN (SELECT value FROM json_each(?)) ORDER BY d.path, c.seq LIMIT ?",
        (expression, collection_id, json.dumps(list(exclude)), limit),
    ).fetchall()


def document(conn, collection_id: int, path: str) -> tuple[int, str] | None:
    """(id, title) of a note by its collection and relative path."""
    row = conn.execute("SELECT id, title FROM documents WHERE collection_id = ? AND path = ?",
                       (collection_id, path)).fetchone()
    return (row[0], row[1]) if row else None


def documents_named(conn, name: str) -> list[tuple[int, str, str]]:
    """(id, collection name, path) of the notes whose file name or alias is ``name`` (any case)."""
    return [(r[0], r[1], r[2]) for r in conn.execute(
        "SELECT d.id, col.name, d.path FROM note_names n JOIN documents d ON d.id = n.document_id "
        "JOIN collections col ON col.id = d.collection_id WHERE n.name = ? ORDER BY n.kind DESC, d.path",
        (name_key(name),))]


def document_vectors(conn, document_id: int) -> list[tuple[int, int]]:
    """(vector id, start line) of a note's chunks, in order."""
    return [(r[0], r[1]) for r in conn.execute(
        "SELECT vector_id, start_line FROM chunks WHERE document_id = ? ORDER BY seq", (document_id,))]


def notes_of_vectors(conn, vector_ids: Sequence[int]) -> list[tuple[int, int, int, str, str, str]]:
    """(vector id, document id, start line, path, title, collection name) of every chunk
    using one of these vectors."""
    out = []
    for start in range(0, len(vector_ids), _BATCH):
        part = list(vector_ids[start:start + _BATCH])
        out += conn.execute(
            f"SELECT c.vector_id, d.id, c.start_line, d.path, d.title, col.name FROM chunks c "
            f"JOIN documents d ON d.id = c.document_id JOIN collections col ON col.id = d.collection_id "
            f"WHERE c.vector_id IN ({','.join('?' * len(part))})", part).fetchall()
    return out
