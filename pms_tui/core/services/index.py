"""The index of one home (``kb.index``): status, sync, the embedding queue, watch, reindex,
repair, the writer lock around them, and the facts about what the index holds (its size, its
queue, its documents, a number that moves when another process writes)."""

from __future__ import annotations

import functools
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

from ..config import DB_FILE, Settings
from ..errors import CollectionError, SyncBusyError
from ..indexing.collections import Collections
from ..indexing.documents import DocumentCounts
from ..indexing.documents import counts as document_counts
from ..results import SyncProgress, SyncReport, SyncStatus
from ..search.vector_index import VectorIndex
from ..store import IndexClosed, Store
from ..store import chunks as chunk_rows
from ..store import collections as collection_rows
from ..store import documents as document_rows
from ..store import fts, health
from ..store import vectors as vector_rows
from ..store.writer_lock import EMBED_LOCK_FILE, WriterBusy, WriterLock
from .model import Model

# The indexing modules (sync, plan, the embedding queue, watch) are imported by the methods that
# use them: an index opened to search (the app's first screen, the MCP server, a one-shot
# search) never needs them, and importing them would delay its start.
if TYPE_CHECKING:
    from ..indexing.embed_queue import DrainResult


_P = ParamSpec("_P")
_R = TypeVar("_R")
_Self = TypeVar("_Self", bound="Index")


def _ends_when_closed(stopped: Callable[[], _R]):
    """A writing method that the index's ``close()`` overtakes ends quietly: its next step met
    the closed store (nothing was written after the close) and it returns ``stopped()``, as a
    cancelled one does. Called on an index already closed, it raises IndexClosed."""
    def wrap(method: Callable[Concatenate[_Self, _P], _R]) -> Callable[Concatenate[_Self, _P], _R]:
        @functools.wraps(method)
        def run(self: _Self, *args: _P.args, **kwargs: _P.kwargs) -> _R:
            was_open = not self._store.closed
            try:
                return method(self, *args, **kwargs)
            except IndexClosed:
                if not was_open:
                    raise
                return stopped()
        return run
    return wrap


