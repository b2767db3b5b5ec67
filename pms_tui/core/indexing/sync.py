"""Sync: bring the index in step with the folders, doing only the work that changed.

A file whose size and mtime match its row is unchanged without being read. Otherwise it is
hashed (SHA-256); the same hash only refreshes the stat. Changed files are chunked, and only
chunks whose embed_text has never been embedded go to the model: vectors are keyed by the
hash of their embed_text, so an edited paragraph re-embeds one chunk and identical chunks
share one vector. Each document is written in its own transaction, so a crash leaves a
consistent index that the next sync completes.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .chunk import parse_note
from .collections import Collection, walk_notes
from .embed import embed_hash
from .results import PendingFile, SyncReport, SyncStatus
from .vector_index import bump_generation

if TYPE_CHECKING:
    from .kb import KnowledgeBase

Progress = Callable[[int, int, str], None]
# Documents are embedded in groups: enough chunks to fill length-sorted batches well,
# few enough that memory stays bounded and progress moves.
EMBED_GROUP_CHUNKS = 512
MAX_NOTE_BYTES = 20_000_000
# Merge the full-text index after a sync that wrote at least this many chunks and this share
# of the index (see Indexer._compact_fts).
FTS_COMPACT_MIN_CHUNKS = 1000
FTS_COMPACT_SHARE = 0.1


class SkipFile(Exception):
    """A file that cannot be indexed; the message is the reason shown in the report."""


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


@dataclass
class PreparedDoc:
    collection: Collection
    state: FileState
    sha256: str
    title: str
    frontmatter: dict
    chunks: list  # chunk.Chunk
    hashes: list[str]
    is_new: bool


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def plan_collection(conn, collection: Collection, only_paths: set[str] | None = None) -> CollectionPlan:
    """Compare the folder with the index: stat first, hash only where the stat differs."""
    if not collection.path.is_dir():
        indexed = conn.execute(
            "SELECT count(*) FROM documents WHERE collection_id = ?", (collection.id,)
        ).fetchone()[0]
        return CollectionPlan(
            collection, [], [], [], [], 0,
            problem=f"The folder of {collection.name!r} ({collection.path}) is missing; "
            f"its {indexed} indexed notes are kept until it is back or the collection is removed.",
        )
    rows = {
        r[0]: r[1:]
        for r in conn.execute(
            "SELECT path, id, sha256, size, mtime_ns FROM documents WHERE collection_id = ?",
            (collection.id,),
        )
    }
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
        doc_id, sha, size, mtime_ns = row
        if size == state.size and mtime_ns == state.mtime_ns:
            plan.unchanged += 1
            continue
        try:
            same = sha256_file(collection.path / rel) == sha
        except OSError:
            same = False
        if same:
            plan.touched.append((state, doc_id))
        else:
            plan.modified.append(state)
    for rel, row in rows.items():
        if rel not in seen and (only_paths is None or rel in only_paths):
            plan.deleted.append((rel, row[0]))
    plan.new.sort(key=lambda s: s.rel)
    plan.modified.sort(key=lambda s: s.rel)
    return plan


def status(kb: "KnowledgeBase", collections: list[Collection]) -> SyncStatus:
    result = SyncStatus([], [], [])
    conn = kb.store.conn
    for collection in collections:
        plan = plan_collection(conn, collection)
        result.to_add.extend(PendingFile(collection.name, s.rel) for s in plan.new)
        result.to_update.extend(PendingFile(collection.name, s.rel) for s in plan.modified)
        result.to_delete.extend(PendingFile(collection.name, rel) for rel, _ in plan.deleted)
    return result


def read_note(path: Path) -> tuple[str, str]:
    """(text, sha256) of a note, or SkipFile with the reason it cannot be indexed."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise SkipFile("deleted during sync") from None
    except PermissionError:
        raise SkipFile("permission denied") from None
    except OSError as exc:
        raise SkipFile(f"unreadable ({exc.strerror or exc})") from None
    if len(data) > MAX_NOTE_BYTES:
        raise SkipFile(f"too large ({len(data) // 1_000_000} MB)")
    if b"\x00" in data[:8192]:
        raise SkipFile("binary file, not Markdown")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SkipFile(f"not UTF-8 text (bad byte at offset {exc.start})") from None
    return text, hashlib.sha256(data).hexdigest()


