"""Store: the one database file, a writer connection and one reader connection per thread."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import sqlean as sqlite3

from ..errors import StoreError, describe_database_error
from .connection import STOP_CHECK_STEPS, Connection, DatabaseError, connect, is_read_only_error, transaction
from .schema import FTS_TOKENIZE, SCHEMA_VERSION, ensure_schema, schema_version

SPARE_READERS = 4  # readers given back by ``reading()`` blocks, kept for the next ones
# A new file's page size. 8 KB pages hold a chunk row of 0.6-1 KB with less left over at the
# end of each page than 4 KB (SQLite's default): the chunks table 742 against 783 bytes a chunk
# at 100,000 chunks (the same rows, VACUUMed at each size). Set once, before the first write
# (a WAL file keeps its page size): an index made before keeps 4 KB pages.
PAGE_SIZE = 8192


class IndexClosed(StoreError):
    """The store was closed: nothing reads or writes through it any more."""

    def __init__(self) -> None:
        super().__init__("The index is closed.")


class Store:
    """One database file: one writer connection, one reader connection per thread.

    SQLite connections belong to one thread at a time; the UI searches from worker threads
    while sync writes from another, and WAL lets them overlap.

    - Readers: ``conn`` is the calling thread's own connection, opened on its first use and
      closed once the thread has ended, never handed to another thread. A short operation
      (a search) on a thread of its own instead borrows a reader for its length with
      ``reading()``: given back by that thread when the block ends, with no statement or
      transaction open, and lent warm (page cache, temp tables) to the next one.
    - The writer: ``transaction()`` runs on the one writer connection, one transaction at a
      time in this process. Inside it, ``conn`` on the same thread is the writer too, so the
      transaction's own reads see its writes.
    - Closed: after ``close()`` every use raises :class:`IndexClosed`. A transaction running
      then stops at its next step and rolls back (a sync still running writes nothing more).
    """

    def __init__(self, path: Path, progress=None):
        """``progress(done, total, phase)`` hears how an upgrade of an older index goes."""
        self.path = path
        self._local = threading.local()
        self._lock = threading.Lock()  # guards the readers' list and the closed flag
        self._readers: list[tuple[threading.Thread, Connection]] = []
        self._spare: list[Connection] = []  # given back by ``reading()`` blocks
        self._lent = 0  # readers inside ``reading()`` blocks now
        self._write_lock = threading.RLock()  # one transaction at a time on the writer
        self._writer: Connection | None = None
        self._writer_thread: int | None = None  # the thread inside a transaction now
        self._closed = False
        # A home (or medium) that cannot be written is opened read-only: search, show,
        # status and collections work, and anything that writes says why it cannot.
        self.read_only = path.exists() and not _writable(path)
        if not self.read_only:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                if not path.exists():
                    _new_file(path)
                with self._writing() as writer:
                    ensure_schema(writer, progress)
                return
            except (DatabaseError, StoreError, OSError) as exc:
                if not (path.exists() and is_read_only_error(exc)):
                    if isinstance(exc, DatabaseError):
                        raise StoreError(describe_database_error(exc, path)) from None
                    raise
                self._close_connections()
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
    def closed(self) -> bool:
        return self._closed

    @property
    def conn(self) -> Connection:
        """This thread's connection: the writer inside this thread's transaction, else its
        reader (opened on first use). :class:`IndexClosed` once the store is closed."""
        if self._closed:
            raise IndexClosed()
        if self._writer_thread == threading.get_ident():
            assert self._writer is not None
            return self._writer
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._open_reader()
        return conn

    def connection_count(self) -> int:
        """Connections open now: the writer and the readers of threads not yet swept."""
        with self._lock:
            return len(self._readers) + len(self._spare) + self._lent + (self._writer is not None)

    def _open_reader(self) -> Connection:
        """A new connection for this thread. The app searches from a new worker thread per
        keystroke, so the readers of threads that have ended are closed here: a thread that
        has ended is inside no query (keeping them all leaked two file descriptors a search)."""
        with self._lock:
            ended = [conn for thread, conn in self._readers if not thread.is_alive()]
            if ended:
                self._readers = [(t, c) for t, c in self._readers if t.is_alive()]
        for conn in ended:
            conn.close()
        conn = connect(self.path, read_only=self.read_only)
        with self._lock:
            if self._closed:  # closed meanwhile
                conn.close()
                raise IndexClosed()
            self._readers.append((threading.current_thread(), conn))
        self._local.conn = conn
        return conn

    @contextmanager
    def reading(self) -> Iterator[Connection]:
        """``with store.reading() as conn:`` a reader for one operation on this thread, and
        ``conn`` is it inside the block: the thread's own connection when it has one, else a
        spare one borrowed for the block. The app searches from a new thread per keystroke;
        a borrowed reader keeps its page cache and temp tables from one search to the next,
        where a new connection per thread paid for both again on every search."""
        if self._closed:
            raise IndexClosed()
        if self._writer_thread == threading.get_ident() or getattr(self._local, "conn", None) is not None:
            yield self.conn
            return
        with self._lock:
            conn = self._spare.pop() if self._spare else None
            self._lent += 1
        try:
            if conn is None:
                conn = connect(self.path, read_only=self.read_only)
            self._local.conn = conn
            yield conn
        finally:
            self._local.conn = None
            if conn is not None and conn.in_transaction:  # a snapshot left open by an error
                conn.execute("ROLLBACK")
            with self._lock:
                self._lent -= 1
                if conn is not None and not self._closed and len(self._spare) < SPARE_READERS:
                    self._spare.append(conn)
                    conn = None
            if conn is not None:
                conn.close()

    @contextmanager
    def _writing(self) -> Iterator[Connection]:
        """Hold the writer connection (opened on first use) for this thread; re-entrant."""
        with self._write_lock:
            if self._closed:
                raise IndexClosed()
            if self._writer is None:
                writer = connect(self.path)
                # a statement of a transaction still running when the store closes stops at
                # its next step; the transaction then rolls back (see ``transaction``)
                writer.set_progress_handler(lambda: 1 if self._closed else 0, STOP_CHECK_STEPS)
                self._writer = writer
            previous, self._writer_thread = self._writer_thread, threading.get_ident()
            try:
                yield self._writer
            finally:
                self._writer_thread = previous

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        """``with store.transaction() as conn:`` one IMMEDIATE transaction on the writer
        connection, committed when the block ends, rolled back if it raises. A transaction
        that the store's ``close()`` overtakes rolls back and raises :class:`IndexClosed`."""
        self.require_writable()
        with self._writing() as writer:
            try:
                with transaction(writer) as conn:
                    yield conn
                    if self._closed:  # closed while the block ran: commit nothing
                        raise IndexClosed()
            except DatabaseError:
                if self._closed:  # a statement stopped by the close, or a rollback after it
                    raise IndexClosed() from None
                raise

    def require_writable(self) -> None:
        if self._closed:
            raise IndexClosed()
        if self.read_only:
            raise StoreError(
                f"The index {self.path} is read-only here (its file or folder cannot be written): "
                f"search, show, status and collections work, but it cannot be changed."
            )

    def close(self) -> None:
        """Close the store: every later use raises :class:`IndexClosed`.

        A transaction running on another thread stops at its next step and rolls back; this
        waits for it to end, then closes the writer. The readers of this thread and of ended
        threads are closed now. Another live thread's reader is never closed from here: that
        thread may be inside a query (closing under it crashes the process); it is dropped,
        and closes when the thread lets go of it.
        """
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._close_connections()

    def _close_connections(self) -> None:
        with self._write_lock:  # waits for a transaction in flight (stopped by the closed flag)
            writer, self._writer = self._writer, None
        if writer is not None:
            writer.close()
        me = threading.current_thread()
        with self._lock:
            readers, self._readers = self._readers, []
            spare, self._spare = self._spare, []
        for conn in spare:
            conn.close()
        for thread, conn in readers:
            if thread is me or not thread.is_alive():
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
