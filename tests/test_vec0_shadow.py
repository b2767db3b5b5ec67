"""sqlite-vec's storage as store/vec0_shadow.py reads it: a release that lays a vec0 table out
otherwise fails here (the app would fall back to the slower virtual table, unnoticed)."""

from __future__ import annotations

import numpy as np

from pms_tui.core.store import vectors as vector_rows
from pms_tui.core.store.connection import connect
from pms_tui.core.store.schema import ensure_vector_table
from pms_tui.core.store.vec0_shadow import SHADOW_TABLES, LayoutMismatch, layout, shadow_blocks

DIM = 8


def _table(tmp_path, rows: int):
    conn = connect(tmp_path / "v.db")
    ensure_vector_table(conn, DIM)
    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((rows, DIM)).astype(np.float32)
    with conn:
        conn.executemany("INSERT INTO vec_vectors(rowid, embedding) VALUES (?, ?)",
                         ((i + 1, v.tobytes()) for i, v in enumerate(vectors)))
    return conn, vectors


def _read(blocks):
    blocks = list(blocks)
    return (np.concatenate([i for i, _ in blocks]), np.concatenate([v for _, v in blocks]))


def test_the_installed_sqlite_vec_lays_a_vec0_table_out_as_assumed(tmp_path):
    conn, _ = _table(tmp_path, 3)
    assert layout(conn) == SHADOW_TABLES, (
        "sqlite-vec stores a vec0 table otherwise than pms_tui/core/store/vec0_shadow.py assumes: "
        f"{layout(conn)}; change it (or read the virtual table only)")


def test_the_shadow_tables_hold_what_the_virtual_table_does(tmp_path):
    # more than one chunk (1,024 vectors each), rows deleted: their slots are marked unused
    conn, vectors = _table(tmp_path, 1100)
    with conn:
        conn.execute("DELETE FROM vec_vectors WHERE rowid IN (2, 1050)")
    ids, matrix = _read(shadow_blocks(conn, DIM, 0))
    scanned_ids, scanned = _read(vector_rows.scan_blocks(conn, DIM, 0))
    assert np.array_equal(ids, scanned_ids) and np.array_equal(matrix, scanned)
    assert len(ids) == 1098 and 2 not in ids and 1050 not in ids
    assert np.array_equal(matrix[0], vectors[0])
    later, _ = _read(shadow_blocks(conn, DIM, 1000))  # only rowids after 1000
    assert later.min() == 1001 and len(later) == 99


def test_another_dimension_than_stored_is_a_layout_mismatch(tmp_path):
    conn, _ = _table(tmp_path, 3)
    try:
        list(shadow_blocks(conn, DIM * 2, 0))
    except LayoutMismatch:
        return
    raise AssertionError("a blob of another size was read as vectors")
