"""KnowledgeBase: the engine's one front door, used by the CLI, the terminal UI, the eval
harness, scripts and tests.

    kb = KnowledgeBase(home="~/kb")      # or PMS_TUI_HOME, or the platform's user data dir
    kb.collections.create("./notes", name="notes")
    kb.sync()
    for hit in kb.search("undo the last commit", k=5):
        print(hit.score, hit.path, hit.start_line)

Front ends import this module (and the other top-level contract modules: errors, results,
config, markdown), never the rooms below it. The rooms receive what they need (the store,
the settings, the embedder, a callable or two), never the KnowledgeBase: data flows one way,
files -> chunks -> store -> retrieval -> UI.
"""

from __future__ import annotations

import hashlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

from .clip.html_to_markdown import ExtractedPage, extract_from_html, extract_from_url
from .clip.note import ClipResult, clip_url
from .config import DB_FILE, Settings, default_home, load_settings
from .errors import (
    ClipError,
    CollectionError,
    ConfigError,
    EmbeddingModelError,
    ModelMismatchError,
    PmsError,
    SkipFile,
    StoreError,
    SyncBusyError,
    UsageError,
    describe,
)
from .indexing import chunk as _chunk_module
from .indexing import frontmatter as _frontmatter_module
from .indexing.chunk import Chunk, chunk_markdown, parse_note
from .indexing import facets as facet_rules
from .indexing.collections import Collection, Collections
from .indexing.embed import Embedder
from .indexing.frontmatter import split_frontmatter
from .indexing.notes import MAX_NOTE_BYTES, read_note, sha256_file, walk_notes
from .indexing.plan import sync_status
from .indexing.embed_queue import DrainResult, drain
from .indexing.sync import Indexer
from .indexing.watch import Folder
from .indexing.watch import watch as watch_folders
from .results import (
    MODES,
    SNIPPET_CLOSE,
    SNIPPET_OPEN,
    Evidence,
    Hit,
    NoteExplanation,
    PendingFile,
    SearchResult,
    SyncProgress,
    SyncReport,
    SyncStatus,
)
from .search.fusion import fuse
from .search.hits import hit_from_row, preview
from .search.query_syntax import Ignored, ParsedQuery, parse as parse_query
from .search.retrieval import Retrieval
from .search.vector_index import VectorIndex
from .store import Store, check_driver, transaction
from .store import health
from .store import chunks as chunk_rows
from .store import collections as collection_rows
from .store import documents as document_rows
from .store import facets as facet_rows
from .store import meta
from .store import vectors as vector_rows
from .store.schema import ensure_vector_table
from .store.writer_lock import WriterBusy, WriterLock

__all__ = [
    "MAX_NOTE_BYTES", "MODES", "SNIPPET_CLOSE", "SNIPPET_OPEN", "Check", "Chunk", "ClipError",
    "ClipResult", "Collection", "CollectionError", "ConfigError", "EmbeddingModelError", "Evidence",
    "ExtractedPage", "Hit", "Ignored", "NoteExplanation", "ParsedQuery", "parse_query", "KnowledgeBase", "ModelMismatchError", "PendingFile", "PmsError",
    "SearchResult", "Settings", "SkipFile", "StoreError", "SyncBusyError", "SyncProgress",
    "SyncReport", "SyncStatus", "UsageError", "WriterBusy", "repair_home", "chunk_markdown", "describe", "environment_checks",
    "extract_from_html", "extract_from_url", "fuse", "indexing_fingerprint", "parse_note",
    "read_note", "sha256_file", "split_frontmatter", "walk_notes",
]


class Check(NamedTuple):
    """One line of ``pms-tui doctor``."""

    label: str
    ok: bool
    detail: str


