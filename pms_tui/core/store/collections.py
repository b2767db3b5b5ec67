"""The ``collections`` table: named folders of notes."""

from __future__ import annotations

from typing import NamedTuple

_COLUMNS = "id, name, path, description, created_at, last_sync, writable"


class CollectionRow(NamedTuple):
    id: int
    name: str
    path: str
    description: str
    created_at: float
    last_sync: float | None
    writable: int  # schema 13: agents may write notes here (``pms-tui collections --writable``)


def all_collections(conn) -> list[CollectionRow]:
    return [CollectionRow(*r) for r in conn.execute(f"SELECT {_COLUMNS} FROM collections ORDER BY name")]


def by_name(conn, name: str) -> CollectionRow | None:
    row = conn.execute(f"SELECT {_COLUMNS} FROM collections WHERE name = ?", (name,)).fetchone()
    return CollectionRow(*row) if row else None


def insert(conn, name: str, path: str, description: str, created_at: float) -> int:
    return conn.execute(
        "INSERT INTO collections(name, path, description, created_at) VALUES (?, ?, ?, ?)",
        (name, path, description, created_at),
    ).lastrowid


def delete(conn, collection_id: int) -> None:
    """The collection and its documents (their chunks go by cascade); call in a transaction."""
    conn.execute("DELETE FROM documents WHERE collection_id = ?", (collection_id,))
    conn.execute("DELETE FROM collections WHERE id = ?", (collection_id,))


def set_writable(conn, collection_id: int, writable: bool) -> None:
    conn.execute("UPDATE collections SET writable = ? WHERE id = ?", (int(writable), collection_id))


def set_last_sync(conn, collection_id: int, when: float) -> None:
    conn.execute("UPDATE collections SET last_sync = ? WHERE id = ?", (when, collection_id))


def counts(conn, collection_id: int) -> tuple[int, int]:
    """(documents, chunks) indexed for one collection."""
    row = conn.execute(
        "SELECT count(DISTINCT d.id), count(c.id) FROM documents d "
        "LEFT JOIN chunks c ON c.document_id = d.id WHERE d.collection_id = ?",
        (collection_id,),
    ).fetchone()
    return int(row[0]), int(row[1])


def count(conn) -> int:
    return conn.execute("SELECT count(*) FROM collections").fetchone()[0]
