"""Schema 10 -> 11: each note gets its language (``documents.lang``) and the full-text index a
fifth column, ``stems``: the Snowball stems of the notes not in English (store.language).

Self-contained: the tables, triggers and term-count tables of the five-column index are
defined here, so the step can move to another number without touching the other steps. Runs
inside ensure_schema's transaction, as the CJK step does: an interrupted upgrade rolls back to
the old file, which the next open upgrades again. No note is re-read: a note's language comes
from its stored frontmatter or, as at sync, from its chunks' text (store.language.note_language),
the new column is filled from the chunks' own title, heading and body, and the full-text index
is rebuilt from them in batches, telling ``progress`` how far it is. An index of only English
notes gets an empty column and the same index as before.
"""

from __future__ import annotations

import json

from .term_counts import recount
from .language import index_text, note_language

TOKENIZE = "porter unicode61 remove_diacritics 2"  # the index's tokenizer (schema.FTS_TOKENIZE)
BATCH = 2_000
PHASE = "upgrading the full-text index for words in other languages"
COLUMNS = "title, heading, body, cjk, stems"
_NEW = "new.title, new.heading, new.body, new.cjk, new.stems"
_OLD = "old.title, old.heading, old.body, old.cjk, old.stems"

FTS_V11 = f"""
CREATE VIRTUAL TABLE chunks_fts USING fts5(
    {COLUMNS},
    content='chunks', content_rowid='id',
    tokenize='{TOKENIZE}'
)"""
# the term counts (store.term_counts) with the same five columns, kept by the same triggers
COUNT_TABLES = (
    "CREATE TABLE IF NOT EXISTS fts_df (term TEXT PRIMARY KEY, doc INTEGER NOT NULL) WITHOUT ROWID",
    *(f"CREATE VIRTUAL TABLE {name} USING fts5({COLUMNS}, content='', detail=none, tokenize='{TOKENIZE}')"
      for name in ("fts_df_added", "fts_df_removed")),
    "CREATE VIRTUAL TABLE fts_df_added_v USING fts5vocab(fts_df_added, 'row')",
    "CREATE VIRTUAL TABLE fts_df_removed_v USING fts5vocab(fts_df_removed, 'row')",
)
_ADD = f"INSERT INTO fts_df_added({COLUMNS}) VALUES ({_NEW});"
_REMOVE = f"INSERT INTO fts_df_removed({COLUMNS}) VALUES ({_OLD});"
TRIGGERS_V11 = (
    f"""CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, {COLUMNS}) VALUES (new.id, {_NEW});
    {_ADD}
END""",
    f"""CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, {COLUMNS}) VALUES ('delete', old.id, {_OLD});
    {_REMOVE}
END""",
    f"""CREATE TRIGGER chunks_au AFTER UPDATE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, {COLUMNS}) VALUES ('delete', old.id, {_OLD});
    INSERT INTO chunks_fts(rowid, {COLUMNS}) VALUES (new.id, {_NEW});
    {_REMOVE}
    {_ADD}
END""",
)


def _columns(conn, table: str) -> list[str]:
    return [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]


def migrate_stems(conn, progress=None) -> None:
    """Add and fill ``documents.lang`` and ``chunks.stems``; rebuild the index with five columns."""
    for trigger in ("chunks_ai", "chunks_ad", "chunks_au"):
        conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    for table in ("fts_df_added_v", "fts_df_removed_v", "fts_df_added", "fts_df_removed", "chunks_fts"):
        conn.execute(f"DROP TABLE IF EXISTS {table}")
    if "lang" not in _columns(conn, "documents"):
        conn.execute("ALTER TABLE documents ADD COLUMN lang TEXT NOT NULL DEFAULT ''")
    conn.execute("CREATE INDEX IF NOT EXISTS documents_by_lang ON documents(lang)")
    if "stems" not in _columns(conn, "chunks"):
        conn.execute("ALTER TABLE chunks ADD COLUMN stems TEXT NOT NULL DEFAULT ''")
    total = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    if progress and total:
        progress(0, total, PHASE)
    # each note's language, from its frontmatter or its chunks' text (as sync chooses it)
    languages: list[tuple[str, int]] = []
    for doc_id, frontmatter in conn.execute("SELECT id, frontmatter FROM documents").fetchall():
        try:
            meta = json.loads(frontmatter or "{}")
        except ValueError:
            meta = {}
        texts = [r[0] for r in conn.execute("SELECT body FROM chunks WHERE document_id = ? ORDER BY seq", (doc_id,))]
        languages.append((note_language(meta if isinstance(meta, dict) else {}, texts), doc_id))
    conn.executemany("UPDATE documents SET lang = ? WHERE id = ?", languages)
    ids = [r[0] for r in conn.execute("SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id "
                                      "WHERE d.lang <> '' ORDER BY c.id")]
    for start in range(0, len(ids), BATCH):
        lo, hi = ids[start], ids[min(start + BATCH, len(ids)) - 1]
        rows = conn.execute(
            "SELECT c.id, d.lang, c.title, c.heading, c.body FROM chunks c JOIN documents d ON d.id = c.document_id "
            "WHERE c.id BETWEEN ? AND ? AND d.lang <> ''", (lo, hi))
        conn.executemany("UPDATE chunks SET stems = ? WHERE id = ?",
                         [(index_text(lang, *parts), cid) for cid, lang, *parts in rows])
    conn.execute(FTS_V11)
    for statement in COUNT_TABLES:
        conn.execute(statement)
    for trigger in TRIGGERS_V11:
        conn.execute(trigger)
    all_ids = [r[0] for r in conn.execute("SELECT id FROM chunks ORDER BY id")]
    for start in range(0, len(all_ids), BATCH):
        lo, hi = all_ids[start], all_ids[min(start + BATCH, len(all_ids)) - 1]
        conn.execute(f"INSERT INTO chunks_fts(rowid, {COLUMNS}) "
                     f"SELECT id, {COLUMNS} FROM chunks WHERE id BETWEEN ? AND ?", (lo, hi))
        if progress:
            progress(min(start + BATCH, len(all_ids)), total, PHASE)
    recount(conn)
