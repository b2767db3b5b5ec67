"""Schema 5 -> 6: the full-text index gains the ``cjk`` column (see store.cjk).

Runs inside ensure_schema's transaction: an upgrade that is interrupted (kill -9, power) rolls
back to the old file, which the next open upgrades again. No note text is touched: the chunks
keep their rows, the new column is filled from their own title, heading and body, and the
full-text index is rebuilt from them in batches, telling ``progress`` how far it is.
"""

from __future__ import annotations

from .cjk import index_text

TOKENIZE = "porter unicode61 remove_diacritics 2"  # the index's tokenizer (schema.FTS_TOKENIZE)
BATCH = 2_000
PHASE = "upgrading the full-text index for CJK words"

FTS_V5 = f"""
CREATE VIRTUAL TABLE chunks_fts USING fts5(
    title, heading, body, cjk,
    content='chunks', content_rowid='id',
    tokenize='{TOKENIZE}'
)"""
TRIGGERS_V5 = (
    """CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, title, heading, body, cjk)
    VALUES (new.id, new.title, new.heading, new.body, new.cjk);
END""",
    """CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, title, heading, body, cjk)
    VALUES ('delete', old.id, old.title, old.heading, old.body, old.cjk);
END""",
    """CREATE TRIGGER chunks_au AFTER UPDATE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, title, heading, body, cjk)
    VALUES ('delete', old.id, old.title, old.heading, old.body, old.cjk);
    INSERT INTO chunks_fts(rowid, title, heading, body, cjk)
    VALUES (new.id, new.title, new.heading, new.body, new.cjk);
END""",
)


def migrate_cjk(conn, progress=None) -> None:
    """Drop the three-column index, add and fill ``chunks.cjk``, build the four-column index."""
    for trigger in ("chunks_ai", "chunks_ad", "chunks_au"):
        conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    conn.execute("DROP TABLE IF EXISTS chunks_fts")
    if "cjk" not in [r[1] for r in conn.execute("PRAGMA table_info(chunks)")]:
        conn.execute("ALTER TABLE chunks ADD COLUMN cjk TEXT NOT NULL DEFAULT ''")
    total = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    ids = [r[0] for r in conn.execute("SELECT id FROM chunks ORDER BY id")]
    if progress and total:
        progress(0, total, PHASE)
    # the column first (no trigger yet), then the index, batch by batch
    for start in range(0, len(ids), BATCH):
        lo, hi = ids[start], ids[min(start + BATCH, len(ids)) - 1]
        rows = conn.execute("SELECT id, title, heading, body FROM chunks WHERE id BETWEEN ? AND ?", (lo, hi))
        filled = [(text, cid) for cid, *parts in rows if (text := index_text(*parts))]
        conn.executemany("UPDATE chunks SET cjk = ? WHERE id = ?", filled)
    conn.execute(FTS_V5)
    for trigger in TRIGGERS_V5:
        conn.execute(trigger)
    for start in range(0, len(ids), BATCH):
        lo, hi = ids[start], ids[min(start + BATCH, len(ids)) - 1]
        conn.execute(
            "INSERT INTO chunks_fts(rowid, title, heading, body, cjk) "
            "SELECT id, title, heading, body, cjk FROM chunks WHERE id BETWEEN ? AND ?", (lo, hi))
        done = min(start + BATCH, len(ids))
        if progress:
            progress(done, total, PHASE)
