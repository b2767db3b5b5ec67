"""The one SQLite file: schema, migrations and connections.

Driver: sqlean.py, a drop-in DB-API module that bundles a current SQLite with FTS5 and
extension loading (Python's own sqlite3 cannot load extensions on many builds, macOS's
system Python among them). sqlite-vec is loaded into every connection.

Layout, one way: collections -> documents -> chunks; chunks point at a content-addressed
``vectors`` row (keyed by the sha256 of the chunk's embed_text) whose vector lives in the
vec0 table ``vec_vectors`` under the same rowid. ``chunks_fts`` is an external-content FTS5
index over the chunk's title, heading path and body, kept in step by triggers.
No vec0 PARTITION KEY: it costs a whole block per NULL partition and never frees blocks.
"""

from __future__ import annotations

import threading
from pathlib import Path

import sqlean as sqlite3
import sqlite_vec

SCHEMA_VERSION = 1
BUSY_TIMEOUT_MS = 5000
# The full-text tokenizer; search uses it too, to find the stems of query words.
FTS_TOKENIZE = "porter unicode61 remove_diacritics 2"

OperationalError = sqlite3.OperationalError
DatabaseError = sqlite3.DatabaseError

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
    hash BLOB NOT NULL UNIQUE             -- sha256 of embed_text, 32 raw bytes
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

# Each entry upgrades the schema from version i+1 to i+2; append, never edit.
MIGRATIONS: list[str] = []


class StoreError(Exception):
    """The database cannot be used, said in one sentence."""


def connect(path: Path) -> sqlite3.Connection:
    """Open a connection with sqlite-vec loaded, WAL, a busy timeout and foreign keys on."""
    try:
        conn = sqlite3.connect(
            str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None
        )
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
    except sqlite3.DatabaseError as exc:
        raise StoreError(describe_error(exc, path)) from None
    return conn


def describe_error(exc: Exception, path: Path | None = None) -> str:
    text = str(exc)
    where = f" ({path})" if path else ""
    if "locked" in text or "busy" in text:
        return f"The index{where} is locked by another program; close it or try again in a moment."
    if "not a database" in text or "malformed" in text:
        return f"The index file{where} is damaged or not a pms-tui database; move it away and sync again."
    if "readonly" in text or "unable to open" in text:
        return f"The index{where} cannot be opened for writing: {text}."
    return f"Database error{where}: {text}."


def get_meta(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def set_meta(conn: sqlite3.Connection, key: str, value: object) -> None:
    conn.execute(
        "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, str(value)),
    )


def ensure_schema(conn: sqlite3.Connection) -> None:
    """Create the schema on a new file, or run the migrations an older file needs."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        version = get_meta(conn, "schema_version")
        if version is None:
            for statement in _split_sql(_SCHEMA_V1):
                conn.execute(statement)
            set_meta(conn, "schema_version", SCHEMA_VERSION)
        else:
            current = int(version)
            if current > SCHEMA_VERSION:
                raise StoreError(
                    f"The index was written by a newer pms-tui (schema {current}); upgrade pms-tui."
                )
            for step in MIGRATIONS[current - 1 :]:
                for statement in _split_sql(step):
                    conn.execute(statement)
            set_meta(conn, "schema_version", SCHEMA_VERSION)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


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


class Store:
    """One database file, one connection per thread.

    SQLite connections must stay on the thread that opened them; the UI searches from
    worker threads while sync writes from another, and WAL lets them overlap.
    """

    def __init__(self, path: Path):
        self.path = path
        self._local = threading.local()
        self._lock = threading.Lock()
        self._all: list[tuple[threading.Thread, sqlite3.Connection]] = []
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = self.conn
        try:
            ensure_schema(conn)
        except sqlite3.DatabaseError as exc:
            raise StoreError(describe_error(exc, path)) from None

    @property
    def conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = connect(self.path)
            self._local.conn = conn
            with self._lock:
                self._all.append((threading.current_thread(), conn))
        return conn

    def close(self) -> None:
        """Close this thread's connection and forget the others.

        Another thread's connection is never closed from here: that thread may be inside a
        query (closing under it crashes the process). Dropping our reference lets it close
        when its thread ends and the thread-local goes.
        """
        me = threading.current_thread()
        with self._lock:
            pairs, self._all = self._all, []
        for thread, conn in pairs:
            if thread is me:
                conn.close()
        self._local = threading.local()
