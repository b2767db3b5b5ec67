"""Schema 7 -> 8: a note's anchors packed into one row (``note_anchor_keys``, see store.links).

``note_anchors`` held one row per heading and ``^block`` id (key, kind, line, text) with an
index on (note, key): 105 bytes a chunk at 100,000 chunks, the largest part of the link graph.
Only one question is ever asked of it, "the first line of this key in this note", so the
new table keeps, per note, each key once with its first line, as text. Runs inside
ensure_schema's transaction (an interrupted upgrade rolls back) and can run again: a test
that rewinds a file's version makes schema 5 create the old table anew, and this folds it
in and drops it.
"""

from __future__ import annotations

BATCH = 5_000  # notes per statement
PHASE = "packing the note anchors"

TABLE = """
CREATE TABLE IF NOT EXISTS note_anchor_keys (
    document_id INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
    anchors     TEXT NOT NULL            -- 'line<TAB>key' per key, first line only, in line order, '\\n' between
)"""


def migrate_anchors(conn, progress=None) -> None:
    conn.execute(TABLE)
    if conn.execute("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'note_anchors'").fetchone():
        ids = [r[0] for r in conn.execute("SELECT DISTINCT document_id FROM note_anchors ORDER BY document_id")]
        if progress and ids:
            progress(0, len(ids), PHASE)
        for start in range(0, len(ids), BATCH):
            lo, hi = ids[start], ids[min(start + BATCH, len(ids)) - 1]
            conn.execute(
                "INSERT OR REPLACE INTO note_anchor_keys(document_id, anchors) "
                "SELECT document_id, group_concat(line || char(9) || key, char(10)) FROM "
                "(SELECT document_id, key, min(line) AS line FROM note_anchors WHERE document_id BETWEEN ? AND ? "
                " GROUP BY document_id, key ORDER BY document_id, line, key) GROUP BY document_id", (lo, hi))
            if progress:
                progress(min(start + BATCH, len(ids)), len(ids), PHASE)
        conn.execute("DROP TABLE note_anchors")  # its index goes with it
