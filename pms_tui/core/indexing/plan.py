"""Sync planning: compare a collection's folder with the index, doing as little work as can be.

A file whose size and mtime match its row is unchanged without being read. Otherwise it is
hashed (SHA-256); the same hash only refreshes the stat. A row made by another chunker or
reader than today's (an older one) (``documents.made_by``) is read and chunked again, whatever its stat. Planning reads the store and the
folder and writes nothing: ``kb.check_sync_status`` is a plan and nothing more.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..results import PendingFile, SyncStatus
from ..store import documents as document_rows
from ..store import skipped as skipped_rows
from .collections import Collection
from . import documents as document_rules
from .notes import MAX_NOTE_BYTES, TOO_LARGE, sha256_file, walk_notes


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
    # files a sync skipped before and that have not changed since, as (rel, reason)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    # links not followed that no sync has reported yet, as (rel, reason)
    link_skips: list[tuple[str, str]] = field(default_factory=list)
    # skipped files that are gone (or now indexed): their records can go
    stale_skips: list[str] = field(default_factory=list)
    # skipped files in ``new`` because their next try is due, as rel -> reason and when
    due_skips: dict[str, str] = field(default_factory=dict)
    # (notes, documents) the walk found: what ``Collection.file_counts`` counts, without a second walk
    files: tuple[int, int] = (0, 0)


def plan_collection(
    conn, collection: Collection, only_paths: set[str] | None = None, follow_external_links: bool = False,
    max_note_bytes: int = MAX_NOTE_BYTES, retry_skipped: bool = False,
) -> CollectionPlan:
    """Compare the folder with the index: stat first, hash only where the stat differs. A
    file skipped for its size is new again once ``max_note_bytes`` allows it; one skipped for
    a cause that can pass, once its next try is due (store/skipped.py); with
    ``retry_skipped``, every skipped file."""
    if not collection.path.is_dir():
        indexed = document_rows.count(conn, collection.id)
        return CollectionPlan(
            collection, [], [], [], [], 0,
            problem=f"The folder of {collection.name!r} ({collection.path}) is missing; "
            f"its {indexed:,} indexed {'note is' if indexed == 1 else 'notes are'} kept until it is back or "
            f"the collection is removed.",
        )
    rows = document_rows.stats_of_collection(conn, collection.id)
    known_skips = skipped_rows.of_collection(conn, collection.id)
    now = time.time()
    plan = CollectionPlan(collection, [], [], [], [], 0)
    seen: set[str] = set()
    link_skips: list[tuple[str, str]] = []
    for rel, stat in walk_notes(collection.path, follow_external_links, link_skips, documents=True):
        if only_paths is not None and rel not in only_paths:
            continue
        seen.add(rel)
        state = FileState(rel, stat.st_size, stat.st_mtime_ns)
        row = rows.get(rel)
        if row is None:
            skip = known_skips.get(rel)
            if skip is not None and (skip.size, skip.mtime_ns) == (state.size, state.mtime_ns) and not (
                skip.reason.startswith(TOO_LARGE) and state.size <= max_note_bytes
            ) and not _reader_now_installed(rel, skip.reason):
                if retry_skipped or skip.due(now):  # tried again, and told as skipped until then
                    plan.new.append(state)
                    plan.due_skips[rel] = skip.reason + "; " + (
                        "tried again at the next sync" if retry_skipped else skip.when(now))
                else:
                    plan.skipped.append((rel, skip.told(now)))  # skipped before, unchanged since
            else:
                plan.new.append(state)
            continue
        if (row.chunker_version, row.reader_version) != document_rules.made_by(rel):
            plan.modified.append(state)  # made by another chunker or reader: made again
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
    documents = sum(1 for rel in seen if document_rules.is_document_name(rel))
    plan.files = (len(seen) - documents, documents)
    for rel, row in rows.items():
        if rel not in seen and (only_paths is None or rel in only_paths):
            plan.deleted.append((rel, row.id))
    for rel, why in link_skips:
        if only_paths is not None and rel not in only_paths:
            continue
        seen.add(rel)
        old = known_skips.get(rel)
        (plan.skipped if old is not None and old.reason == why else plan.link_skips).append((rel, why))
    plan.stale_skips = [rel for rel in known_skips
                        if (rel not in seen or rel in rows) and (only_paths is None or rel in only_paths)]
    plan.new.sort(key=lambda s: s.rel)
    plan.modified.sort(key=lambda s: s.rel)
    plan.skipped.sort()
    return plan


def _reader_now_installed(rel: str, reason: str) -> bool:
    """A document skipped for want of its reader (or of OCR) is new again once it is installed."""
    return document_rules.is_document_name(rel) and (
        (reason.startswith(document_rules.NO_READER) and document_rules.reader_installed(rel))
        or document_rules.ocr_now_installed(reason))


def sync_status(conn, collections: list[Collection], follow_external_links: bool = False,
                max_note_bytes: int = MAX_NOTE_BYTES) -> SyncStatus:
    """What a sync of these collections would add, delete and update (and what it skips)."""
    result = SyncStatus([], [], [])
    for collection in collections:
        plan = plan_collection(conn, collection, follow_external_links=follow_external_links,
                               max_note_bytes=max_note_bytes)
        result.skipped.extend(
            (PendingFile(collection.name, rel), why)
            for rel, why in sorted(plan.skipped + plan.link_skips + list(plan.due_skips.items()))
        )
        result.to_add.extend(PendingFile(collection.name, s.rel) for s in plan.new if s.rel not in plan.due_skips)
        result.to_update.extend(PendingFile(collection.name, s.rel) for s in plan.modified)
        result.to_delete.extend(PendingFile(collection.name, rel) for rel, _ in plan.deleted)
        result.files[collection.name] = plan.files
    return result
