"""The ``skipped_files`` table: files sync could not index, with the stat they had then.

``status`` reads it to count such a file as skipped (with its reason) instead of new. A skip
from a lasting cause (a password, no text, too large, not a document) waits for the file to
change: when its size or mtime changes it is new again and the next sync tries it once more.
A skip from a cause that can pass (a reader's time or memory limit hit under load, a crashed or
silent reader, a file that could not be opened) also has ``retry_at``: a sync from then on
tries it again, unchanged, after a backoff that grows with each failed try (``BACKOFF``).
"""

from __future__ import annotations

import time
from typing import NamedTuple

# Seconds from the n-th failed try to the next (the last repeats): the first retry is at the
# next sync (a limit hit under load has usually passed by then), then after an hour, a day, a
# week. A file that keeps failing is likely damaged or hostile, and each try may cost up to a
# document's limits (a minute of CPU, 1.5 GB): its tries thin out, never stop.
BACKOFF = (0.0, 3_600.0, 86_400.0, 7 * 86_400.0)


class SkippedFile(NamedTuple):
    path: str
    size: int
    mtime_ns: int
    reason: str
    retry_at: float | None = None  # None: waits for the file to change
    attempts: int = 1  # failed tries of this very version of the file

    def due(self, now: float) -> bool:
        return self.retry_at is not None and now >= self.retry_at

    def when(self, now: float) -> str:
        """When it is tried again, as a clause of the reason ("tried again at the next sync")."""
        if self.retry_at is None:
            return "tried again when the file changes"
        if self.retry_at <= now:
            return "tried again at the next sync"
        stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.retry_at))
        return f"tried again at a sync after {stamp} (try {self.attempts + 1})"

    def told(self, now: float) -> str:
        """The reason with when it is tried again (what ``status`` and ``doctor`` show)."""
        return self.reason if self.retry_at is None else f"{self.reason}; {self.when(now)}"


def of_collection(conn, collection_id: int) -> dict[str, SkippedFile]:
    for columns in ("path, size, mtime_ns, reason, retry_at, attempts", "path, size, mtime_ns, reason"):
        try:
            rows = conn.execute(f"SELECT {columns} FROM skipped_files WHERE collection_id = ?", (collection_id,))
            return {r[0]: SkippedFile(*r) for r in rows}
        except Exception:  # noqa: BLE001 - an older index (read-only): what it knows, or nothing
            continue
    return {}


def failed(conn, collection_id: int, path: str, size: int, mtime_ns: int, reason: str, passing: bool,
           now: float | None = None) -> SkippedFile:
    """Record a failed try; a passing cause gets its next try after the backoff (a try of the
    same version of the file counts on from the last, a changed file starts again)."""
    now = time.time() if now is None else now
    old = conn.execute("SELECT size, mtime_ns, attempts FROM skipped_files WHERE collection_id = ? AND path = ?",
                       (collection_id, path)).fetchone()
    attempts = old[2] + 1 if old is not None and (old[0], old[1]) == (size, mtime_ns) else 1
    retry_at = now + BACKOFF[min(attempts, len(BACKOFF)) - 1] if passing else None
    skip = SkippedFile(path, size, mtime_ns, reason, retry_at, attempts)
    record(conn, collection_id, [skip])
    return skip


def record(conn, collection_id: int, files: list[SkippedFile]) -> None:
    conn.executemany(
        "INSERT INTO skipped_files(collection_id, path, size, mtime_ns, reason, retry_at, attempts) "
        "VALUES (?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT(collection_id, path) DO UPDATE SET size = excluded.size, "
        "mtime_ns = excluded.mtime_ns, reason = excluded.reason, retry_at = excluded.retry_at, "
        "attempts = excluded.attempts",
        [(collection_id, *f) for f in files],
    )


def forget(conn, collection_id: int, paths: list[str]) -> None:
    conn.executemany(
        "DELETE FROM skipped_files WHERE collection_id = ? AND path = ?", [(collection_id, p) for p in paths]
    )


# The reasons of older syncs that say a cause that can pass (a reader stopped by a limit,
# crashed or silent; a file that could not be opened): tried at the next sync after the upgrade.
_PASSING_REASONS = ("%the document reader%", "%took longer than%", "%s of CPU time%", "%MB of memory to read%",
                    "permission denied%", "unreadable (%")


def migrate_skips(conn, progress=None) -> None:
    """Schema 13 -> 14: ``retry_at`` (NULL: when the file changes) and ``attempts``; the skips
    of older syncs from a cause that can pass are due at once."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(skipped_files)")}
    if "retry_at" not in columns:
        conn.execute("ALTER TABLE skipped_files ADD COLUMN retry_at REAL")
    if "attempts" not in columns:
        conn.execute("ALTER TABLE skipped_files ADD COLUMN attempts INTEGER NOT NULL DEFAULT 1")
    conn.execute("UPDATE skipped_files SET retry_at = 0 WHERE retry_at IS NULL AND size >= 0 AND ("
                 + " OR ".join("reason LIKE ?" for _ in _PASSING_REASONS) + ")", _PASSING_REASONS)
