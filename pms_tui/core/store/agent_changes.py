"""``agent_changes``: the notes an agent (or a write through ``kb.write``) changed, the last
time and by which client, by collection and path (a note's row is replaced when it is
re-indexed; its path is what stays). What ``changed:agent`` finds and the reader marks. The
full history, with the text for undo, is the journal's (``core/writes/journal.py``), beside
the index: it is not rebuilt from the notes."""

from __future__ import annotations

_TABLE = """
CREATE TABLE IF NOT EXISTS agent_changes (
    collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
    path          TEXT NOT NULL,
    changed_at    REAL NOT NULL,
    client        TEXT NOT NULL,
    PRIMARY KEY (collection_id, path)
) WITHOUT ROWID
"""


def MIGRATION_AGENT_WRITES(conn, progress=None) -> None:  # noqa: N802 - named as the other migrations
    """Schema 13: ``collections.writable`` and ``agent_changes``; runs again harmlessly (a
    test rewinds a current file's version)."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(collections)")}
    if "writable" not in columns:
        conn.execute("ALTER TABLE collections ADD COLUMN writable INTEGER NOT NULL DEFAULT 0")
    conn.execute(_TABLE)

# the condition on ``documents d`` of ``changed:agent``
CHANGED_BY_AGENT_SQL = ("EXISTS (SELECT 1 FROM agent_changes a WHERE a.collection_id = d.collection_id "
                        "AND a.path = d.path)")


def record(conn, collection_id: int, path: str, when: float, client: str) -> None:
    conn.execute("INSERT INTO agent_changes(collection_id, path, changed_at, client) VALUES (?, ?, ?, ?) "
                 "ON CONFLICT(collection_id, path) DO UPDATE SET changed_at = excluded.changed_at, "
                 "client = excluded.client", (collection_id, path, when, client))


def forget(conn, collection_id: int, path: str) -> None:
    conn.execute("DELETE FROM agent_changes WHERE collection_id = ? AND path = ?", (collection_id, path))


def of_note(conn, collection_id: int, path: str) -> tuple[float, str] | None:
    row = conn.execute("SELECT changed_at, client FROM agent_changes WHERE collection_id = ? AND path = ?",
                       (collection_id, path)).fetchone()
    return (float(row[0]), str(row[1])) if row else None