class Index:
    """``home``: its writer locks; ``store``, ``settings``, ``collections``: what is indexed and
    how; ``model``: what embeds it (and records itself on a reindex); ``vectors``: the vector
    mirror, reset when the vector table is."""

    def __init__(self, home: Path, settings: Settings, store: Store, collections: Collections, model: Model,
                 vectors: VectorIndex) -> None:
        self._home = home
        self._settings = settings
        self._store = store
        self._collections = collections
        self._model = model
        self._vectors = vectors
        # One writer per home across processes (sync, reindex, remove, repair): a second one
        # waits its turn; ``on_writer_wait(pid)`` (the CLI says so) is told once.
        self.on_writer_wait: Callable[[int | None], None] | None = None
        self._sync_lock = threading.Lock()  # one sync's text written at a time in this process
        self._drain_lock = threading.Lock()  # one drain of the queue at a time in this process
        self._writer_lock = WriterLock(home)
        self._embed_lock = WriterLock(home, EMBED_LOCK_FILE)  # one drain of the queue per home

    def check_sync_status(self, collections: Sequence[str] | None = None) -> SyncStatus:
        """``to_add, to_delete, to_update`` (and ``.summary``, ``.skipped``) without changing anything."""
        from ..indexing.plan import sync_status

        return sync_status(self._store.conn, self._collections.select(collections),
                           self._settings.follow_external_links, self._settings.max_note_bytes)

    @_ends_when_closed(lambda: SyncReport(cancelled=True))
    def sync(
        self,
        progress: SyncProgress | None = None,
        collections: Sequence[str] | None = None,
        only_paths: set[str] | None = None,
        cancel: threading.Event | None = None,
        *,
        embed: bool = True,
        on_wait: Callable[[int | None], None] | None = None,
        wait: bool = False,
        retry_skipped: bool = False,
    ) -> SyncReport:
        """Index what changed: text first (every changed note searchable by its words), then
        the queued vectors (``embed=False`` leaves them to :meth:`embed_pending`, as the app
        does). ``progress(done, total, phase)``: see ``results.SyncProgress``. Setting
        ``cancel`` stops between notes or embedding runs; the report says ``cancelled`` and
        the next sync (or embed_pending) carries on. One writer per home across processes:
        while another holds the writer lock this waits (``on_wait(pid)`` is told once). The
        text of a sync started while another one embeds is written between two embedding
        runs; its texts join that embedding. While another sync of this process writes text,
        this raises SyncBusyError, or with ``wait`` waits its turn (``cancel`` stops the wait).
        A skipped file is tried again when it changes or, for a cause that can pass (a limit,
        a crashed reader), when its backoff is over; ``retry_skipped`` tries every one now."""
        from ..clip.leftovers import remove_leftovers
        from ..indexing.sync import Indexer

        self._model.require_vectors()
        progress = progress or (lambda done, total, phase: None)
        if not self._sync_lock.acquire(blocking=False):
            if not wait:
                raise SyncBusyError("A sync is already running; wait for it to finish.")
            while not self._sync_lock.acquire(timeout=0.1):
                if cancel is not None and cancel.is_set():
                    return SyncReport(cancelled=True)
        started = time.perf_counter()
        try:
            with self._writing(cancel, on_wait):
                selected = self._collections.select(collections)
                report = Indexer(self._store, self._settings, progress, cancel, retry_skipped).run(selected, only_paths)
                for collection in selected:  # a killed clip's temporary file, once old enough
                    remove_leftovers(collection.path)
        except WriterBusy:
            if cancel is None or not cancel.is_set():
                raise
            report = SyncReport(cancelled=True)  # stopped while waiting for another writer
        finally:
            self._sync_lock.release()
        if embed and not report.cancelled:
            drained = self._drain(progress, cancel, on_wait)
            report.chunks_embedded += drained.embedded
            report.embed_seconds += drained.embed_seconds
            report.cancelled = report.cancelled or drained.cancelled
            report.embedding_elsewhere = drained.elsewhere
        report.vectors_pending = vector_rows.pending_count(self._store.conn)
        report.seconds = time.perf_counter() - started
        progress(report.chunks_embedded, report.chunks_embedded, "done")
        return report

    def index_written(self, collection: str, paths: set[str]) -> bool:
        """Index notes a write changed, text only, after a sync of this process; not waiting
        for another process that holds the index (False then: its next sync takes them in)."""
        cancel = threading.Event()

        def other_writer(pid: int | None) -> None:
            if pid != os.getpid():  # this process's own embedding hands the lock over between runs
                cancel.set()

        report = self.sync(collections=[collection], only_paths=paths, cancel=cancel, embed=False,
                           on_wait=other_writer, wait=True)
        return not report.cancelled

    @_ends_when_closed(lambda: 0)
    def embed_pending(
        self,
        progress: SyncProgress | None = None,
        cancel: threading.Event | None = None,
        on_wait: Callable[[int | None], None] | None = None,
    ) -> int:
        """Embed the queued texts (left by ``sync(embed=False)``, a cancel, a crash or a kill);
        returns how many were embedded. Another call running in this process already drains
        the same queue, so this one returns 0 at once."""
        self._model.require_vectors()
        result = self._drain(progress, cancel, on_wait)
        return result.embedded

    def watch(
        self,
        stop: threading.Event,
        *,
        on_sync: Callable[[SyncReport], None] | None = None,
        on_mode: Callable[[str], None] | None = None,
        restart: threading.Event | None = None,
        embed: bool = True,
        force_polling: bool = False,
        poll_seconds: float | None = None,
    ) -> None:
        """Watch every collection's folder until ``stop`` is set, syncing the notes that
        change within ~2 s of a write settling (see ``indexing.watch``); ``on_sync(report)``
        after each sync that changed something, ``on_mode("watching" | "polling every N s")``.
        Set ``restart`` after adding or removing a collection."""
        from ..indexing.watch import Folder
        from ..indexing.watch import watch as watch_folders

        folders = lambda: [Folder(c.name, c.path) for c in self._collections.list()]  # noqa: E731

        def changed(changes: dict) -> None:
            for name, paths in changes.items():
                while not stop.is_set():
                    try:
                        report = self.sync(collections=[name], only_paths=paths, cancel=stop, embed=False)
                        break
                    except SyncBusyError:  # this process syncs already: that sync may predate the edit
                        stop.wait(0.2)
                    except CollectionError:  # removed meanwhile
                        report = None
                        break
                else:
                    return
                if report is not None and on_sync and (report.changed or report.skipped):
                    on_sync(report)
            if embed and not stop.is_set():
                embedded = self.embed_pending(cancel=stop)
                if embedded and on_sync:
                    on_sync(SyncReport(chunks_embedded=embedded))

        options: dict[str, Any] = {"poll_seconds": poll_seconds} if poll_seconds else {}
        watch_folders(folders, changed, stop, restart=restart, on_mode=on_mode, force_polling=force_polling,
                      **options)

    @property
    def vectors_pending(self) -> int:
        """Texts waiting in the embedding queue."""
        return vector_rows.pending_count(self._store.conn)

    def _drain(self, progress, cancel, on_wait) -> DrainResult:
        """Embed the queue unless it is being embedded already: by another call in this
        process, or by another process (its pid in ``elsewhere``); either takes in what this
        sync queued, since a drain goes on until the queue is empty. After letting go, the
        queue is looked at once more: a sync that queued texts and found the drain still
        busy a moment before it ended is not left waiting for the next sync."""
        from ..indexing.embed_queue import DrainResult, drain

        total = DrainResult()
        while vector_rows.pending_count(self._store.conn):
            if not self._drain_lock.acquire(blocking=False):
                return total
            try:
                try:
                    self._embed_lock.acquire(wait=False)
                except WriterBusy as exc:  # another process drains this home's queue
                    total.elsewhere = exc.pid
                    return total
                try:
                    part = drain(self._store, self._model.embedder, lambda: self._writer_lock.hold(True, None, cancel),
                                 progress, cancel)
                finally:
                    self._embed_lock.release()
            except WriterBusy:  # cancelled while waiting for another writer
                total.cancelled = True
                return total
            finally:
                self._drain_lock.release()
            total.embedded += part.embedded
            total.embed_seconds += part.embed_seconds
            if part.cancelled:
                total.cancelled = True
                return total
        return total

    @contextmanager
    def _writing(self, cancel: threading.Event | None = None, on_wait=None) -> Iterator[None]:
        """Hold the writer lock (an embedding drain holds it only between its runs)."""
        self._store.require_writable()  # a read-only index says so in one sentence
        self._writer_lock.acquire(True, on_wait or self.on_writer_wait, cancel)  # WriterBusy only when cancelled
        try:
            yield
        finally:
            self._writer_lock.release()

    def reindex(self, progress: SyncProgress | None = None, cancel: threading.Event | None = None) -> SyncReport:
        """Read every note again and re-embed every text with the configured model, in place:
        one transaction retires every vector (a new vector table; no vector of the old model
        stays findable), marks every note changed and records the model; the sync that follows
        rewrites each note in its own transaction. Until a note is rewritten its old passages
        stay searchable by their words, and a kill or cancel loses nothing: the next sync
        carries on where this one stopped."""
        if not self._sync_lock.acquire(blocking=False):
            raise SyncBusyError("A sync is already running; wait for it to finish.")
        try:
            with self._writing(cancel), self._store.transaction() as conn:
                document_rows.mark_all_stale(conn)
                vector_rows.retire_all(conn, self._model.embedder.dim)
                self._model.record(conn)
            self._model.mismatch = None
            self._vectors.reset(self._model.embedder.dim)
        finally:
            self._sync_lock.release()
        report = self.sync(progress, cancel=cancel)
        report.reindexed = True
        return report

    @contextmanager
    def writing(self, cancel: threading.Event | None = None) -> Iterator[None]:
        """Hold this home's writer lock (waiting for another writer); the index must be writable."""
        with self._writing(cancel, self.on_writer_wait):
            yield

    def repair(self, progress: SyncProgress | None = None) -> tuple[list[str], SyncReport]:
        """Rebuild what can be rebuilt from the notes, then sync: the full-text index, vectors
        out of step with the vector table (the notes using a lost vector are re-read, and only
        the missing texts embedded). A damaged file is handled by :func:`repair_home`."""
        with self.writing():
            steps = health.repair_in_place(self._store.conn)
            self._vectors.reset(self._model.index_dim())
            report = self.sync(progress)
        return steps, report

    # -- what the index holds ----------------------------------------------------------------
    @property
    def read_only(self) -> bool:
        """True when the index file cannot be written here (searching still works)."""
        return self._store.read_only

    def writer_at_work(self) -> int | None:
        """The pid of the process writing to this index now; None: nobody (or a read-only home,
        where nobody can)."""
        return _at_work(self._writer_lock)

    def embedder_at_work(self) -> int | None:
        """The pid of the process embedding this index's waiting texts now (a sync, watch or
        the app); None: nobody."""
        return os.getpid() if self._embed_lock.held else _at_work(self._embed_lock)

    def data_version(self) -> int:
        """A number that moves when another connection commits to the index (another process's
        sync, clip or new collection): one pragma, cheap enough for the app to poll."""
        return fts.change_key(self._store.conn)[0]

    def stats(self) -> dict:
        """Notes, chunks, vectors (stored and queued), collections, the file's bytes, the model."""
        conn = self._store.conn
        size = sum(p.stat().st_size for p in self._home.glob(DB_FILE + "*") if p.is_file())
        return {
            "documents": document_rows.count(conn),
            "chunks": chunk_rows.count(conn),
            "vectors": vector_rows.count(conn),
            "vectors_pending": vector_rows.pending_count(conn),
            "collections": collection_rows.count(conn),
            "db_bytes": size,
            "model": self._model.embedder.model_name,
        }

    def document_counts(self) -> dict[str, DocumentCounts]:
        """{collection: its PDF and Word files read, by kind, and those skipped with the reason}."""
        return {c.name: document_counts(self._store.conn, c.id) for c in self._collections.list()}


def _at_work(lock: WriterLock) -> int | None:
    """The pid holding ``lock`` (another process), or None when it is free or cannot be asked."""
    try:
        with lock.hold(wait=False):
            return None
    except WriterBusy as exc:
        return exc.pid
    except OSError:
        return None
