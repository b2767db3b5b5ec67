"""The journal: every write made through ``kb.write``, in ``journal.sqlite`` in the home, with
the note's text as it was before (for ``undo``) and the versions an edit may name.

Beside the index, not in it: the index is rebuilt from the notes (``repair``, ``reindex``),
the journal cannot be. One row per change of one note: when, which client (``mcp:NAME``,
``cli``, ``api``), which tool, the note (and where it was before a move), its version before
and after (SHA-256 of its bytes, None where there was no file), the bytes before (None for a
note created), the trash file of a deleted note, the write it undoes. A rename that rewrote
links elsewhere is one group: undone together.

``versions`` keeps the bytes of the versions an agent read or wrote lately (at most
``MAX_VERSIONS``), so a refused write can say what changed since the version it names.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import sqlean as sqlite3

from ..errors import StoreError
from ..results import iso_time, note_id

JOURNAL_FILE = "journal.sqlite"
MAX_VERSIONS = 500
_SCHEMA = """
CREATE TABLE IF NOT EXISTS writes (
    id          INTEGER PRIMARY KEY,
    at          REAL NOT NULL,
    client      TEXT NOT NULL,
    tool        TEXT NOT NULL,
    collection  TEXT NOT NULL,
    path        TEXT NOT NULL,
    old_path    TEXT,
    before_hash TEXT,
    after_hash  TEXT,
    old_content BLOB,
    trash       TEXT,
    group_id    INTEGER,
    undoes      INTEGER,
    undone_by   INTEGER,
    summary     TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS writes_by_time ON writes(at);
CREATE INDEX IF NOT EXISTS writes_by_group ON writes(group_id);
CREATE TABLE IF NOT EXISTS asides (
    aside  TEXT PRIMARY KEY,
    target TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS versions (
    hash    TEXT PRIMARY KEY,
    content BLOB NOT NULL,
    seen    REAL NOT NULL
);
"""


@dataclass(frozen=True)
class Entry:
    id: int
    at: float
    client: str
    tool: str
    collection: str
    path: str
    old_path: str | None
    before_hash: str | None
    after_hash: str | None
    old_content: bytes | None
    trash: str | None
    group_id: int | None
    undoes: int | None
    undone_by: int | None
    summary: str

    @property
    def note_id(self) -> str:
        return note_id(self.collection, self.path)

    def to_json(self) -> dict:
        return {"id": self.id, "at": iso_time(self.at), "client": self.client, "tool": self.tool, "note": self.note_id,
                "collection": self.collection, "path": self.path, "old_path": self.old_path,
                "before_hash": self.before_hash, "after_hash": self.after_hash, "summary": self.summary,
                "group": self.group_id, "undoes": self.undoes, "undone_by": self.undone_by}


_COLUMNS = ("id, at, client, tool, collection, path, old_path, before_hash, after_hash, old_content, trash, "
            "group_id, undoes, undone_by, summary")


class Journal:
    def __init__(self, home: Path):
        self.path = home / JOURNAL_FILE
        self._made = False  # the tables made by this process once (a new file is made again)

    @contextmanager
    def _conn(self, durable: bool = True) -> Iterator[sqlite3.Connection]:
        try:
            conn = sqlite3.connect(str(self.path), timeout=10.0, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"The write journal {self.path} cannot be opened: {exc}.") from None
        try:
            if not self._made or not self.path.exists():
                conn.execute("PRAGMA journal_mode=WAL")
                conn.executescript(_SCHEMA)
                self._made = True
            # a write's record is fsynced at its commit; a version remembered is a cache
            conn.execute("PRAGMA synchronous=FULL" if durable else "PRAGMA synchronous=OFF")
            yield conn
        except sqlite3.Error as exc:
            raise StoreError(f"The write journal {self.path} cannot be written: {exc}.") from None
        finally:
            conn.close()

    def check(self) -> None:
        """StoreError, in one sentence, unless the journal can be written (before a write)."""
        with self._conn():
            pass

    def record(self, *, client: str, tool: str, collection: str, path: str, before_hash: str | None,
               after_hash: str | None, old_content: bytes | None, old_path: str | None = None,
               trash: str | None = None, group_id: int | None = None, undoes: int | None = None,
               summary: str = "", new_content: bytes | None = None) -> int:
        """Add one write (and remember the version it made); its id."""
        now = time.time()
        with self._conn() as conn:
            conn.execute("BEGIN IMMEDIATE")
            cur = conn.execute(
                "INSERT INTO writes(at, client, tool, collection, path, old_path, before_hash, after_hash, "
                "old_content, trash, group_id, undoes, summary) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (now, client, tool, collection, path, old_path, before_hash, after_hash, old_content, trash,
                 group_id, undoes, summary))
            entry_id = int(cur.lastrowid)
            if undoes is not None:
                conn.execute("UPDATE writes SET undone_by = ? WHERE id = ? OR group_id = ?",
                             (entry_id, undoes, undoes))
            if after_hash and new_content is not None:
                self._remember(conn, after_hash, new_content, now)
            conn.execute("COMMIT")
        return entry_id

    def set_group(self, entry_id: int, group_id: int) -> None:
        with self._conn() as conn:
            conn.execute("UPDATE writes SET group_id = ? WHERE id = ?", (group_id, entry_id))

    def get(self, entry_id: int) -> Entry | None:
        with self._conn() as conn:
            row = conn.execute(f"SELECT {_COLUMNS} FROM writes WHERE id = ?", (entry_id,)).fetchone()
        return Entry(*row) if row else None

    def group(self, group_id: int) -> list[Entry]:
        """The writes of one group, the last first (the order they are undone in)."""
        with self._conn() as conn:
            rows = conn.execute(f"SELECT {_COLUMNS} FROM writes WHERE id = ? OR group_id = ? ORDER BY id DESC",
                                (group_id, group_id)).fetchall()
        return [Entry(*r) for r in rows]

    def entries(self, limit: int = 50, since: float | None = None, note: tuple[str, str] | None = None) -> list[Entry]:
        """The latest writes, the newest first (since ``since``; of one note, by collection and path)."""
        where: list[str] = []
        params: list[object] = []
        if since is not None:
            where.append("at >= ?")
            params.append(since)
        if note is not None:
            where.append("collection = ? AND (path = ? OR old_path = ?)")
            params += [note[0], note[1], note[1]]
        sql = f"SELECT {_COLUMNS} FROM writes" + (" WHERE " + " AND ".join(where) if where else "")
        if not self.path.exists():
            return []
        with self._conn() as conn:
            rows = conn.execute(sql + " ORDER BY id DESC LIMIT ?", (*params, limit)).fetchall()
        return [Entry(*r) for r in rows]

    def last_undoable(self) -> Entry | None:
        """The newest write not undone and not itself an undo."""
        if not self.path.exists():
            return None
        with self._conn() as conn:
            row = conn.execute(f"SELECT {_COLUMNS} FROM writes WHERE undone_by IS NULL AND undoes IS NULL "
                               f"ORDER BY id DESC LIMIT 1").fetchone()
        return Entry(*row) if row else None

    # -- notes moved aside by a write in progress (replace.replace_if) ----------------------
    def keep_aside(self, aside: Path, target: Path) -> None:
        with self._conn() as conn:
            conn.execute("INSERT OR REPLACE INTO asides(aside, target) VALUES (?, ?)", (str(aside), str(target)))

    def forget_aside(self, aside: Path) -> None:
        with self._conn() as conn:
            conn.execute("DELETE FROM asides WHERE aside = ?", (str(aside),))

    def asides(self) -> list[tuple[Path, Path]]:
        if not self.path.exists():
            return []
        with self._conn() as conn:
            return [(Path(a), Path(t)) for a, t in conn.execute("SELECT aside, target FROM asides")]

    # -- versions an edit may name ---------------------------------------------------------
    def remember(self, version: str, content: bytes) -> None:
        """Keep the bytes of a version an agent read (best effort: never fails a read)."""
        try:
            with self._conn(durable=False) as conn:
                self._remember(conn, version, content, time.time())
        except StoreError:
            pass

    @staticmethod
    def _remember(conn, version: str, content: bytes, now: float) -> None:
        conn.execute("INSERT INTO versions(hash, content, seen) VALUES (?, ?, ?) "
                     "ON CONFLICT(hash) DO UPDATE SET seen = excluded.seen", (version, content, now))
        conn.execute("DELETE FROM versions WHERE hash NOT IN (SELECT hash FROM versions ORDER BY seen DESC LIMIT ?)",
                     (MAX_VERSIONS,))

    def recall(self, version: str) -> bytes | None:
        if not self.path.exists():
            return None
        try:
            with self._conn() as conn:
                row = conn.execute("SELECT content FROM versions WHERE hash = ?", (version,)).fetchone()
        except StoreError:
            return None
        return bytes(row[0]) if row else None
