"""The ``documents`` table: one row per indexed note, with what sync compares (hash, stat)."""

from __future__ import annotations

from typing import NamedTuple


class DocumentStat(NamedTuple):
    """What sync needs to tell whether a note changed."""

    id: int
    path: str  # relative to the collection folder, '/' separated
    sha256: str
    size: int
    mtime_ns: int
    chunker_version: int = 0  # the versions of the chunker and reader that made its chunks
    reader_version: int = 0


class DocumentValues(NamedTuple):
    """The columns a sync writes for one note."""

    title: str
    sha256: str
    size: int
    mtime_ns: int
    frontmatter: str  # JSON
    indexed_at: float
    lang: str = ""  # its language when not English (store.language.note_language)
    chunker_version: int = 0  # what made its chunks (chunk.CHUNKER_VERSION, document_reader.READER_VERSIONS)
    reader_version: int = 0


def stats_of_collection(conn, collection_id: int) -> dict[str, DocumentStat]:
    """Every document of a collection, by relative path."""
    rows = conn.execute(
        "SELECT id, path, sha256, size, mtime_ns, chunker_version, reader_version FROM documents "
        "WHERE collection_id = ?", (collection_id,)
    )
    return {r[1]: DocumentStat(*r) for r in rows}


def count(conn, collection_id: int | None = None) -> int:
    if collection_id is None:
        return conn.execute("SELECT count(*) FROM documents").fetchone()[0]
    return conn.execute("SELECT count(*) FROM documents WHERE collection_id = ?", (collection_id,)).fetchone()[0]


def all_paths(conn) -> set[str]:
    """Relative paths of every indexed note (all collections)."""
    return {r[0] for r in conn.execute("SELECT path FROM documents")}


def note_names(conn) -> list[str]:
    """``collection/relpath`` of every indexed note, sorted."""
    rows = conn.execute(
        "SELECT col.name || '/' || d.path FROM documents d JOIN collections col ON col.id = d.collection_id "
        "ORDER BY 1"
    )
    return [r[0] for r in rows]


def update_stats(conn, stats: list[tuple[int, int, int]]) -> None:
    """New (size, mtime_ns) of documents whose content did not change: (size, mtime_ns, id)."""
    conn.executemany("UPDATE documents SET size = ?, mtime_ns = ? WHERE id = ?", stats)


def delete(conn, document_id: int) -> None:
    conn.execute("DELETE FROM documents WHERE id = ?", (document_id,))


def mark_all_stale(conn) -> int:
    """Make every document look changed to the next sync (no size, mtime or hash matches), so
    it re-reads each note while the old rows, chunks and full-text rows stay searchable until
    the note's new ones replace them. Returns how many."""
    return conn.execute("UPDATE documents SET sha256 = '', size = -1, mtime_ns = -1").rowcount


def upsert(conn, collection_id: int, path: str, values: DocumentValues) -> int:
    """Write one document's row, dropping its old chunks; returns its id. In a transaction."""
    row = conn.execute(
        "SELECT id FROM documents WHERE collection_id = ? AND path = ?", (collection_id, path)
    ).fetchone()
    if row:
        doc_id = row[0]
        conn.execute("DELETE FROM chunks WHERE document_id = ?", (doc_id,))
        conn.execute(
            "UPDATE documents SET title = ?, sha256 = ?, size = ?, mtime_ns = ?, frontmatter = ?, "
            "indexed_at = ?, lang = ?, chunker_version = ?, reader_version = ? WHERE id = ?",
            (*values, doc_id),
        )
        return doc_id
    return conn.execute(
        "INSERT INTO documents(collection_id, path, title, sha256, size, mtime_ns, frontmatter, "
        "indexed_at, lang, chunker_version, reader_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (collection_id, path, *values),
    ).lastrowid


def made_by(conn) -> list[tuple[str, int, int]]:
    """(path, chunker version, reader version) of every indexed note (``doctor``'s count of
    rows made by an older version)."""
    return conn.execute("SELECT path, chunker_version, reader_version FROM documents").fetchall()


def migrate_versions(conn, progress=None) -> None:
    """Schema 14 -> 15: each row records the versions of the chunker and reader that made it.
    The rows of an older index were made by the first versions (chunker 1; the PDF and Word
    readers 1; a note's reader 0), so a sync re-chunks exactly what a later version changed."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(documents)")}
    for column in ("chunker_version", "reader_version"):
        if column not in columns:
            conn.execute(f"ALTER TABLE documents ADD COLUMN {column} INTEGER NOT NULL DEFAULT 0")
    conn.execute("UPDATE documents SET chunker_version = 1, reader_version = CASE WHEN lower(path) LIKE '%.pdf' "
                 "OR lower(path) LIKE '%.docx' THEN 1 ELSE 0 END WHERE chunker_version = 0")
