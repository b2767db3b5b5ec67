"""Connections to the one SQLite file, and the transaction every write runs in.

Driver: sqlean.py, a drop-in DB-API module that bundles a current SQLite with FTS5 and
extension loading (Python's own sqlite3 cannot load extensions on many builds, macOS's
system Python among them). sqlite-vec is loaded into every connection.
"""

from __future__ import annotations

import functools
import importlib.util
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import sqlean as sqlite3

from ..errors import StoreError, describe_database_error
from .term_counts import fold as fold_term_counts

BUSY_TIMEOUT_MS = 5000

Connection = sqlite3.Connection
OperationalError = sqlite3.OperationalError
DatabaseError = sqlite3.DatabaseError


@functools.cache
def _vec0_path() -> str:
    """sqlite-vec's loadable extension (what ``sqlite_vec.load`` loads), found without running
    the package's ``__init__``, which imports NumPy (a third of a BM25 search's start-up)."""
    spec = importlib.util.find_spec("sqlite_vec")
    if spec is None or not spec.submodule_search_locations:
        raise StoreError("The sqlite-vec package is missing; reinstall pms-tui.")
    return os.path.join(list(spec.submodule_search_locations)[0], "vec0")


def connect(path: Path | str, read_only: bool = False) -> sqlite3.Connection:
    """Open a connection with sqlite-vec loaded, WAL, a busy timeout and foreign keys on.

    ``check_same_thread`` is off because the store's writer connection serves one thread's
    transaction at a time, under the store's lock, and a reader whose thread has ended is closed
    from the thread that notices it (one thread uses a connection at a time, never two).
    ``read_only`` opens the file with ``mode=ro``, and where even that cannot work (a WAL
    file on read-only media, whose shared-memory file cannot be made) as ``immutable``.
    """
    try:
        if read_only:
            conn = _connect_read_only(Path(path))
        else:
            conn = sqlite3.connect(
                str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
            )
        conn.enable_load_extension(True)
        conn.load_extension(_vec0_path())
        conn.enable_load_extension(False)
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if not read_only:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        # The temp schema (each connection's small query tables) lives in memory: on disk it
        # was a deleted file in /var/tmp held open by every pooled connection that ever spilled.
        conn.execute("PRAGMA temp_store = MEMORY")
    except sqlite3.DatabaseError as exc:
        raise StoreError(describe_database_error(exc, path)) from None
    return conn


def _connect_read_only(path: Path) -> sqlite3.Connection:
    base = path.resolve().as_uri()
    last: Exception | None = None
    for query in ("mode=ro", "mode=ro&immutable=1"):
        conn = sqlite3.connect(f"{base}?{query}", uri=True, timeout=BUSY_TIMEOUT_MS / 1000,
                               isolation_level=None, check_same_thread=False)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.DatabaseError as exc:
            conn.close()
            last = exc
    raise last  # type: ignore[misc]


def is_read_only_error(exc: BaseException) -> bool:
    """An error that says the file or its folder cannot be written."""
    text = str(exc).lower()
    return any(word in text for word in ("readonly", "read-only", "unable to open", "permission denied"))


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One IMMEDIATE transaction: committed when the block ends, rolled back if it raises.

    IMMEDIATE takes the write lock at once, so the busy timeout waits out another writer
    instead of failing half-way through.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
        fold_term_counts(conn)  # keeps the full-text terms' counts small to read (store.term_counts)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


@contextmanager
def read_snapshot(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """A deferred read transaction: every SELECT inside sees the same state of the file."""
    conn.execute("BEGIN")
    try:
        yield conn
    finally:
        conn.execute("COMMIT")


# SQLite asks the stop check every this many virtual-machine steps of a statement (counted per
# step, so a short statement may never ask): a few dozen checks in a BM25 search of the user
# guide, with no measurable cost at 1000, 100 or 10 steps.
STOP_CHECK_STEPS = 100


def is_interrupted(exc: BaseException) -> bool:
    """The error SQLite raises for a statement stopped by a progress handler or ``interrupt()``."""
    return isinstance(exc, sqlite3.OperationalError) and "interrupted" in str(exc).lower()


@contextmanager
def stop_when(conn: sqlite3.Connection, stop: Callable[[], bool]) -> Iterator[sqlite3.Connection]:
    """Inside the block, a statement on ``conn`` ends with "interrupted" once ``stop()`` is
    true (a search whose query was replaced by a newer one). Reads only: an interrupted read
    leaves nothing half-written, and the connection is usable after the block."""
    conn.set_progress_handler(lambda: 1 if stop() else 0, STOP_CHECK_STEPS)
    try:
        yield conn
    finally:
        conn.set_progress_handler(None, 0)
