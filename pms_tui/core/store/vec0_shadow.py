"""Reading sqlite-vec's own storage of the ``vec_vectors`` table: the one place that knows it.

Why: the in-memory vector mirror (``search.vector_index``) is loaded when the first vector
search of a session runs. Through the vec0 virtual table (``SELECT rowid, embedding``) every
row is a lookup of its own; vec0 keeps the vectors 1,024 to a blob, and reading those blobs
whole is 3-4 times faster (benchmarks/run.py reports the mirror's load time). vec0's public
KNN query (``WHERE embedding MATCH ? AND k = ?``) scans every vector for each search and is
slower than the mirror's one matrix-vector product by about as much, so the mirror stays.

The layout assumed (sqlite-vec 0.1.9, a table ``T`` with one float vector column, no
partition, auxiliary or metadata columns), in ``SHADOW_TABLES``:

* ``T_chunks(chunk_id, size, validity, rowids)``: per chunk, its capacity ``size``, a bitmap
  of its used slots (``validity``, little-endian bits, ``(size + 7) // 8`` bytes) and the
  rowid of each slot (``rowids``, ``size`` little-endian int64);
* ``T_vector_chunks00(rowid, vectors)``: the same chunk's vectors, keyed by ``chunk_id``,
  ``size`` float32 vectors of the table's dimension one after the other.

Every blob is checked against that before it is used: anything else raises
:class:`LayoutMismatch`, and the mirror is then read through the virtual table (slower, never
wrong). ``tests/test_vec0_shadow.py`` checks the installed sqlite-vec still lays a table out
this way, so a release that changes it fails there rather than as a slower first search.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .connection import OperationalError

if TYPE_CHECKING:
    import sqlite3

TABLE = "vec_vectors"
# shadow table (by its suffix) -> its columns, in order
SHADOW_TABLES: dict[str, tuple[str, ...]] = {
    "_chunks": ("chunk_id", "size", "validity", "rowids"),
    "_vector_chunks00": ("rowid", "vectors"),
}


class LayoutMismatch(Exception):
    """vec0's shadow tables are not laid out as expected: read the virtual table instead."""


def layout(conn: sqlite3.Connection, table: str = TABLE) -> dict[str, tuple[str, ...]]:
    """The columns of ``table``'s shadow tables that :func:`shadow_blocks` reads, as they are
    (a table missing: no columns)."""
    return {suffix: tuple(row[1] for row in conn.execute(f'PRAGMA table_info("{table}{suffix}")'))
            for suffix in SHADOW_TABLES}


def shadow_blocks(conn: sqlite3.Connection, dim: int, after: int, table: str = TABLE):
    """(rowids, vectors) of the live rows with rowid > ``after``, one vec0 chunk at a time, read
    from ``table``'s shadow tables. Raises LayoutMismatch when they are laid out otherwise."""
    import numpy as np

    try:
        cursor = conn.execute(
            f"SELECT c.size, c.validity, c.rowids, v.vectors FROM {table}_chunks c "
            f"JOIN {table}_vector_chunks00 v ON v.rowid = c.chunk_id ORDER BY c.chunk_id"
        )
    except OperationalError as exc:
        raise LayoutMismatch(str(exc)) from None
    width = dim * 4
    for size, validity, rowids, vectors in cursor:
        if not (
            isinstance(size, int) and size > 0
            and isinstance(validity, bytes) and len(validity) == (size + 7) // 8
            and isinstance(rowids, bytes) and len(rowids) == size * 8
            and isinstance(vectors, bytes) and len(vectors) == size * width
        ):
            raise LayoutMismatch("unexpected vec0 chunk layout")
        valid = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little")[:size].astype(bool)
        ids = np.frombuffer(rowids, dtype="<i8")
        keep = valid & (ids > after)
        if keep.any():
            yield ids[keep], np.frombuffer(vectors, dtype=np.float32).reshape(size, dim)[keep]
