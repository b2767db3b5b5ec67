"""Sync planning: compare a collection's folder with the index, doing as little work as can be.

A file whose size and mtime match its row is unchanged without being read. Otherwise it is
hashed (SHA-256); the same hash only refreshes the stat. Planning reads the store and the
folder and writes nothing: ``kb.check_sync_status`` is a plan and nothing more.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..results import PendingFile, SyncStatus
from ..store import documents as document_rows
from .collections import Collection
from .notes import sha256_file, walk_notes


@dataclass
class FileState:
    rel: str
    size: int
    mtime_ns: int


@dataclass
class CollectionPlan:
    collection: Collection
    new: list[FileState]
    modified: list[FileState]
    touched: list[tuple[FileState, int]]  # same content, new stat: (state, document id)
    deleted: list[tuple[str, int]]  # (rel, document id)
    unchanged: int
    problem: str | None = None


def plan_collection(conn, collection: Collection, only_paths: set[str] | None = None) -> CollectionPlan:
    """Compare the folder with the index: stat first, hash only where the stat differs."""
    if not collection.path.is_dir():
        indexed = document_rows.count(conn, collection.id)
        return CollectionPlan(
            collection, [], [], [], [], 0,
            problem=f"The folder of {collection.name!r} ({collection.path}) is missing; "
            f"its {indexed} indexed notes are kept until it is back or the collection is removed.",
        )
    rows = document_rows.stats_of_collection(conn, collection.id)
    plan = CollectionPlan(collection, [], [], [], [], 0)
    seen: set[str] = set()
    for rel, stat in walk_notes(collection.path):
        if only_paths is not None and rel not in only_paths:
            continue
        seen.add(rel)
        state = FileState(rel, stat.st_size, stat.st_mtime_ns)
        row = rows.get(rel)
        if row is None:
            plan.new.append(state)
            continue
        if row.size == state.size and row.mtime_ns == state.mtime_ns:
            plan.unchanged += 1
            continue
        try:
            same = sha256_file(collection.path / rel) == row.sha256
        except OSError:
            same = False
        if same:
            plan.touched.append((state, row.id))
        else:
            plan.modified.append(state)
    for rel, row in rows.items():
        if rel not in seen and (only_paths is None or rel in only_paths):
            plan.deleted.append((rel, row.id))
    plan.new.sort(key=lambda s: s.rel)
    plan.modified.sort(key=lambda s: s.rel)
    return plan


def sync_status(conn, collections: list[Collection]) -> SyncStatus:
    """What a sync of these collections would add, delete and update."""
    result = SyncStatus([], [], [])
    for collection in collections:
        plan = plan_collection(conn, collection)
        result.to_add.extend(PendingFile(collection.name, s.rel) for s in plan.new)
        result.to_update.extend(PendingFile(collection.name, s.rel) for s in plan.modified)
        result.to_delete.extend(PendingFile(collection.name, rel) for rel, _ in plan.deleted)
    return result