class Indexer:
    """Runs one sync: plans, prepares, embeds and writes, reporting progress."""

    def __init__(self, kb: "KnowledgeBase", progress: Progress | None = None):
        self.kb = kb
        self.conn = kb.store.conn
        self.progress = progress or (lambda done, total, phase: None)
        self.report = SyncReport()
        self.done = 0
        self.total = 0

    def run(self, collections: list[Collection], only_paths: set[str] | None = None) -> SyncReport:
        started = time.perf_counter()
        self.progress(0, 0, "scanning")
        plans = [plan_collection(self.conn, c, only_paths) for c in collections]
        for plan in plans:
            if plan.problem:
                self.report.problems.append(plan.problem)
            self.report.unchanged += plan.unchanged
        self.total = sum(len(p.new) + len(p.modified) + len(p.deleted) for p in plans)
        for plan in plans:
            self._apply_touched(plan)
            self._delete(plan)
        pending: list[PreparedDoc] = []
        pending_chunks = 0
        for plan in plans:
            for state, is_new in [(s, True) for s in plan.new] + [(s, False) for s in plan.modified]:
                doc = self._prepare(plan.collection, state, is_new)
                if doc is None:
                    continue
                pending.append(doc)
                pending_chunks += len(doc.chunks)
                if pending_chunks >= EMBED_GROUP_CHUNKS:
                    self._flush(pending)
                    pending, pending_chunks = [], 0
        self._flush(pending)
        if self.report.deleted or self.report.modified:
            collect_garbage(self.conn)  # an edit or a delete may leave vectors no chunk uses
        self._compact_fts()
        now = time.time()
        for plan in plans:
            if not plan.problem:
                self.conn.execute("UPDATE collections SET last_sync = ? WHERE id = ?", (now, plan.collection.id))
        self.report.seconds = time.perf_counter() - started
        self.progress(self.total, self.total, "done")
        return self.report

    def _tick(self, phase: str) -> None:
        self.done += 1
        self.progress(self.done, self.total, phase)

    def _apply_touched(self, plan: CollectionPlan) -> None:
        if not plan.touched:
            return
        with_tx(self.conn, lambda: self.conn.executemany(
            "UPDATE documents SET size = ?, mtime_ns = ? WHERE id = ?",
            [(s.size, s.mtime_ns, doc_id) for s, doc_id in plan.touched],
        ))
        self.report.unchanged += len(plan.touched)

    def _delete(self, plan: CollectionPlan) -> None:
        for rel, doc_id in plan.deleted:
            with_tx(self.conn, lambda: self.conn.execute("DELETE FROM documents WHERE id = ?", (doc_id,)))
            self.report.deleted.append(f"{plan.collection.name}/{rel}")
            self._tick("deleting")

    def _prepare(self, collection: Collection, state: FileState, is_new: bool) -> PreparedDoc | None:
        label = f"{collection.name}/{state.rel}"
        path = collection.path / state.rel
        try:
            text, sha = read_note(path)
            settings = self.kb.settings
            note = parse_note(text, Path(state.rel).name, settings.chunk_target, settings.chunk_overlap)
        except SkipFile as exc:
            self.report.skipped.append((label, str(exc)))
            self._tick("indexing")
            return None
        except Exception as exc:  # a parser bug must not stop the sync
            self.report.skipped.append((label, f"could not be parsed ({type(exc).__name__}: {exc})"))
            self._tick("indexing")
            return None
        try:  # the stat of what was read, so a file edited during sync is picked up next time
            stat = path.stat()
            state = FileState(state.rel, stat.st_size, stat.st_mtime_ns)
        except OSError:
            pass
        hashes = [embed_hash(c.embed_text) for c in note.chunks]
        return PreparedDoc(collection, state, sha, note.title, note.metadata, note.chunks, hashes, is_new)

    def _flush(self, docs: list[PreparedDoc]) -> None:
        if not docs:
            return
        vector_ids = self._ensure_vectors(docs)
        for doc in docs:
            with_tx(self.conn, lambda: self._write_document(doc, vector_ids))
            (self.report.added if doc.is_new else self.report.modified).append(
                f"{doc.collection.name}/{doc.state.rel}"
            )
            self.report.chunks_written += len(doc.chunks)
            self._tick("indexing")

    def _ensure_vectors(self, docs: list[PreparedDoc]) -> dict[str, int]:
        """Vector ids for every chunk hash in ``docs``, embedding only unknown texts."""
        wanted: dict[str, str] = {}
        for doc in docs:
            for chunk, h in zip(doc.chunks, doc.hashes):
                wanted.setdefault(h, chunk.embed_text)
        known = lookup_vectors(self.conn, list(wanted))
        missing = [h for h in wanted if h not in known]
        total_chunks = sum(len(d.chunks) for d in docs)
        self.report.chunks_reused += total_chunks - len(missing)
        if missing:
            self.progress(self.done, self.total, "embedding")
            started = time.perf_counter()
            vectors = self.kb.embedder.embed_documents([wanted[h] for h in missing])
            self.report.embed_seconds += time.perf_counter() - started
            self.report.chunks_embedded += len(missing)
            known.update(with_tx(self.conn, lambda: insert_vectors(self.conn, missing, vectors)))
        return known

    def _write_document(self, doc: PreparedDoc, vector_ids: dict[str, int]) -> None:
        conn = self.conn
        row = conn.execute(
            "SELECT id FROM documents WHERE collection_id = ? AND path = ?", (doc.collection.id, doc.state.rel)
        ).fetchone()
        values = (doc.title, doc.sha256, doc.state.size, doc.state.mtime_ns,
                  json.dumps(doc.frontmatter, ensure_ascii=False, default=str), time.time())
        if row:
            doc_id = row[0]
            conn.execute("DELETE FROM chunks WHERE document_id = ?", (doc_id,))
            conn.execute(
                "UPDATE documents SET title = ?, sha256 = ?, size = ?, mtime_ns = ?, frontmatter = ?, "
                "indexed_at = ? WHERE id = ?",
                (*values, doc_id),
            )
        else:
            doc_id = conn.execute(
                "INSERT INTO documents(collection_id, path, title, sha256, size, mtime_ns, frontmatter, "
                "indexed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (doc.collection.id, doc.state.rel, *values),
            ).lastrowid
        conn.executemany(
            "INSERT INTO chunks(document_id, seq, start_line, end_line, title, heading, body, vector_id) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (doc_id, c.seq, c.start_line, c.end_line, doc.title, " > ".join(c.heading_path),
                 c.text, vector_ids[h])
                for c, h in zip(doc.chunks, doc.hashes)
            ],
        )

    def _compact_fts(self) -> None:
        """After a large sync, merge the full-text index into one segment.

        Every flush adds FTS5 segments; automerge keeps a few dozen, and each query then seeks
        every query word in each of them (about a third of a short query's time at 100,000
        chunks). Merging costs ~0.6 s per 100,000 chunks, so it is done only when the sync
        wrote a good share of the index; the WAL it grows is checkpointed away.
        """
        written = self.report.chunks_written
        if written < FTS_COMPACT_MIN_CHUNKS:
            return
        total = self.conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        if written < FTS_COMPACT_SHARE * total:
            return
        with_tx(self.conn, lambda: self.conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('optimize')"))
        try:
            self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except Exception:  # a reader holds the WAL: it is checkpointed later
            pass



def collect_garbage(conn) -> int:
    """Drop vectors no chunk uses any more (after deletes, edits and removed collections)."""
    def drop() -> int:
        orphans = [r[0] for r in conn.execute(
            "SELECT id FROM vectors WHERE id NOT IN (SELECT vector_id FROM chunks)"
        )]
        for start in range(0, len(orphans), 500):
            part = orphans[start : start + 500]
            marks = ",".join("?" * len(part))
            conn.execute(f"DELETE FROM vec_vectors WHERE rowid IN ({marks})", part)
            conn.execute(f"DELETE FROM vectors WHERE id IN ({marks})", part)
        if orphans:
            bump_generation(conn)
        return len(orphans)

    return with_tx(conn, drop)


def with_tx(conn, work):
    """Run ``work`` in one IMMEDIATE transaction (the busy timeout waits out other writers)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        result = work()
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return result


def lookup_vectors(conn, hashes: list[str]) -> dict[str, int]:
    """Vector ids of the known hex hashes (stored as 32 raw bytes: half the size of hex)."""
    found: dict[str, int] = {}
    for start in range(0, len(hashes), 500):
        part = [bytes.fromhex(h) for h in hashes[start : start + 500]]
        marks = ",".join("?" * len(part))
        for digest, vid in conn.execute(f"SELECT hash, id FROM vectors WHERE hash IN ({marks})", part):
            found[bytes(digest).hex()] = vid
    return found


def insert_vectors(conn, hashes: list[str], vectors: np.ndarray) -> dict[str, int]:
    ids: dict[str, int] = {}
    for h, vector in zip(hashes, vectors):
        vid = conn.execute("INSERT INTO vectors(hash) VALUES (?)", (bytes.fromhex(h),)).lastrowid
        conn.execute(
            "INSERT INTO vec_vectors(rowid, embedding) VALUES (?, ?)",
            (vid, np.ascontiguousarray(vector, dtype=np.float32).tobytes()),
        )
        ids[h] = vid
    bump_generation(conn)
    return ids

