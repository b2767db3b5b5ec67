"""The ``skipped_files`` table: notes sync could not index, with the stat they had then.

``status`` reads it to count such a file as skipped (with its reason) instead of new; when the
file's size or mtime changes it is new again, and the next sync tries it once more.
"""

from __future__ import annotations

from typing import NamedTuple


class SkippedFile(NamedTuple):
    path: str
    size: int
    mtime_ns: int
    reason: str


def of_collection(conn, collection_id: int) -> dict[str, SkippedFile]:
    try:
        rows = conn.execute(
            "SELECT path, size, mtime_ns, reason FROM skipped_files WHERE collection_id = ?", (collection_id,)
        )
        return {r[0]: SkippedFile(*r) for r in rows}
    except Exception:  # noqa: BLE001 - an index older than the table (read-only): nothing known
        return {}


def record(conn, collection_id: int, files: list[SkippedFile]) -> None:
    conn.executemany(
        "INSERT INTO skipped_files(collection_id, path, size, mtime_ns, reason) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT(collection_id, path) DO UPDATE SET size = excluded.size, "
        "mtime_ns = excluded.mtime_ns, reason = excluded.reason",
        [(collection_id, *f) for f in files],
    )


def forget(conn, collection_id: int, paths: list[str]) -> None:
    conn.executemany(
        "DELETE FROM skipped_files WHERE collection_id = ? AND path = ?", [(collection_id, p) for p in paths]
    )
