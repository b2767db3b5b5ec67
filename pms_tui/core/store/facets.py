"""What notes are filtered by besides their words: tags (``note_tags``) and the note's date
(``documents.note_date``), and the SQL of the search filters over them.

A filter on notes is a condition on ``documents d``; filters on words are FTS5 expressions
(built by search.filters) whose matching rows are read here without scoring.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple

from ..markdown import name_key
from .chunks import HIT_COLUMNS, HIT_JOINS, NOTE_TIME_NS_SQL, HitRow

# schema 3: tags and the frontmatter date; ``facets_backfill`` asks the indexing room to fill
# them for notes indexed before (their tags need the note's text, which only Python reads)
MIGRATION_FACETS = """
ALTER TABLE documents ADD COLUMN note_date TEXT;
CREATE TABLE note_tags (
    tag         TEXT NOT NULL,
    document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    PRIMARY KEY (tag, document_id)
) WITHOUT ROWID;
CREATE INDEX note_tags_by_document ON note_tags(document_id);
INSERT INTO meta(key, value) VALUES ('facets_backfill', '1')
    ON CONFLICT(key) DO UPDATE SET value = '1';
"""
BACKFILL_KEY = "facets_backfill"

# the note's date: its frontmatter date when it has one, else its file's modification day
NOTE_DAY_SQL = f"coalesce(d.note_date, date({NOTE_TIME_NS_SQL} / 1000000000, 'unixepoch', 'localtime'))"
_BATCH = 900


class NoteFilter(NamedTuple):
    """Conditions on notes, each (SQL over ``documents d``, its parameters), all of which hold:
    the search language's filters (``search.filter_specs`` writes them with the functions
    below) and the caller's collection choice (ctrl+l, ``-c``)."""

    conditions: Sequence[tuple[str, Sequence]] = ()
    collection_ids: Sequence[int] = ()

    def condition(self) -> tuple[str, list]:
        """(SQL condition over documents d, its parameters); ('', []) when there is none."""
        sql = [c for c, _ in self.conditions]
        params = [p for _, ps in self.conditions for p in ps]
        if self.collection_ids:
            sql.append(f"d.collection_id IN ({','.join('?' * len(self.collection_ids))})")
            params += list(self.collection_ids)
        return " AND ".join(sql), params


_TAG_SQL = "(tag = ? OR (tag > ? AND tag < ?))"  # '0' follows '/': the nested tags tag/...


def tags_condition(tags: Sequence[str], negated: bool) -> tuple[str, list]:
    """Notes holding every tag (a tag also matches its nested tags, tag/...), or, negated, none."""
    params = [p for tag in tags for p in (tag, tag + "/", tag + "0")]
    if negated:
        either = " OR ".join([_TAG_SQL] * len(tags))
        return f"d.id NOT IN (SELECT document_id FROM note_tags WHERE {either})", params
    return " AND ".join([f"d.id IN (SELECT document_id FROM note_tags WHERE {_TAG_SQL})"] * len(tags)), params


def paths_condition(prefixes: Sequence[tuple[int | None, str]], negated: bool) -> tuple[str, list]:
    """Notes whose path starts with any prefix ((collection id or None for any, prefix)), or,
    negated, with none of them."""
    params: list = []
    parts = [_path_sql(p, params) for p in prefixes]
    if negated:
        return " AND ".join(f"NOT {p}" for p in parts), params
    return "(" + " OR ".join(parts) + ")", params


def collections_condition(names: Sequence[str], negated: bool) -> tuple[str, list]:
    """Notes of any of these collections, or, negated, of none."""
    marks = ",".join("?" * len(names))
    return (f"d.collection_id {'NOT ' if negated else ''}IN (SELECT id FROM collections WHERE name IN ({marks}))",
            list(names))


def links_condition(names: Sequence[str], direction: str) -> tuple[str, list]:
    """Notes linking to a note of each name (``to``), or linked from one (``from``); a name is a
    note's file name or alias, keyed as note_names keys it."""
    ours, theirs = ("source_id", "target_id") if direction == "to" else ("target_id", "source_id")
    one = (f"d.id IN (SELECT l.{ours} FROM links l WHERE l.{theirs} IN "
           "(SELECT document_id FROM note_names WHERE name = ?))")
    return " AND ".join([one] * len(names)), [name_key(n) for n in names]


