"""KnowledgeBase: the engine's one front door, used by the CLI, the terminal UI, the eval
harness, scripts and tests.

    kb = KnowledgeBase(home="~/kb")      # or PMS_TUI_HOME, or the platform's user data dir
    kb.collections.create("./notes", name="notes")
    kb.sync()
    for hit in kb.search("undo the last commit", k=5):
        print(hit.score, hit.path, hit.start_line)

Front ends import this module (and the other top-level contract modules: errors, results,
config, markdown, safe_text; the CLI also query_vectors), never the rooms below it. The rooms
receive what they need (the store, the settings, the embedder, a callable or two), never the
KnowledgeBase: data flows one way, files -> chunks -> store -> retrieval -> UI.

The indexing half of the contract (sync, the embedding queue, watch, reindex, repair) is in
``kb_indexing``, doctor's checks in ``kb_doctor``, the link graph in ``kb_graph``, the one
policy for requests and notes in ``kb_notes``: mixins, so a script still calls one object.
What they share (the store, the embedder, the locks: private) is declared in ``kb_state``.
What an evaluation reads beyond search (the lanes before fusion, chunk -> note) is
``kb_measure.Measure(kb)``, apart from what a front end uses.

The documented API, kept by name since the first version: ``kb.search``; ``kb.retrieval.rrf``,
``.candidates``, ``.bm25_search``, ``.vector_search`` (the lanes and their fusion as hits);
``chunk_markdown`` (a note's text as passages) and ``extract_from_url`` (a page as Markdown).
``__all__`` lists what the front ends import from here (a test keeps it so): the front door,
those two functions, and what reading a note, a PDF or the bundled guide needs.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from .config import DB_FILE, Settings, default_home, load_settings, load_state, save_state
from .errors import CollectionError, EmbeddingModelError, ModelMismatchError, PmsError, StoreError
from .indexing.chunk import chunk_markdown
from .indexing import facets as facet_rules
from .indexing.collections import Collection, Collections
from .indexing.embed import Embedder
from .indexing.frontmatter import split_frontmatter
from .indexing.notes import is_document_name
from .indexing.documents import DocumentCounts, opener_command, text_of_chunks
from .indexing.documents import counts as document_counts
from .indexing.pages import number_in as page_number
from .indexing.guide import GUIDE_DESCRIPTION, GUIDE_NAME, guide_dir, is_guide_note, is_guide_path
from .indexing import guide as guide_rules
from .kb_doctor import Check, DoctorMixin, environment_checks, indexing_fingerprint
from .kb_graph import GraphMixin
from .kb_indexing import IndexingMixin
from .kb_notes import MAX_K, NoteRef, NotesMixin
from .results import Evidence, Hit, ModelState, NoteExplanation, SearchResult, SyncProgress, SyncReport
from .search.filter_specs import FILTERS
from .search.hits import hit_from_row, preview
from .search.query_syntax import as_text as as_query_text, parse as parse_query
from .search.retrieval import Retrieval
from .search.vector_index import VectorIndex
from .store import Store, transaction
from .store import compact as compaction
from .store import health
from .store import chunks as chunk_rows
from .store import collections as collection_rows
from .store import documents as document_rows
from .store import fts
from .store import meta
from .store import vectors as vector_rows
from .store.schema import ensure_vector_table
from .store.writer_lock import EMBED_LOCK_FILE, WriterLock

if TYPE_CHECKING:
    from .clip.note import ClipResult
    from .query_vectors.service import QueryVectorServer
    from .writes.service import NoteWriter

# What a front end imports from here; its data types, errors, settings and Markdown helpers
# are in the other contract modules (results, errors, config, markdown, safe_text).
__all__ = [
    # the front door, and what opens, repairs or compacts a home without one open
    "KnowledgeBase", "repair_home", "compact_home", "environment_checks", "Check", "indexing_fingerprint",
    # the documented functions of the first version
    "chunk_markdown", "extract_from_url",
    # a note named by a request, and the lines it asks for (KnowledgeBase.read pages it); the most hits one request may ask
    "NoteRef", "MAX_K",
    # a note's frontmatter and body, split as the index splits them
    "split_frontmatter",
    # documents: which names are documents, how one opens (KnowledgeBase.read finds a PDF's page),
    # the physical page a page heading names (core/indexing/pages.py, the page format's owner)
    "is_document_name", "opener_command", "page_number",
    # the bundled guide (the app offers it on a first run)
    "GUIDE_NAME", "guide_dir", "is_guide_note", "is_guide_path",
    # the search language's filters: their help texts and the completion of their values
    "FILTERS",
]


# The clipper (trafilatura, lxml, httpx) is imported when a page is clipped, not to search:
# it is most of what a one-shot `pms-tui search` would otherwise spend importing.
_CLIP_NAMES = {"extract_from_url": "html_to_markdown"}


def __getattr__(name: str):
    if name in _CLIP_NAMES:
        import importlib

        return getattr(importlib.import_module(f".clip.{_CLIP_NAMES[name]}", __package__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class KnowledgeBase(IndexingMixin, DoctorMixin, GraphMixin, NotesMixin):
    """``home``: the folder of the index and config; ``settings``: instead of its config.toml;
    ``embedder``: instead of the settings' model (a fake posing as it, in tests and benchmarks);
    ``upgrade_progress(done, total, phase)``: how the upgrade of an index written by an older
    pms-tui goes (done once, when it is opened)."""

    _query_server: QueryVectorServer | None  # set by serve_query_vectors

    def __init__(self, home: str | os.PathLike | None = None, settings: Settings | None = None, *,
                 embedder: Embedder | None = None, upgrade_progress: SyncProgress | None = None):
        self.home = Path(home).expanduser() if home else default_home()
        self.home.mkdir(parents=True, exist_ok=True)
        self.settings = settings or load_settings(self.home)
        self.db_path = self.home / DB_FILE
        self._store = Store(self.db_path, upgrade_progress)
        # One writer per home across processes (sync, reindex, remove, repair): a second one
        # waits its turn; ``on_writer_wait(pid)`` (the CLI says so) is told once.
        self.on_writer_wait = None
        self._embedder = embedder or Embedder(
            self.settings.model, self.settings.embed_batch_size, self.settings.max_tokens)
        self._model_state = ModelState.NOT_LOADED
        self.model_error = None
        self.model_mismatch = self._check_model()
        self._vectors = VectorIndex(self._store, self._index_dim())
        self.collections = Collections(self._store, clip=self.clip, writing=self.writing)
        self.retrieval = Retrieval(
            self._store, self.settings, self._embedder, self._vectors, self.collections.ids, self.require_vectors,
            lambda: [c.name for c in self.collections.list()], self.default_collection_ids,
            self._hidden_collection_ids,
        )
        facet_rules.backfill(self._store)  # once, on an index older than its tags and dates
        self._sync_lock = threading.Lock()
        self._drain_lock = threading.Lock()
        self._writer_lock = WriterLock(self.home)
        self._embed_lock = WriterLock(self.home, EMBED_LOCK_FILE)  # one drain of the queue per home

    @functools.cached_property
    def write(self) -> NoteWriter:
        """Every write to a note (create, edit, move, delete, undo: ``core/writes``), each
        indexed as it returns; made on first use (a search never writes)."""
        from .writes.service import NoteWriter

        return NoteWriter(self.home, self.settings, self._store, self.collections, self._note_place,
                          self._index_written)

    def _index_written(self, collection: str, paths: set[str]) -> bool:
        """Index notes a write changed, text only, after a sync of this process; not waiting
        for another process that holds the index (False then: its next sync takes them in)."""
        cancel = threading.Event()

        def other_writer(pid: int | None) -> None:
            if pid != os.getpid():  # this process's own embedding hands the lock over between runs
                cancel.set()

        report = self.sync(collections=[collection], only_paths=paths, cancel=cancel, embed=False,
                           on_wait=other_writer, wait=True)
        return not report.cancelled

    def _note_place(self, ref: object) -> tuple[Collection, str]:
        found = self.note(ref)
        return found.collection, found.relpath

    # -- the embedding model -------------------------------------------------------------------
    def _check_model(self) -> str | None:
        """Record the model on a new index; on an old one, say if it was built with another."""
        conn = self._store.conn
        stored, dim = meta.recorded_model(conn)
        if stored is None and self._store.read_only:
            return None  # an empty read-only index: nothing to compare
        if stored is None:
            with transaction(conn):
                self._record_model(conn)
            return None
        if stored != self._embedder.model_name or dim != self._embedder.dim:
            return (
                f"The index was built with the embedding model {stored!r} but the configured model is "
                f"{self._embedder.model_name!r}; run `pms-tui reindex` to re-embed with it "
                f"(vectors of two models are never mixed)."
            )
        if not self._store.read_only:
            ensure_vector_table(conn, self._embedder.dim)
        return None

    def _record_model(self, conn) -> None:
        meta.record_model(conn, self._embedder.model_name, self._embedder.dim)
        ensure_vector_table(conn, self._embedder.dim)

    def _index_dim(self) -> int:
        return meta.recorded_model(self._store.conn)[1] or self._embedder.dim

    def require_vectors(self) -> None:
        """Raise ModelMismatchError when the index's vectors are not the configured model's."""
        if self.model_mismatch:
            raise ModelMismatchError(self.model_mismatch)

    @property
    def model_state(self) -> ModelState:
        """Not loaded, loading, ready, error (see ``model_error``) or mismatch (see
        ``model_mismatch``); a ``StrEnum``, so it reads as its value."""
        if self.model_mismatch:
            return ModelState.MISMATCH
        if self._embedder.ready:
            return ModelState.READY
        return self._model_state

    @property
    def read_only(self) -> bool:
        """True when the index file cannot be written here (searching still works)."""
        return self._store.read_only

    @property
    def model_ready(self) -> bool:
        """True when vector search can run now: the model is loaded and matches the index."""
        return self._embedder.ready and not self.model_mismatch

    def load_model(self, serve_queries: bool = False) -> None:
        """Load the embedding model (slow the first time; safe from a worker thread).
        Raises EmbeddingModelError or ModelMismatchError with the sentence to show.
        ``serve_queries``: then :meth:`serve_query_vectors` (the app and the MCP server)."""
        self.require_vectors()
        self._model_state = ModelState.LOADING
        try:
            self._embedder.load()
        except EmbeddingModelError as exc:
            self._model_state, self.model_error = ModelState.ERROR, str(exc)
            raise
        self._model_state, self.model_error = ModelState.READY, None
        if serve_queries:
            self.serve_query_vectors()

    def expect_query_vector(self, future) -> None:
        """Take a query's vector from ``future`` (a ``concurrent.futures.Future`` of what
        ``query_vectors.start`` gives) instead of loading the model for it."""
        self._embedder.expect_query_vector(future)

    # -- clip --------------------------------------------------------------------------------
    def clip(self, url: str, collection: str | Collection, *, update: bool = False,
             progress: SyncProgress | None = None, cancel: threading.Event | None = None,
             **fetch_options) -> ClipResult:
        """Save a web page as a note in a collection's folder and index it at once.
        ``fetch_options``: timeout, max_bytes, max_redirects (see clip.fetch.fetch).
        ``progress(done, total, stage)``, stage by stage: "fetching" (bytes read, of those
        announced or 0), "extracting" (of the page's characters), "writing", "indexing" (the
        note's text), "embedding" (passages, as a sync's), then "done". ``cancel`` (the CLI's
        ctrl+c, the app's stop): set before the note is written, ClipStopped and nothing is
        written; set while it is indexed, the note is kept whole and the result says
        ``stopped``: the next sync finishes indexing it (its text first, then its vectors)."""
        col = self.collections.get(collection) if isinstance(collection, str) else collection
        if not col.exists:
            raise CollectionError(f"The folder of collection {col.name!r} ({col.path}) does not exist.")
        from .clip.note import clip_url

        tell = progress or (lambda done, total, stage: None)
        result = clip_url(url, col.path, update=update, progress=tell, cancel=cancel, **fetch_options)
        if result.status in ("created", "updated"):
            rel = result.path.resolve().relative_to(col.path.resolve()).as_posix()

            def indexing(done: int, total: int, phase: str) -> None:
                if phase != "done":  # said once, below, when the clip is done
                    tell(done, total, "embedding" if phase == "embedding" else "indexing")

            tell(0, 1, "indexing")
            report = self.sync(progress=indexing, collections=[col.name], only_paths={rel}, cancel=cancel,
                               wait=True)  # after a running sync's text
            result = replace(result, stopped=report.cancelled, vectors_pending=report.vectors_pending)
        tell(1, 1, "done")
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
        stop: Callable[[], bool] | None = None,
        typing: bool = False,
    ) -> SearchResult:
        """Hits (best first) with the lanes that answered; iterate it for the hits.
        ``vector=False`` answers from BM25 alone (while the model is loading). ``stop``: asked
        while the search's SQL runs; once true the search ends with :class:`SearchStopped`
        at its next step in SQLite (the app's search for a query typed over). ``typing``: the
        query is still being typed (search as you type): its last word, with nothing after it,
        also matches as a prefix ("conf" finds "config"); otherwise words match whole.
        UsageError (:meth:`check_request`) for what cannot be asked: an empty query, k < 1."""
        self.check_request(query, k, mode, collections)
        return self.retrieval.search(query, k, mode, collections, vector=vector, typing=typing, stop=stop)

    def recent(self, limit: int = 30, collections: Sequence[str] | None = None) -> list[Hit]:
        """The first chunk of the most recently changed notes: what an empty query shows."""
        ids = self.collections.ids(collections)
        rows = chunk_rows.first_chunks_by_recency(self._store.conn, limit,
                                                  self.default_collection_ids() if ids is None else ids)
        return [hit_from_row(row, preview(row.body)) for row in rows]

    def evidence(self, result: SearchResult, hit: Hit) -> Evidence:
        """Why ``hit`` ranks where it does in ``result``: the evidence panel's facts."""
        return self.retrieval.evidence(result, hit)

    def explain(self, query: str, note: str, collections: Sequence[str] | None = None, *,
                vector: bool = True, typing: bool = False) -> NoteExplanation:
        """Where the note ``note`` (named as :meth:`note` takes it) ranks for ``query`` in each
        lane and in what search returns, which query words it lacks, and its best passage's
        similarity (``typing`` as :meth:`search`'s)."""
        self.check_request(query, 1, "hybrid", collections)
        found = self.note(note)
        if vector and not self.model_mismatch and not self._embedder.ready:
            try:
                self.load_model()
            except PmsError:
                vector = False  # explained from BM25 alone; the vector part says why
        explanation = self.retrieval.explain(query, found.collection.id, found.relpath, found.id,
                                             collections, vector=vector, typing=typing)
        depth = self.settings.lane_depth
        result = self.search(query, k=depth, collections=collections, vector=vector, typing=typing)
        key = (found.collection.name, found.relpath)
        return replace(explanation, fused_rank=next(
            (i for i, h in enumerate(result, 1) if (h.collection, h.relpath) == key), None))

    def facet_values(self) -> dict[str, list[str]]:
        """What the filters that complete (``tag:``, ``path:``, ``in:``) can take, the most used
        first (completion)."""
        return FILTERS.choices(self._store.conn)

    def document_counts(self) -> dict[str, DocumentCounts]:
        """{collection: its PDF and Word files read, by kind, and those skipped with the reason}."""
        return {c.name: document_counts(self._store.conn, c.id) for c in self.collections.list()}

    def document_text(self, collection: str | Collection, rel: str) -> str:
        """The text of an indexed PDF or Word file as the index holds it (Markdown, a PDF's
        pages as ``# page N`` headings, lines as its hits give them); "" when not indexed.
        Documents are never read as notes: their text lives in the index only."""
        col = self.collections.get(collection) if isinstance(collection, str) else collection
        return text_of_chunks([(row.start_line, row.body) for row in chunk_rows.of_document(
            self._store.conn, col.id, rel)])

    def chunks_of(self, collection: str | Collection, rel: str) -> list[Hit]:
        """Every chunk of one indexed note, in order."""
        col = self.collections.get(collection) if isinstance(collection, str) else collection
        return [hit_from_row(row) for row in chunk_rows.of_document(self._store.conn, col.id, rel)]

    def note_names(self) -> list[str]:
        """``collection/relpath`` of every indexed note, sorted (what :meth:`explain` takes)."""
        return document_rows.note_names(self._store.conn)

    # -- the bundled guide -------------------------------------------------------------------
    def guide(self) -> Collection | None:
        """The collection of the bundled guide (known by its folder), when the index has it."""
        return next((c for c in self.collections.list() if is_guide_path(c.path)), None)

    def add_guide(self) -> Collection:
        """Add the bundled guide as the collection ``guide`` (the app does on its first run);
        CollectionError when the installation lacks it or the name is taken."""
        folder = guide_dir()
        if folder is None:
            raise CollectionError("The bundled guide is missing from this installation.")
        return self.collections.create(folder, name=GUIDE_NAME, description=GUIDE_DESCRIPTION)

    def guide_aside(self) -> Collection | None:
        """The guide's collection when it steps aside (the user has a collection of their own):
        then a search, ``recent`` and related notes leave it out unless asked for it
        (``in:guide``, or its collection chosen); else None."""
        return guide_rules.stepped_aside(self.collections.list())

    def default_collection_ids(self) -> list[int] | None:
        """The collections a search covers when neither the caller nor the query chooses:
        all (None), or all but the guide once it steps aside."""
        collections = self.collections.list()
        own = [c.id for c in collections if not is_guide_path(c.path)]
        return own if own and len(own) < len(collections) else None

    def _hidden_collection_ids(self) -> list[int]:
        guide = self.guide_aside()
        return [guide.id] if guide is not None else []

    def guide_notice(self) -> str | None:
        """The one sentence saying that the guide stepped aside, the first time it has (then
        remembered in the home's state.json, for every front end); None otherwise."""
        guide = self.guide_aside()
        if guide is None or self._store.read_only or load_state(self.home).get(guide_rules.TOLD_STATE):
            return None
        try:
            save_state(self.home, **{guide_rules.TOLD_STATE: True})
        except OSError:
            return None  # told next time instead
        return guide_rules.aside_notice(guide.name)

    # -- facts -------------------------------------------------------------------------------
    def data_version(self) -> int:
        """A number that moves when another connection commits to the index (another process's
        sync, clip or new collection): one pragma, cheap enough for the app to poll."""
        return fts.change_key(self._store.conn)[0]

    def stats(self) -> dict:
        conn = self._store.conn
        size = sum(p.stat().st_size for p in self.home.glob(DB_FILE + "*") if p.is_file())
        return {
            "documents": document_rows.count(conn),
            "chunks": chunk_rows.count(conn),
            "vectors": vector_rows.count(conn),
            "vectors_pending": vector_rows.pending_count(conn),
            "collections": collection_rows.count(conn),
            "db_bytes": size,
            "model": self._embedder.model_name,
        }

    def serve_query_vectors(self) -> bool:
        """Answer one-shot `pms-tui search` processes of this home with query vectors from this
        process's loaded model (``query_vectors.service``: a Unix socket in the home, owner only) until
        :meth:`close`. False where it cannot (the model not loaded, another process serving)."""
        if not self.model_ready or getattr(self, "_query_server", None) is not None:
            return False
        from .query_vectors.service import QueryVectorServer

        server = QueryVectorServer(self.home, self._embedder, lambda query: parse_query(as_query_text(query)).text)
        if not server.start():
            return False
        self._query_server = server
        return True

    def close(self) -> None:
        server, self._query_server = getattr(self, "_query_server", None), None
        if server is not None:
            server.stop()
        self.retrieval.close()
        self._store.close()

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


def compact_home(home: str | os.PathLike | None = None, wait: bool | float = True,
                 on_wait=None) -> tuple[compaction.FileShape, compaction.FileShape]:
    """``pms-tui compact``: the index file rewritten without free pages, in 8 KB pages (see
    :mod:`.store.compact`); (shape before, shape after). An older index is upgraded first."""
    home_path = Path(home).expanduser() if home else default_home()
    if not (home_path / DB_FILE).exists():
        raise StoreError(f"There is no index in {home_path} yet: nothing to compact.")
    with KnowledgeBase(home_path) as kb:
        kb._store.require_writable()
    with WriterLock(home_path).hold(wait, on_wait):
        return compaction.compact(home_path / DB_FILE)
