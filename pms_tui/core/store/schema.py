"""The schema of the one SQLite file, and the migrations that bring an older file up to it.

Layout, one way: collections -> documents -> chunks; chunks point at a content-addressed
``vectors`` row (keyed by the sha256 of the chunk's embed_text) whose vector lives in the
vec0 table ``vec_vectors`` under the same rowid. ``chunks_fts`` is an external-content FTS5
index over the chunk's title, heading path and body, kept in step by triggers.
No vec0 PARTITION KEY: it costs a whole block per NULL partition and never frees blocks.
"""

from __future__ import annotations

from collections.abc import Callable

import sqlean as sqlite3

from ..errors import StoreError
from .connection import transaction
from .documents import migrate_versions
from .facets import BACKFILL_KEY, MIGRATION_FACETS
from .links import BACKFILL_KEY as LINKS_BACKFILL_KEY, MIGRATION_LINKS
from .agent_changes import MIGRATION_AGENT_WRITES
from .chunks import migrate_navigation
from .meta import SCHEMA_VERSION_KEY, get_meta, set_meta
from .migrate_anchors import migrate_anchors
from .migrate_cjk import TOKENIZE as MIGRATION_TOKENIZE
from .migrate_cjk import migrate_cjk
from .migrate_hashes import migrate_hashes
from .migrate_stems import TOKENIZE as STEMS_TOKENIZE
from .migrate_stems import migrate_stems
from .migrate_windows import migrate_windows
from .skipped import migrate_skips
from .term_counts import TOKENIZE as TERM_COUNTS_TOKENIZE
from .term_counts import migrate_term_counts

SCHEMA_VERSION = 16
# The full-text tokenizer; search uses it too, to find the stems of query words.
FTS_TOKENIZE = "porter unicode61 remove_diacritics 2"

_SCHEMA_V1 = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE collections (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    path        TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    created_at  REAL NOT NULL,
    last_sync   REAL
);
CREATE TABLE documents (
    id            INTEGER PRIMARY KEY,
    collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
    path          TEXT NOT NULL,          -- relative to the collection folder, '/' separated
    title         TEXT NOT NULL,
    sha256        TEXT NOT NULL,
    size          INTEGER NOT NULL,
    mtime_ns      INTEGER NOT NULL,
    frontmatter   TEXT NOT NULL DEFAULT '{}',
    indexed_at    REAL NOT NULL,
    UNIQUE (collection_id, path)
);
CREATE TABLE vectors (
    id   INTEGER PRIMARY KEY AUTOINCREMENT,
    hash BLOB NOT NULL UNIQUE             -- sha256 of embed_text, raw bytes: 32, 16 since schema 9
);
CREATE TABLE chunks (
    id          INTEGER PRIMARY KEY,
    document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,
    start_line  INTEGER NOT NULL,
    end_line    INTEGER NOT NULL,
    title       TEXT NOT NULL,
    heading     TEXT NOT NULL,            -- breadcrumb 'H1 > H2 > H3'
    body        TEXT NOT NULL,
    vector_id   INTEGER NOT NULL REFERENCES vectors(id)
);
CREATE INDEX chunks_by_document ON chunks(document_id);
CREATE INDEX chunks_by_vector ON chunks(vector_id);
CREATE VIRTUAL TABLE chunks_fts USING fts5(
    title, heading, body,
    content='chunks', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, title, heading, body)
    VALUES (new.id, new.title, new.heading, new.body);
END;
CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, title, heading, body)
    VALUES ('delete', old.id, old.title, old.heading, old.body);
END;
CREATE TRIGGER chunks_au AFTER UPDATE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, title, heading, body)
    VALUES ('delete', old.id, old.title, old.heading, old.body);
    INSERT INTO chunks_fts(rowid, title, heading, body)
    VALUES (new.id, new.title, new.heading, new.body);
