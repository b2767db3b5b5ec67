"""The ``chunks`` table: the passages of each note, and the rows a search hit is made from."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from .language import index_text as stems_text
from .cjk import index_text

# A note's file time in ns. mtime_ns is -1 while it is unproven (the file changed within the
# last moments, or every stat was dropped to be read again): the time it was indexed stands in,
# so a note written a moment ago is the newest, not dated 1969.
NOTE_TIME_NS_SQL = "(CASE WHEN d.mtime_ns >= 0 THEN d.mtime_ns ELSE CAST(d.indexed_at * 1e9 AS INTEGER) END)"
HIT_COLUMNS = f"c.id, c.start_line, c.end_line, c.title, c.heading, c.body, d.path, col.name, col.path, {NOTE_TIME_NS_SQL}"
HIT_JOINS = (
    "FROM chunks c JOIN documents d ON d.id = c.document_id "
    "JOIN collections col ON col.id = d.collection_id"
)
_BATCH = 900  # ids per IN (...) list, below SQLite's variable limit


class HitRow(NamedTuple):
    """A chunk with its note and collection: everything a search hit shows."""

    chunk_id: int
    start_line: int
    end_line: int
    title: str
    heading: str  # 'H1 > H2 > H3'
    body: str
    path: str  # relative to the collection folder
    collection: str
    collection_path: str
    mtime_ns: int = 0


class NewChunk(NamedTuple):
    seq: int
    start_line: int
    end_line: int
    title: str
    heading: str
    body: str
    vector_id: int


def _marks(values: Sequence) -> str:
    return ",".join("?" * len(values))


def hits_by_ids(conn, ids: Sequence[int]) -> dict[int, HitRow]:
    found: dict[int, HitRow] = {}
    for start in range(0, len(ids), _BATCH):
        part = list(ids[start : start + _BATCH])
        sql = f"SELECT {HIT_COLUMNS} {HIT_JOINS} WHERE c.id IN ({_marks(part)})"
        found.update((r[0], HitRow(*r)) for r in conn.execute(sql, part))
    return found


def ids_holding(conn, ids: Sequence[int], words: Sequence[str]) -> list[int]:
    """Those of ``ids`` whose title, heading or text holds every one of ``words`` (lower-case
    ASCII) as letters anywhere, case folded as SQLite's ``lower`` folds it: a cheap first pass
    before the text is read and compared word by word."""
    found: set[int] = set()
    held = " AND ".join("instr(lower(c.title || ' ' || c.heading || ' ' || c.body), ?) > 0" for _ in words)
    for start in range(0, len(ids), _BATCH):
        part = list(ids[start : start + _BATCH])
        found.update(r[0] for r in conn.execute(
            f"SELECT c.id FROM chunks c WHERE c.id IN ({_marks(part)}) AND {held}", [*part, *words]))
    return [i for i in ids if i in found]


def passage_keys(conn, ids: Sequence[int]) -> dict[int, tuple[str, int, int]]:
    """{chunk id: (its file's full path, first line, last line)}: two chunks share a key when
    one file is indexed by two collections (a folder and one inside it, in an index made
    before such collections were refused). A copy of a note, or a link to it, is a note of
    its own."""
    found: dict[int, tuple[str, int, int]] = {}
    for start in range(0, len(ids), _BATCH):
        part = list(ids[start : start + _BATCH])
        found.update((r[0], (os.path.normpath(os.path.join(r[1], r[2])), r[3], r[4])) for r in conn.execute(
            f"SELECT c.id, col.path, d.path, c.start_line, c.end_line FROM chunks c "
            f"JOIN documents d ON d.id = c.document_id JOIN collections col ON col.id = d.collection_id "
            f"WHERE c.id IN ({_marks(part)})", part,
        ))
    return found


def ids_in_collections(conn, collection_ids: Sequence[int]) -> list[int]:
    """The ids of every chunk of these collections."""
    return [r[0] for r in conn.execute(
        f"SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id "
        f"WHERE d.collection_id IN ({_marks(collection_ids)})", list(collection_ids))]


def with_pending_vector(conn, ids: Sequence[int]) -> set[int]:
    """Which of these chunks still wait for their vector (the embedding queue)."""
    found: set[int] = set()
    for start in range(0, len(ids), _BATCH):
        part = list(ids[start : start + _BATCH])
        found.update(r[0] for r in conn.execute(
            f"SELECT c.id FROM chunks c JOIN vectors v ON v.id = c.vector_id "
            f"WHERE c.id IN ({_marks(part)}) AND v.pending_text IS NOT NULL", part,
        ))
    return found


def first_chunks_by_recency(conn, limit: int, collection_ids: Sequence[int] | None = None) -> list[HitRow]:
    """The first chunk of the most recently changed notes."""
    sql = f"SELECT {HIT_COLUMNS} {HIT_JOINS} WHERE c.seq = 0"
    params: list = []
    if collection_ids:
        sql += f" AND d.collection_id IN ({_marks(collection_ids)})"
        params += list(collection_ids)
    sql += f" ORDER BY {NOTE_TIME_NS_SQL} DESC, d.id DESC LIMIT ?"
    params.append(limit)
    return [HitRow(*r) for r in conn.execute(sql, params)]


def of_document(conn, collection_id: int, path: str) -> list[HitRow]:
    """Every chunk of one note, in order."""
    rows = conn.execute(
        f"SELECT {HIT_COLUMNS} {HIT_JOINS} WHERE d.collection_id = ? AND d.path = ? ORDER BY c.seq",
        (collection_id, path),
    )
    return [HitRow(*r) for r in rows]


def insert(conn, document_id: int, chunks: Iterable[NewChunk], lang: str = "") -> None:
    """Write a note's chunks; each gets its ``cjk`` column (the CJK pairs, see store.cjk) and,
    for a note in ``lang`` (not English), its ``stems`` column (see store.language)."""
    conn.executemany(
        "INSERT INTO chunks(document_id, seq, start_line, end_line, title, heading, body, vector_id, cjk, stems) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(document_id, *c, index_text(c.title, c.heading, c.body), stems_text(lang, c.title, c.heading, c.body))
         for c in chunks],
    )


def migrate_navigation(conn, progress=None) -> None:
    """Schema 16: the ``navigation`` column. The PDFs already indexed are read again by the
    next sync to fill it because their rows were made by an older PDF reader (READER_VERSIONS)."""
    if "navigation" not in {row[1] for row in conn.execute("PRAGMA table_info(chunks)")}:
        conn.execute("ALTER TABLE chunks ADD COLUMN navigation INTEGER NOT NULL DEFAULT 0")


def mark_navigation(conn, document_id: int, seqs: Iterable[int]) -> None:
    """Flag a document's chunks on contents and index pages (see indexing.navigation_pages)."""
    conn.executemany("UPDATE chunks SET navigation = 1 WHERE document_id = ? AND seq = ?",
                     [(document_id, seq) for seq in seqs])


def navigation_ids(conn, ids: Sequence[int]) -> set[int]:
    """Which of these chunks are on a contents or index page."""
    found: set[int] = set()
    for start in range(0, len(ids), _BATCH):
        part = list(ids[start : start + _BATCH])
        found.update(r[0] for r in conn.execute(
            f"SELECT id FROM chunks WHERE navigation = 1 AND id IN ({_marks(part)})", part))
    return found


def count(conn) -> int:
    return conn.execute("SELECT count(*) FROM chunks").fetchone()[0]


def for_vectors(conn, vector_ids: Sequence[int], collection_ids: Sequence[int] | None = None):
    """(chunk id, vector id) of the chunks using these vectors, optionally in some collections."""
    out: list[tuple[int, int]] = []
    for start in range(0, len(vector_ids), _BATCH):
        part = list(vector_ids[start : start + _BATCH])
        params: list = list(part)
        if collection_ids:
            sql = (
                f"SELECT c.id, c.vector_id FROM chunks c JOIN documents d ON d.id = c.document_id "
                f"WHERE c.vector_id IN ({_marks(part)}) AND d.collection_id IN ({_marks(collection_ids)})"
            )
            params += list(collection_ids)
        else:
            sql = f"SELECT c.id, c.vector_id FROM chunks c WHERE c.vector_id IN ({_marks(part)})"
        out.extend((int(r[0]), int(r[1])) for r in conn.execute(sql, params))
    return out


def note_paths(conn) -> dict[int, str]:
    """Chunk id -> relative path of its note, for every chunk (evaluation maps hits to notes)."""
    rows = conn.execute("SELECT c.id, d.path FROM chunks c JOIN documents d ON d.id = c.document_id")
    return {r[0]: r[1] for r in rows}



def lines_text(conn, document_id: int, lines: Iterable[int]) -> dict[int, str]:
    """{file line: its text} of some lines of a note, from the chunks holding them (one query)."""
    wanted = set(lines)
    found: dict[int, str] = {}
    if not wanted:
        return found
    rows = conn.execute(
        "SELECT start_line, body FROM chunks WHERE document_id = ? AND end_line >= ? AND start_line <= ? ORDER BY seq",
        (document_id, min(wanted), max(wanted)),
    )
    for start, body in rows:
        for i, text in enumerate(body.split("\n")):
            if start + i in wanted:
                found.setdefault(start + i, text)
    return found