def day_condition(op: str, day: str) -> tuple[str, list]:
    """Notes whose day (their frontmatter date, else their file's) compares so (``>=``, ``<``)
    with the ISO day."""
    return f"{NOTE_DAY_SQL} {op} ?", [day]


def _path_sql(prefix: tuple[int | None, str], params: list) -> str:
    """A path prefix as a range of the (collection_id, path) index (case-sensitive, like the
    file system): fast, unlike LIKE, which scans and cannot use it."""
    collection_id, text = prefix
    parts = []
    if collection_id is not None:
        parts.append("d.collection_id = ?")
        params.append(collection_id)
    if text:
        parts.append("d.path >= ? AND d.path < ?")
        params += [text, text[:-1] + chr(ord(text[-1]) + 1)]
    return "(" + " AND ".join(parts or ["1"]) + ")"



# -- writing --------------------------------------------------------------------------------
def write(conn, document_id: int, tags: Iterable[str], note_date: str | None) -> None:
    """A note's tags and frontmatter date. In the transaction that writes the note."""
    conn.execute("DELETE FROM note_tags WHERE document_id = ?", (document_id,))
    conn.executemany(
        "INSERT OR IGNORE INTO note_tags(tag, document_id) VALUES (?, ?)", [(t, document_id) for t in tags]
    )
    conn.execute("UPDATE documents SET note_date = ? WHERE id = ?", (note_date, document_id))


def backfill_sources(conn) -> Iterator[tuple[int, str, str]]:
    """(document id, frontmatter JSON, its text) of every note, the text put together from its
    passages by their lines (passages overlap by a line or two: each line once, in place), one
    note at a time: what the backfill of tags and dates reads."""
    for doc_id, front in conn.execute("SELECT id, frontmatter FROM documents ORDER BY id").fetchall():
        lines: dict[int, str] = {}
        for start, body in conn.execute(
                "SELECT start_line, body FROM chunks WHERE document_id = ? ORDER BY seq", (doc_id,)):
            for i, line in enumerate(body.split("\n")):
                lines.setdefault(start + i, line)
        first = min(lines, default=1)
        text = "\n".join(lines.get(n, "") for n in range(first, max(lines, default=0) + 1))
        yield doc_id, front or "{}", text


# -- reading --------------------------------------------------------------------------------
def tag_counts(conn, limit: int = 5000) -> list[tuple[str, int]]:
    """Tags in use, the most used first."""
    return [(r[0], r[1]) for r in conn.execute(
        "SELECT tag, count(*) AS n FROM note_tags GROUP BY tag ORDER BY n DESC, tag LIMIT ?", (limit,)
    )]


def collection_names(conn) -> list[str]:
    """The collections' names, by name (as the collections are listed)."""
    return [r[0] for r in conn.execute("SELECT name FROM collections ORDER BY name")]


def folders(conn, limit: int = 5000) -> list[str]:
    """Folder prefixes of indexed notes (``git/``, ``git/tips/``), the fullest first."""
    counts: dict[str, int] = {}
    for (path,) in conn.execute("SELECT path FROM documents"):
        parts = path.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            key = "/".join(parts[:i]) + "/"
            counts[key] = counts.get(key, 0) + 1
    return sorted(counts, key=lambda k: (-counts[k], k))[:limit]


def document_ids(conn, note: NoteFilter) -> list[int] | None:
    """Ids of the notes a NoteFilter allows; None when it has no condition (every note)."""
    doc_sql, params = note.condition()
    if not doc_sql:
        return None
    return [r[0] for r in conn.execute(f"SELECT d.id FROM documents d WHERE {doc_sql}", params)]


def chunks_of_documents(conn, doc_ids: Sequence[int] | None, words: str | None = None,
                        exclude: str | None = None, *, among: Sequence[int] | None = None,
                        limit: int | None = None) -> list[tuple[int, int]]:
    """(chunk id, vector id) of the chunks of these notes (all notes: None) that match the
    FTS5 expression ``words`` when given and nothing of ``exclude``; only among the chunk
    ids ``among`` when given (each checked alone: cheap for a few); at most ``limit``."""
    where: list[str] = []
    params: list = []
    if among is not None:
        if not among:
            return []
        where.append("c.id IN (SELECT value FROM json_each(?))")
        params.append(json.dumps(list(among)))
    if doc_ids is not None:
        where.append("c.document_id IN (SELECT value FROM json_each(?))")
        params.append(json.dumps(list(doc_ids)))
    probe = "EXISTS (SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? AND rowid = c.id)"
    if words:
        where.append(probe if among is not None else "c.id IN (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?)")
        params.append(words)
    if exclude:
        where.append(f"NOT {probe}" if among is not None else
                     "c.id NOT IN (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?)")
        params.append(exclude)
    sql = "SELECT c.id, c.vector_id FROM chunks c" + (" WHERE " + " AND ".join(where) if where else "")
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    return [(int(r[0]), int(r[1])) for r in conn.execute(sql, params)]


