"""The ``vectors`` table and its vec0 twin ``vec_vectors``: one row per distinct embed text.

A vector's key is the SHA-256 of the text it embeds, its first 16 bytes stored raw (schema 9;
``indexing.embed.embed_hash``), so identical or unchanged chunks share one vector and are never embedded twice. Every
write here bumps the generation counter that the in-memory mirror watches.

The embedding queue lives here too: a row whose ``pending_text`` is set has no vec0 vector
yet (sync writes text first; ``indexing.embed_queue`` fills the vectors in behind). A row whose
``pending_text`` is empty was *retired* by a reindex (``retire_all``): its chunks wait for
their note to be re-read, which queues their texts as new rows; it is never embedded itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .meta import bump_generation
from .schema import ensure_vector_table

if TYPE_CHECKING:
    import numpy as np
# NumPy is imported by the functions that use it: a BM25-only search never does (see
# benchmarks/oneshot.py: a one-shot `pms-tui search --mode bm25` spends a third of its time importing).

_BATCH = 500
_FETCH_ROWS = 4096


def lookup(conn, hashes: list[str]) -> dict[str, int]:
    """Vector ids of the known hex hashes."""
    found: dict[str, int] = {}
    for start in range(0, len(hashes), _BATCH):
        part = [bytes.fromhex(h) for h in hashes[start : start + _BATCH]]
        marks = ",".join("?" * len(part))
        for digest, vid in conn.execute(f"SELECT hash, id FROM vectors WHERE hash IN ({marks})", part):
            found[bytes(digest).hex()] = vid
    return found


def insert(conn, hashes: list[str], vectors: np.ndarray) -> dict[str, int]:
    """Store new vectors under their hashes; returns their ids. Call in a transaction."""
    import numpy as np

    ids: dict[str, int] = {}
    for h, vector in zip(hashes, vectors):
        vid = conn.execute("INSERT INTO vectors(hash) VALUES (?)", (bytes.fromhex(h),)).lastrowid
        conn.execute(
            "INSERT INTO vec_vectors(rowid, embedding) VALUES (?, ?)",
            (vid, np.ascontiguousarray(vector, dtype=np.float32).tobytes()),
        )
        ids[h] = vid
    bump_generation(conn)
    return ids


def enqueue(conn, texts: dict[str, str]) -> dict[str, int]:
    """Queue new texts (hex hash -> embed_text) for embedding; returns their row ids. In a
    transaction, after ``lookup`` said they are unknown."""
    ids: dict[str, int] = {}
    for h, text in texts.items():
        ids[h] = conn.execute(
            "INSERT INTO vectors(hash, pending_text) VALUES (?, ?)", (bytes.fromhex(h), text)
        ).lastrowid
    return ids


def pending_count(conn) -> int:
    """Texts waiting for their vector."""
    return conn.execute("SELECT count(*) FROM vectors WHERE pending_text IS NOT NULL AND pending_text != ''"
                        ).fetchone()[0]


def embedded_share(conn) -> float:
    """The share of the vector rows that hold their vector (1.0 when none waits). Queued and
    retired rows are counted from their partial index; the total from the hash index."""
    if conn.execute("SELECT 1 FROM vectors WHERE pending_text IS NOT NULL LIMIT 1").fetchone() is None:
        return 1.0
    waiting = conn.execute("SELECT count(*) FROM vectors WHERE pending_text IS NOT NULL").fetchone()[0]
    total = conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
    return 1.0 - waiting / total if total else 1.0


def pending_batch(conn, limit: int) -> list[tuple[int, str]]:
    """The oldest ``limit`` queued texts as (row id, embed_text)."""
    return [(r[0], r[1]) for r in conn.execute(
        "SELECT id, pending_text FROM vectors WHERE pending_text IS NOT NULL AND pending_text != '' "
        "ORDER BY id LIMIT ?", (limit,)
    )]


def fill(conn, ids: list[int], vectors: np.ndarray, texts: list[str] | None = None) -> int:
    """Store the vectors of queued rows and take them off the queue; returns how many were
    stored (a row deleted meanwhile, or filled by another writer, is skipped). ``texts``: the
    texts embedded; a row is filled only while it still waits for that very text (its id may
    have been freed and re-used by another sync since the text was read). In a transaction."""
    import numpy as np

    # A row leaves the queue by being deleted and written again without its text, not by an
    # UPDATE: SQLite merges under-full pages after a DELETE but never after an UPDATE that
    # shrinks a row, so updated rows kept the pages their texts had filled (95% of the table's
    # pages empty: 0.8 KB per chunk, the largest part of the file after the vectors themselves).
    # The chunks that point at the row are checked at commit, when it is back.
    conn.execute("PRAGMA defer_foreign_keys = ON")
    stored = 0
    args: tuple[object, ...]
    for vid, vector, text in zip(ids, vectors, texts if texts is not None else [None] * len(ids)):
        if text is None:
            sql, args = "SELECT hash FROM vectors WHERE id = ? AND pending_text IS NOT NULL", (vid,)
        else:
            sql, args = "SELECT hash FROM vectors WHERE id = ? AND pending_text = ?", (vid, text)
        row = conn.execute(sql, args).fetchone()
        if row is not None:
            conn.execute("DELETE FROM vectors WHERE id = ?", (vid,))
            conn.execute("INSERT INTO vectors(id, hash) VALUES (?, ?)", (vid, row[0]))
            conn.execute(
                "INSERT INTO vec_vectors(rowid, embedding) VALUES (?, ?)",
                (vid, np.ascontiguousarray(vector, dtype=np.float32).tobytes()),
            )
            stored += 1
    if stored:
        bump_generation(conn)
    return stored


def delete_unused(conn) -> int:
    """Drop vectors no chunk uses any more; returns how many. Call in a transaction."""
    orphans = [r[0] for r in conn.execute("SELECT id FROM vectors WHERE id NOT IN (SELECT vector_id FROM chunks)")]
    for start in range(0, len(orphans), _BATCH):
        part = orphans[start : start + _BATCH]
        marks = ",".join("?" * len(part))
        conn.execute(f"DELETE FROM vec_vectors WHERE rowid IN ({marks})", part)
        conn.execute(f"DELETE FROM vectors WHERE id IN ({marks})", part)
    if orphans:
        bump_generation(conn)
    return len(orphans)


def retire_all(conn, dim: int) -> int:
    """Retire every vector for a reindex (a new model, or new chunking), keeping the chunks
    that use them: the vec0 table is made anew with ``dim`` dimensions (no vector of the old
    model is left to be found), and each row stays for its chunks' sake, its hash replaced by
    one no text has (so no re-read chunk takes it up) and its ``pending_text`` emptied
    (waiting for its note, never embedded). Re-reading the notes queues their texts as new
    rows, and ``delete_unused`` then drops the retired ones. In a transaction; returns how
    many rows were retired."""
    retired = conn.execute("UPDATE vectors SET hash = CAST(-id AS BLOB), pending_text = ''").rowcount
    conn.execute("DROP TABLE IF EXISTS vec_vectors")
    bump_generation(conn)
    ensure_vector_table(conn, dim)
    return retired


def count(conn) -> int:
    """Stored vectors (queued texts not counted)."""
    return conn.execute("SELECT count(*) FROM vectors WHERE pending_text IS NULL").fetchone()[0]


def live_ids(conn) -> np.ndarray:
    """Ids of every stored vector (not the queued ones), ascending."""
    import numpy as np

    return np.fromiter(
        (r[0] for r in conn.execute("SELECT id FROM vectors WHERE pending_text IS NULL ORDER BY id")),
        dtype=np.int64,
    )


def scan_blocks(conn, dim: int, after: int):
    """(rowids, vectors) of the rows with rowid > ``after`` through the vec0 virtual table
    (slower than ``vec0_shadow.shadow_blocks``, whatever vec0's storage looks like)."""
    import numpy as np

    cursor = conn.execute("SELECT rowid, embedding FROM vec_vectors WHERE rowid > ? ORDER BY rowid", (after,))
    while rows := cursor.fetchmany(_FETCH_ROWS):
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        yield ids, np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(-1, dim)