class KnowledgeBase:
    def __init__(self, home: str | os.PathLike | None = None, settings: Settings | None = None):
        self.home = Path(home).expanduser() if home else default_home()
        self.home.mkdir(parents=True, exist_ok=True)
        self.settings = settings or load_settings(self.home)
        self.db_path = self.home / DB_FILE
        self.store = Store(self.db_path)
        # One writer per home across processes (sync, reindex, remove, repair): a second one
        # waits its turn; ``on_writer_wait(pid)`` (the CLI says so) is told once.
        self.on_writer_wait = None
        self.embedder = Embedder(self.settings.model, self.settings.embed_batch_size, self.settings.max_tokens)
        self._model_state = "not loaded"
        self.model_error: str | None = None
        self.model_mismatch: str | None = self._check_model()
        self.vectors = VectorIndex(self.store, self._index_dim())
        self.collections = Collections(self.store, clip=self.clip, writing=self.writing)
        self.retrieval = Retrieval(
            self.store, self.settings, self.embedder, self.vectors, self.collections.ids, self.require_vectors,
            lambda: [c.name for c in self.collections.list()],
        )
        facet_rules.backfill(self.store)  # once, on an index older than its tags and dates
        self._sync_lock = threading.Lock()
        self._drain_lock = threading.Lock()
        self.writer_lock = WriterLock(self.home)
        self._writer_wanted = threading.Event()
        self._writers_waiting = 0
        self._wanted_guard = threading.Lock()

    # -- the embedding model -------------------------------------------------------------------
    @property
    def embedder(self) -> Embedder:
        return self._embedder

    @embedder.setter
    def embedder(self, embedder: Embedder) -> None:
        """Swap the embedder (benchmarks index with a fake one); search and sync follow."""
        self._embedder = embedder
        if "retrieval" in self.__dict__:
            self.retrieval.embedder = embedder

    def _check_model(self) -> str | None:
        """Record the model on a new index; on an old one, say if it was built with another."""
        conn = self.store.conn
        stored, dim = meta.recorded_model(conn)
        if stored is None and self.store.read_only:
            return None  # an empty read-only index: nothing to compare
        if stored is None:
            with transaction(conn):
                self._record_model(conn)
            return None
        if stored != self.embedder.model_name or dim != self.embedder.dim:
            return (
                f"The index was built with the embedding model {stored!r} but the configured model is "
                f"{self.embedder.model_name!r}; run `pms-tui reindex` to re-embed with it "
                f"(vectors of two models are never mixed)."
            )
        if not self.store.read_only:
            ensure_vector_table(conn, self.embedder.dim)
        return None

    def _record_model(self, conn) -> None:
        meta.record_model(conn, self.embedder.model_name, self.embedder.dim)
        ensure_vector_table(conn, self.embedder.dim)

    def _index_dim(self) -> int:
        return meta.recorded_model(self.store.conn)[1] or self.embedder.dim

    def require_vectors(self) -> None:
        """Raise ModelMismatchError when the index's vectors are not the configured model's."""
        if self.model_mismatch:
            raise ModelMismatchError(self.model_mismatch)

    @property
    def model_state(self) -> str:
        """``"not loaded"``, ``"loading"``, ``"ready"``, ``"error"`` (see ``model_error``) or
        ``"mismatch"`` (see ``model_mismatch``)."""
        if self.model_mismatch:
            return "mismatch"
        if self.embedder.ready:
            return "ready"
        return self._model_state

    @property
    def model_ready(self) -> bool:
        """True when vector search can run now: the model is loaded and matches the index."""
        return self.embedder.ready and not self.model_mismatch

    def load_model(self) -> None:
        """Load the embedding model (slow the first time; safe from a worker thread).
        Raises EmbeddingModelError or ModelMismatchError with the sentence to show."""
        self.require_vectors()
        self._model_state = "loading"
        try:
            self.embedder.load()
        except EmbeddingModelError as exc:
            self._model_state, self.model_error = "error", str(exc)
            raise
        self._model_state, self.model_error = "ready", None

    def clear_query_cache(self) -> None:
        """Forget cached query vectors (evaluations time queries with a cold embedding)."""
        self.embedder.clear_query_cache()

    # -- sync --------------------------------------------------------------------------------
    def check_sync_status(self, collections: Sequence[str] | None = None) -> SyncStatus:
        """``to_add, to_delete, to_update`` (and ``.summary``, ``.skipped``) without changing anything."""
        return sync_status(self.store.conn, self.collections.select(collections),
                           self.settings.follow_external_links)

    def sync(
        self,
        progress: SyncProgress | None = None,
        collections: Sequence[str] | None = None,
        only_paths: set[str] | None = None,
        cancel: threading.Event | None = None,
        *,
        embed: bool = True,
        on_wait: Callable[[int | None], None] | None = None,
    ) -> SyncReport:
        """Index what changed: text first (every changed note searchable by its words), then
        the queued vectors (``embed=False`` leaves them to :meth:`embed_pending`, as the app
        does). ``progress(done, total, phase)``: see ``results.SyncProgress``. Setting
        ``cancel`` stops between notes or embedding runs; the report says ``cancelled`` and
        the next sync (or embed_pending) carries on. One writer per home across processes:
        while another holds the writer lock this waits (``on_wait(pid)`` is told once)."""
        self.require_vectors()
        progress = progress or (lambda done, total, phase: None)
        if not self._sync_lock.acquire(blocking=False):
            raise SyncBusyError("A sync is already running; wait for it to finish.")
        started = time.perf_counter()
        try:
            with self._writing(cancel, on_wait):
                report = Indexer(self.store, self.settings, progress, cancel).run(
                    self.collections.select(collections), only_paths
                )
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
        report.vectors_pending = vector_rows.pending_count(self.store.conn)
        report.seconds = time.perf_counter() - started
        progress(report.chunks_embedded, report.chunks_embedded, "done")
        return report

    def embed_pending(
        self,
        progress: SyncProgress | None = None,
        cancel: threading.Event | None = None,
        on_wait: Callable[[int | None], None] | None = None,
    ) -> int:
        """Embed the queued texts (left by ``sync(embed=False)``, a cancel, a crash or a kill);
        returns how many were embedded. Another call running in this process already drains
        the same queue, so this one returns 0 at once."""
        self.require_vectors()
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
        folders = lambda: [Folder(c.name, c.path) for c in self.collections.list()]  # noqa: E731

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

        options = {"poll_seconds": poll_seconds} if poll_seconds else {}
        watch_folders(folders, changed, stop, restart=restart, on_mode=on_mode, force_polling=force_polling,
                      **options)

    @property
    def vectors_pending(self) -> int:
        """Texts waiting in the embedding queue."""
        return vector_rows.pending_count(self.store.conn)

    def _drain(self, progress, cancel, on_wait) -> DrainResult:
        if not self._drain_lock.acquire(blocking=False):
            return DrainResult()
        try:
            return drain(
                self.store, self.embedder, lambda: self.writer_lock.hold(True, on_wait, cancel),
                progress, cancel, self._writer_wanted,
            )
        except WriterBusy:  # cancelled while waiting for another writer
            return DrainResult(cancelled=True)
        finally:
            self._drain_lock.release()

    @contextmanager
    def _writing(self, cancel: threading.Event | None = None, on_wait=None) -> Iterator[None]:
        """Hold the writer lock; an embedding queue drain in this process hands it over
        between runs instead of finishing its group first."""
        self.store.require_writable()  # a read-only index says so in one sentence
        on_wait = on_wait or self.on_writer_wait
        with self._wanted_guard:
            self._writers_waiting += 1
            self._writer_wanted.set()
        try:
            self.writer_lock.acquire(True, on_wait, cancel)  # WriterBusy only when cancelled
        finally:
            with self._wanted_guard:
                self._writers_waiting -= 1
                if not self._writers_waiting:
                    self._writer_wanted.clear()
        try:
            yield
        finally:
            self.writer_lock.release()

    def reindex(self, progress: SyncProgress | None = None, cancel: threading.Event | None = None) -> SyncReport:
        """Drop every vector and chunk, record the configured model, and index everything again."""
        if not self._sync_lock.acquire(blocking=False):
            raise SyncBusyError("A sync is already running; wait for it to finish.")
        try:
            with self._writing(cancel), self.store.transaction() as conn:
                document_rows.delete_all(conn)
                vector_rows.drop_all(conn, self.embedder.dim)
                self._record_model(conn)
            self.model_mismatch = None
            self.vectors.reset(self.embedder.dim)
        finally:
            self._sync_lock.release()
        return self.sync(progress, cancel=cancel)

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
            steps = health.repair_in_place(self.store.conn)
            self.vectors.reset(self._index_dim())
            report = self.sync(progress)
        return steps, report

    # -- clip --------------------------------------------------------------------------------
    def clip(self, url: str, collection: str | Collection, *, update: bool = False, **fetch_options) -> ClipResult:
        """Save a web page as a note in a collection's folder and index it at once.
        ``fetch_options``: timeout, max_bytes, max_redirects (see clip.fetch.fetch)."""
        col = self.collections.get(collection) if isinstance(collection, str) else collection
        if not col.exists:
            raise CollectionError(f"The folder of collection {col.name!r} ({col.path}) does not exist.")
        result = clip_url(url, col.path, update=update, **fetch_options)
        if result.status in ("created", "updated"):
            rel = result.path.resolve().relative_to(col.path.resolve()).as_posix()
            self.sync(collections=[col.name], only_paths={rel})
        return result

    # -- search ------------------------------------------------------------------------------
    def search(
        self,
        query: str,
        k: int = 10,
        mode: str = "hybrid",
        collections: Sequence[str] | None = None,
        *,
        vector: bool = True,
    ) -> SearchResult:
        """Hits (best first) with the lanes that answered; iterate it for the hits.
        ``vector=False`` answers from BM25 alone (while the model is loading)."""
        return self.retrieval.search(query, k, mode, collections, vector=vector)

    def recent(self, limit: int = 30, collections: Sequence[str] | None = None) -> list[Hit]:
        """The first chunk of the most recently changed notes: what an empty query shows."""
        rows = chunk_rows.first_chunks_by_recency(self.store.conn, limit, self.collections.ids(collections))
        return [hit_from_row(row, preview(row.body)) for row in rows]

    def evidence(self, result: SearchResult, hit: Hit) -> Evidence:
        """Why ``hit`` ranks where it does in ``result``: the evidence panel's facts."""
        return self.retrieval.evidence(result, hit)

    def explain(self, query: str, note: str, collections: Sequence[str] | None = None, *,
                vector: bool = True) -> NoteExplanation:
        """Where the note ``note`` (a path, or ``collection/relpath``) ranks for ``query`` in
        each lane, which query words it lacks, and its best passage's similarity."""
        found = self.find_note(note)
        if found is None:
            raise UsageError(f"{note} is not a note of any collection.")
        collection, rel = found
        if not self.chunks_of(collection, rel):
            raise UsageError(f"{collection.name}/{rel} is not indexed yet; run `pms-tui sync`.")
        if vector and not self.model_mismatch and not self.embedder.ready:
            try:
                self.load_model()
            except PmsError:
                vector = False  # explained from BM25 alone; the vector part says why
        return self.retrieval.explain(query, collection.id, rel, f"{collection.name}/{rel}",
                                      self.collections.ids(collections), vector=vector)

    def facet_values(self) -> dict[str, list[str]]:
        """What ``tag:``, ``path:`` and ``in:`` can take, the most used first (completion)."""
        conn = self.store.conn
        return {
            "tag": [t for t, _ in facet_rows.tag_counts(conn)],
            "path": facet_rows.folders(conn),
            "in": [c.name for c in self.collections.list()],
        }

    def find_note(self, path: str) -> tuple[Collection, str] | None:
        """The collection and relative path of a note given as an absolute, relative or
        ``collection/relpath`` path; None when it is not in any collection."""
        candidate = Path(path).expanduser()
        absolute = candidate.resolve() if candidate.exists() else None
        for collection in self.collections.list():
            root = collection.path.resolve()
            if absolute is not None:
                try:
                    return collection, absolute.relative_to(root).as_posix()
                except ValueError:
                    pass
            prefix = collection.name + "/"
            if path.startswith(prefix):
                return collection, path[len(prefix):]
        return None

    def chunks_of(self, collection: str | Collection, rel: str) -> list[Hit]:
        """Every chunk of one indexed note, in order."""
        col = self.collections.get(collection) if isinstance(collection, str) else collection
        return [hit_from_row(row) for row in chunk_rows.of_document(self.store.conn, col.id, rel)]

    def indexed_paths(self) -> set[str]:
        """Relative paths of every indexed note, all collections together."""
        return document_rows.all_paths(self.store.conn)

    def chunk_notes(self) -> dict[int, str]:
        """Chunk id -> relative path of its note (evaluations map ranked chunks to notes)."""
        return chunk_rows.note_paths(self.store.conn)

    # -- facts -------------------------------------------------------------------------------
    def stats(self) -> dict:
        conn = self.store.conn
        size = sum(p.stat().st_size for p in self.home.glob(DB_FILE + "*") if p.is_file())
        return {
            "documents": document_rows.count(conn),
            "chunks": chunk_rows.count(conn),
            "vectors": vector_rows.count(conn),
            "vectors_pending": vector_rows.pending_count(conn),
            "collections": collection_rows.count(conn),
            "db_bytes": size,
            "model": self.embedder.model_name,
        }

    def diagnose(self) -> list[Check]:
        """What ``pms-tui doctor`` prints: the environment, this index, and the model."""
        checks = environment_checks()
        checks.append(Check("home", True, str(self.home) + ("  (read-only)" if self.store.read_only else "")))
        try:
            stats = self.stats()
        except Exception as exc:
            checks.append(Check("index", False, describe(exc)))
            stats = None
        if stats is not None:
            checks.append(Check("index", True, f"{self.db_path} ({stats['db_bytes'] / 1e6:.1f} MB, "
                                               f"{stats['documents']} notes, {stats['chunks']} chunks)"))
            pending = stats["vectors_pending"]
            checks.append(Check("queue", True, f"{stats['vectors']} stored, {pending} waiting to be embedded"
                                               + (" (`pms-tui sync` or the app embeds them)" if pending else "")))
        try:
            with self.writer_lock.hold(wait=False):
                pass
        except WriterBusy as exc:
            checks.append(Check("writer", True, f"pid {exc.pid} is writing to this index now"))
        except OSError:
            pass  # a read-only home: nobody can be writing here
        damaged = False
        for part in health.diagnose(self.store.conn):
            damaged |= not part.ok
            checks.append(Check(part.label, part.ok, part.detail))
        if damaged:
            checks.append(Check("repair", False, "run `pms-tui repair`: it rebuilds the index from your notes, "
                                                 "keeping every vector that is intact"))
        checks.append(Check("model", self.model_mismatch is None, self.model_mismatch or self.embedder.model_name))
        try:
            started = time.perf_counter()
            self.load_model()
            self.embedder.embed_query("doctor")
            checks.append(Check("model load", True, f"{time.perf_counter() - started:.2f}s, "
                                                     f"{self.embedder.dim} dimensions"))
        except Exception as exc:
            checks.append(Check("model load", False, describe(exc)))
        checks.append(_package_check())
        return checks

    def close(self) -> None:
        self.retrieval.close()
        self.store.close()

    def __enter__(self) -> "KnowledgeBase":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def repair_home(home: str | os.PathLike | None = None, progress: SyncProgress | None = None,
                wait: bool | float = True, on_wait=None) -> tuple[list[str], SyncReport]:
    """``pms-tui repair``: a damaged index file is replaced by a new one holding what could be
    read from it (collections, vectors); then everything that can be rebuilt from the notes is
    (see :meth:`KnowledgeBase.repair`). Notes are never touched."""
    home_path = Path(home).expanduser() if home else default_home()
    db_path = home_path / DB_FILE
    steps: list[str] = []
    if db_path.exists():
        with WriterLock(home_path).hold(wait, on_wait):
            if health.file_needs_salvage(db_path):
                steps += health.salvage_file(db_path)
    with KnowledgeBase(home_path) as kb:
        kb.on_writer_wait = on_wait
        more, report = kb.repair(progress)
    return steps + more, report


def environment_checks() -> list[Check]:
    """Python, and the SQLite driver with FTS5 and sqlite-vec: checks that need no index."""
    import platform

    checks = [Check("python", sys.version_info >= (3, 11), f"{platform.python_version()} ({sys.executable})")]
    try:
        driver, sqlite_version, vec_version = check_driver()
        checks.append(Check("sqlite", True, f"sqlean.py {driver}, SQLite {sqlite_version}, FTS5 ok"))
        checks.append(Check("sqlite-vec", True, vec_version))
    except Exception as exc:
        checks.append(Check("sqlite", False, describe(exc)))
    return checks


def _package_check() -> Check:
    import importlib.metadata as md

    try:
        names = ("textual", "fastembed", "onnxruntime", "trafilatura")
        return Check("packages", True, ", ".join(f"{p} {md.version(p)}" for p in names))
    except Exception as exc:
        return Check("packages", False, describe(exc))


def indexing_fingerprint() -> str:
    """A hash of the source that decides chunks and their embed text (the chunker, the
    frontmatter reader): when it changes, an index built before has other vectors."""
    digest = hashlib.sha256()
    for module in (_chunk_module, _frontmatter_module):
        digest.update(Path(module.__file__).read_bytes())
    return digest.hexdigest()[:12]