def matching(conn, expression: str, chunk_ids: Sequence[int], first_only: bool = False) -> list[int]:
    """Those of these chunks that match the FTS5 expression (the first found, with
    ``first_only``): one FTS5 lookup per batch of ids."""
    found: list[int] = []
    for start in range(0, len(chunk_ids), _BATCH):
        part = list(chunk_ids[start : start + _BATCH])
        sql = f"SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? AND rowid IN ({','.join('?' * len(part))})"
        found += [int(r[0]) for r in conn.execute(sql + (" LIMIT 1" if first_only else ""), [expression, *part])]
        if found and first_only:
            break
    return found


def any_match(conn, expression: str, chunk_ids: Sequence[int]) -> bool:
    """Whether any of these chunks matches the FTS5 expression."""
    return bool(matching(conn, expression, chunk_ids, first_only=True))


def browse(conn, note: NoteFilter, limit: int, exclude: str | None = None) -> list[HitRow]:
    """The first passage of the newest notes the filters allow (a query with no words)."""
    doc_sql, params = note.condition()
    sql = f"SELECT {HIT_COLUMNS} {HIT_JOINS} WHERE c.seq = 0"
    if doc_sql:
        sql += f" AND {doc_sql}"
    if exclude:
        sql += (" AND d.id NOT IN (SELECT c2.document_id FROM chunks c2 WHERE c2.id IN "
                "(SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?))")
        params.append(exclude)
    sql += f" ORDER BY {NOTE_DAY_SQL} DESC, {NOTE_TIME_NS_SQL} DESC, d.id DESC LIMIT ?"
    params.append(limit)
    return [HitRow(*r) for r in conn.execute(sql, params)]


def column_matches(conn, chunk_id: int, expressions: dict[str, str],
                   columns: tuple[str, ...] = ("title", "heading", "body")) -> dict[str, list[str]]:
    """{column: [keys of ``expressions`` (FTS5 expressions) that match that column of the
    chunk]} for these columns (title, heading and body unless told)."""
    found: dict[str, list[str]] = {column: [] for column in columns}
    for key, expression in expressions.items():
        for column in found:
            row = conn.execute(
                "SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? AND rowid = ?",
                (f"{column} : ({expression})", chunk_id),
            ).fetchone()
            if row:
                found[column].append(key)
    return found


def note_vector_ids(conn, chunk_id: int) -> list[int]:
    """The vector ids of every chunk of the note holding ``chunk_id`` (those embedded), sorted."""
    return sorted({r[0] for r in conn.execute(
        "SELECT c.vector_id FROM chunks c WHERE c.document_id = "
        "(SELECT document_id FROM chunks WHERE id = ?)", (chunk_id,)
    )})


def vector_ids_in_collections(conn, collection_ids: Sequence[int]) -> set[int]:
    """The vector ids of every embedded chunk of these collections."""
    if not collection_ids:
        return set()
    marks = ",".join("?" * len(collection_ids))
    return {r[0] for r in conn.execute(
        f"SELECT c.vector_id FROM chunks c JOIN documents d ON d.id = c.document_id "
        f"WHERE d.collection_id IN ({marks}) AND c.vector_id IS NOT NULL", list(collection_ids))}


def note_chunk_ids(conn, collection_id: int, path: str) -> list[tuple[int, int]]:
    """(chunk id, vector id) of one note's chunks, in order."""
    return [(r[0], r[1]) for r in conn.execute(
        "SELECT c.id, c.vector_id FROM chunks c JOIN documents d ON d.id = c.document_id "
        "WHERE d.collection_id = ? AND d.path = ? ORDER BY c.seq", (collection_id, path)
    )]