END;
"""

assert f"tokenize='{FTS_TOKENIZE}'" in _SCHEMA_V1
assert MIGRATION_TOKENIZE == FTS_TOKENIZE  # schema 5 rebuilds the index with the same tokenizer
assert TERM_COUNTS_TOKENIZE == FTS_TOKENIZE  # the terms' counts tokenize as the index does
assert STEMS_TOKENIZE == FTS_TOKENIZE  # schema 11 rebuilds the index with the same tokenizer

# Each entry upgrades the schema from version i+1 to i+2; append, never edit.
MIGRATIONS: list[str | Callable[..., None]] = [
    # 1 -> 2: the embedding queue. A vector row is written with its text before the model has
    # run (so its chunks are searchable by their words at once); ``pending_text`` is cleared
    # when the vector is stored. Rows of older files are all embedded (NULL).
    """
    ALTER TABLE vectors ADD COLUMN pending_text TEXT;
    CREATE INDEX vectors_pending ON vectors(id) WHERE pending_text IS NOT NULL;
    """,
    # 2 -> 3: tags and the frontmatter date of each note (store.facets), filled by a backfill
    MIGRATION_FACETS,
    # 3 -> 4: files sync could not index (binary, not UTF-8, a link leaving the folder), with
    # the stat they had, so ``status`` counts them as skipped rather than new until they change.
    """
    CREATE TABLE IF NOT EXISTS skipped_files (
        collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
        path          TEXT NOT NULL,
        size          INTEGER NOT NULL,
        mtime_ns      INTEGER NOT NULL,
        reason        TEXT NOT NULL,
        PRIMARY KEY (collection_id, path)
    );
    """,
    # 4 -> 5: the link graph (store.links); ``links_backfill`` asks the next sync to read the
    # links of notes indexed before
    MIGRATION_LINKS,
    # 5 -> 6: a fourth full-text column, ``cjk``: the character pairs of the CJK text of each
    # chunk (store.cjk), so a Chinese or Japanese word is found inside a run. Python fills it
    # for the chunks already indexed and the full-text index is rebuilt with progress.
    migrate_cjk,
    # 6 -> 7: a long one-line paragraph is one chunk read by the model window by window
    # (core/indexing/windows.py), no longer cut into chunks of its own. The notes indexed with
    # such a cut (a one-line chunk sharing its line with another chunk of the note) are
    # re-read by the next sync: their stat and hash no longer match. Other notes chunk the same.
    """
    UPDATE documents SET sha256 = '', mtime_ns = -1 WHERE id IN (
        SELECT DISTINCT c.document_id FROM chunks c JOIN chunks o
        ON o.document_id = c.document_id AND o.id <> c.id
        AND c.start_line = c.end_line AND o.start_line <= c.start_line AND o.end_line >= c.start_line);
    """,
    # 7 -> 8: a note's anchors in one row, each key once with its first line (the one thing
    # asked of them), instead of a row and an index entry per anchor (store.migrate_anchors)
    migrate_anchors,
    # 8 -> 9: an embedding is keyed by the first 16 bytes of its text's SHA-256, not all 32
    # (indexing.embed.embed_hash): the stored keys are cut to match (store.migrate_hashes)
    migrate_hashes,
    # 9 -> 10: the document frequency of each full-text term, kept beside the index by the
    # chunk triggers, so the BM25 planner need not read doclists to count rows (store.term_counts)
    migrate_term_counts,
    # 10 -> 11: each note's language (``documents.lang``) and a fifth full-text column,
    # ``stems``: the Snowball stems of the notes not in English (store.language), so a German
    # or Spanish word finds its other inflections. Filled from the chunks; the full-text index
    # and its term counts are rebuilt with progress (store.migrate_stems).
    migrate_stems,
    # 11 -> 12: a long paragraph's embed text holds the passage whole before its windows, read
    # whole when it fits the model's window (core/indexing/windows.py): the notes holding one
    # are re-read by the next sync, and only their changed texts are embedded again
    migrate_windows,
    # 12 -> 13: writing from an agent (core/writes): a collection agents may write in, and the
    # notes an agent changed last (what ``changed:agent`` finds and the reader marks)
    MIGRATION_AGENT_WRITES,
    # 13 -> 14: a skip from a cause that can pass is tried again after a backoff
    # (store/skipped.py): when, and how many tries this version of the file has failed
    migrate_skips,
    # 14 -> 15: each note's row records the versions of the chunker and the reader that made
    # its chunks (store/documents.py); a sync re-chunks the rows an older version made
    migrate_versions,
    # 15 -> 16: a PDF's contents and index pages (core/indexing/navigation_pages) flagged per
    # chunk, so a search ranks them below the pages they point to; the PDFs already indexed
    # are re-read by the next sync to be flagged
    migrate_navigation,
]


def schema_version(conn: sqlite3.Connection) -> int | None:
    """The schema version of an existing file (None when it has no pms-tui schema yet)."""
    try:
        version = get_meta(conn, SCHEMA_VERSION_KEY)
    except sqlite3.OperationalError:  # no meta table
        return None
    return int(version) if version is not None else None


def ensure_schema(conn: sqlite3.Connection, progress=None) -> None:
    """Create the schema on a new file, or run the migrations an older file needs, all in
    one transaction (an interrupted upgrade leaves the file as it was). ``progress(done,
    total, phase)`` hears about a long step (rebuilding the full-text index)."""
    with transaction(conn):
        conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        version = get_meta(conn, SCHEMA_VERSION_KEY)
        if version is None:
            for statement in _split_sql(_SCHEMA_V1):
                conn.execute(statement)
            version = "1"  # a new file is version 1 plus every migration
            new_file = True
        else:
            new_file = False
        current = int(version)
        if current > SCHEMA_VERSION:
            raise StoreError(f"The index was written by a newer pms-tui (schema {current}); upgrade pms-tui.")
        for step in MIGRATIONS[current - 1 :]:
            if callable(step):
                step(conn, None if new_file else progress)
                continue
            for statement in _split_sql(step):
                conn.execute(statement)
        if new_file:
            for key in (BACKFILL_KEY, LINKS_BACKFILL_KEY):  # no notes to fill
                conn.execute("DELETE FROM meta WHERE key = ?", (key,))
        if current != SCHEMA_VERSION:
            set_meta(conn, SCHEMA_VERSION_KEY, SCHEMA_VERSION)


def ensure_vector_table(conn: sqlite3.Connection, dim: int) -> None:
    conn.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS vec_vectors USING vec0("
        f"embedding float[{int(dim)}] distance_metric=cosine)"
    )


def _split_sql(script: str) -> list[str]:
    """Split a schema script into statements, keeping trigger bodies whole."""
    statements, current = [], []
    for line in script.splitlines():
        stripped = line.split("--", 1)[0].rstrip()
        if not stripped:
            continue
        current.append(stripped)
        joined = "\n".join(current)
        if stripped.endswith(";") and sqlite3.complete_statement(joined):
            statements.append(joined)
            current = []
    if current:
        statements.append("\n".join(current))
    return statements
