"""Compacting the index file: SQLite's VACUUM, into ``PAGE_SIZE`` pages, with no free pages.

A sync that deletes notes, and the in-place upgrades of schemas 8 and 9 (which moved rows),
leave free pages in the file, and an index made before 8 KB pages keeps 4 KB ones: such a
file stays larger than a new index of the same notes. VACUUM rewrites it. Its page size can
only change outside WAL mode, and leaving WAL mode needs the only connection to the file, so
that is also how another program with the index open is noticed (and nothing is changed).
VACUUM writes a whole copy before replacing the file, so it needs that much free space.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from ..errors import StoreError
from .connection import DatabaseError, connect
from .database import PAGE_SIZE

# doctor suggests compacting an index of 4 KB pages, or one whose free pages are at least this
# share of the file (and at least WORTH_MIN_BYTES), or at least WORTH_BYTES however large it is
WORTH_SHARE = 0.1
WORTH_MIN_BYTES = 1_000_000
WORTH_BYTES = 50_000_000
SPACE_MARGIN = 1.1  # free disk space wanted, as a share of the file (VACUUM's copy, its journal)


@dataclass(frozen=True)
class FileShape:
    """What the index file holds: its size, page size and free pages."""

    bytes: int
    page_size: int
    free_pages: int

    @property
    def free_bytes(self) -> int:
        return self.free_pages * self.page_size

    @property
    def worth_compacting(self) -> bool:
        """Would ``compact`` make a difference a person cares about?"""
        return (self.page_size < PAGE_SIZE
                or self.free_bytes >= max(WORTH_SHARE * self.bytes, WORTH_MIN_BYTES)
                or self.free_bytes >= WORTH_BYTES)

    def describe(self) -> str:
        return (f"{self.bytes / 1e6:.1f} MB, {self.page_size // 1024} KB pages, "
                f"{self.free_bytes / 1e6:.1f} MB free")


def shape(conn, path: Path) -> FileShape:
    """The file's shape, read through ``conn`` (the WAL's pages not yet copied back are not
    counted in the size)."""
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    free = conn.execute("PRAGMA freelist_count").fetchone()[0]
    return FileShape(os.path.getsize(path), page_size, free)


def compact(path: Path) -> tuple[FileShape, FileShape]:
    """Rewrite the index file at ``path`` (shape before, shape after). The caller holds the
    writer lock. Raises StoreError with the reason, the file unchanged, when another program
    has it open or the disk has no room for VACUUM's copy."""
    conn = connect(path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        before = shape(conn, path)
        room = shutil.disk_usage(path.parent).free
        if room < SPACE_MARGIN * before.bytes:
            raise StoreError(
                f"Compacting {path} needs about {SPACE_MARGIN * before.bytes / 1e6:.0f} MB of free disk "
                f"space for its copy, and {room / 1e6:.0f} MB are free; nothing was changed.")
        try:
            mode = conn.execute("PRAGMA journal_mode = DELETE").fetchone()[0]
        except DatabaseError:
            mode = "wal"
        if mode.lower() != "delete":
            raise StoreError(
                "Another program has the index open (the app, `pms-tui watch`, an MCP server or "
                "another command): close it and run `pms-tui compact` again; nothing was changed.")
        try:
            conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")
            conn.execute("VACUUM")
        except DatabaseError as exc:
            raise StoreError(f"Compacting {path} stopped: {exc}; the index is as it was.") from None
        finally:
            conn.execute("PRAGMA journal_mode = WAL")
        return before, shape(conn, path)
    finally:
        conn.close()
