"""Store: the one database file, one connection per thread."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import sqlean as sqlite3

from ..errors import StoreError, describe_database_error
from .connection import Connection, DatabaseError, connect, is_read_only_error, transaction
from .schema import FTS_TOKENIZE, SCHEMA_VERSION, ensure_schema, schema_version

IDLE_CONNECTIONS = 4  # connections of ended threads kept open for the next threads
# A new file's page size. 8 KB pages hold a chunk row of 0.6-1 KB with less left over at the
# end of each page than 4 KB (SQLite's default): the chunks table 742 against 783 bytes a chunk
# at 100,000 chunks (the same rows, VACUUMed at each size). Set once, before the first write
# (a WAL file keeps its page size): an index made before keeps 4 KB pages.
PAGE_SIZE = 8192


class Store:
    """One database file, one connection per thread.

    SQLite connections must stay on the thread that opened them; the UI searches from
    worker threads while sync writes from another, and WAL lets them overlap.
    """

    def __init__(self, path: Path, progress=None):
        """``progress(done, total, phase)`` hears how an upgrade of an older index goes."""
        self.path = path
        self._local = threading.local()
        self._lock = threading.Lock()
        self._all: list[tuple[threading.Thread, Connection]] = []
        self._idle: list[Connection] = []  # connections of ended threads, for the next ones
        # A home (or medium) that cannot be written is opened read-only: search, show,
        # status and collections work, and anything that writes says why it cannot.
        self.read_only = path.exists() and not _writable(path)
        if not self.read_only:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                if not path.exists():
                    _new_file(path)
                ensure_schema(self.conn, progress)
                return
            except (DatabaseError, StoreError, OSError) as exc:
                if not (path.exists() and is_read_only_error(exc)):
                    if isinstance(exc, DatabaseError):
                        raise StoreError(describe_database_error(exc, path)) from None
                    raise
                self.close()
                self.read_only = True
        try:
            version = schema_version(self.conn)
        except DatabaseError as exc:
            raise StoreError(describe_database_error(exc, path)) from None
        if version != SCHEMA_VERSION:
            raise StoreError(
                f"The index {path} is read-only and its schema (version {version}) is not this "
                f"pms-tui's ({SCHEMA_VERSION}); open it once where it can be written."
            )

    @property
    def conn(self) -> Connection:
        """This thread's connection: on first use, a finished thread's (see ``_reuse``) or a new one."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._reuse() or connect(self.path, read_only=getattr(self, "read_only", False))
            self._local.conn = conn
            with self._lock:
                self._all.append((threading.current_thread(), conn))
        return conn

    def connection_count(self) -> int:
        """Connections open now: the live threads' and the idle ones kept for reuse."""
        with self._lock:
            return len(self._all) + len(self._idle)

    def _reuse(self) -> Connection | None:
        """A connection whose thread has ended, for the thread asking now.

        The app searches from a new worker thread per keystroke: keeping every thread's
        connection open leaked two file descriptors a search (a day of typing ran out of them),
        and a new connection per thread starts with cold caches and no temp tables. A thread
        that has ended is inside no query, so its connection can be closed or handed on; up to
        ``IDLE_CONNECTIONS`` are kept for the next threads."""
        with self._lock:
            ended = [conn for thread, conn in self._all if not thread.is_alive()]
            if ended:
                self._all = [(t, c) for t, c in self._all if t.is_alive()]
            self._idle.extend(ended)
            surplus, self._idle = self._idle[:-IDLE_CONNECTIONS], self._idle[-IDLE_CONNECTIONS:]
            conn = self._idle.pop() if self._idle else None
        for extra in surplus:
            extra.close()
        if conn is not None and conn.in_transaction:  # never expected: a transaction always ends
            conn.execute("ROLLBACK")
        return conn

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        """``with store.transaction() as conn:`` one IMMEDIATE transaction on this thread."""
        self.require_writable()
        with transaction(self.conn) as conn:
            yield conn

    def require_writable(self) -> None:
        if self.read_only:
            raise StoreError(
                f"The index {self.path} is read-only here (its file or folder cannot be written): "
                f"search, show, status and collections work, but it cannot be changed."
            )

    def close(self) -> None:
        """Close this thread's connection and forget the others.

        Another thread's connection is never closed from here: that thread may be inside a
        query (closing under it crashes the process). Dropping our reference lets it close
        when its thread ends and the thread-local goes.
        """
        me = threading.current_thread()
        with self._lock:
            pairs, self._all = self._all, []
            idle, self._idle = self._idle, []
        for thread, conn in pairs:
            if thread is me or not thread.is_alive():
                conn.close()
        for conn in idle:
            conn.close()
        self._local = threading.local()


def check_driver() -> tuple[str, str, str]:
    """(sqlean.py version, SQLite version, sqlite-vec version), after checking that FTS5 with
    the index's tokenizer works on a scratch database. Raises on a broken install."""
    import importlib.metadata

    conn = connect(":memory:")
    try:
        sqlite_version, vec_version = conn.execute("SELECT sqlite_version(), vec_version()").fetchone()
        conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(x, tokenize='{FTS_TOKENIZE}')")
    finally:
        conn.close()
    return importlib.metadata.version("sqlean.py"), sqlite_version, vec_version


def _new_file(path: Path) -> None:
    """Create the database file with ``PAGE_SIZE`` pages, in WAL mode (what ``connect`` sets)."""
    conn = sqlite3.connect(str(path), isolation_level=None)
    try:
        conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")
        conn.execute("PRAGMA journal_mode = WAL")
    finally:
        conn.close()


def _writable(path: Path) -> bool:
    """Can this process write the file and make files (-wal, -shm) next to it?"""
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK | os.X_OK)
