"""KnowledgeBase: the engine's one front door, used by the CLI, the terminal UI, the MCP server,
the eval harness, scripts and tests.

    kb = KnowledgeBase(home="~/kb")      # or PMS_TUI_HOME, or the platform's user data dir
    kb.collections.create("./notes", name="notes")
    kb.sync()
    for hit in kb.search("undo the last commit", k=5):
        print(hit.score, hit.path, hit.start_line)

Front ends import this module (and the other top-level contract modules: errors, results,
config, markdown, safe_text; the CLI also query_vectors), never the rooms below it.

The KnowledgeBase is a few services composed, each a small class handed exactly what it needs
(the store, the settings, the model, the scope, another service) and never the KnowledgeBase,
so data flows one way, files -> chunks -> store -> retrieval -> UI:

- ``kb.collections``: the named folders (create, list, get, delete, counts);
- ``kb.index``: sync, the embedding queue, watch, reindex, repair, the writer lock, the facts of
  the index (``services/index.py``);
- ``kb.notes``: the one policy for requests and notes: which note a request names, its text
  and lines, a page of it (``services/notes.py``); ``kb.limits``: what a request may ask;
- ``kb.graph``: links, backlinks, mentions, related notes (``services/graph.py``);
- ``kb.searcher``: search, evidence, explain, recent, completion (``services/searcher.py``);
  ``kb.retrieval``: its lanes and their fusion; ``kb.scope``: which collections a request means,
  and the bundled guide (``search/scope.py``);
- ``kb.model``: the embedding model (``services/model.py``); ``kb.doctor``: ``pms-tui doctor``'s
  checks; ``kb.clipper``: web pages clipped into a collection; ``kb.write``: every write to a
  note (``core/writes``).

What an evaluation reads beyond search (the lanes before fusion, chunk -> note) is
``kb_measure.Measure(kb)``, apart from what a front end uses.

The documented API, kept by name since the first version: ``kb.collections`` (``.create``,
``.list``, ``.get``, ``.delete``), ``kb.sync``, ``kb.search``, ``kb.recent``, ``kb.reindex``,
``kb.stats``, ``kb.check_sync_status``, ``kb.chunks_of``, ``kb.close`` (and ``with``);
``kb.retrieval.rrf``, ``.candidates``, ``.bm25_search``, ``.vector_search`` (the lanes and their
fusion as hits); ``chunk_markdown`` (a note's text as passages) and ``extract_from_url`` (a page
as Markdown). Those on the KnowledgeBase are one-line delegations to their service (a test
keeps them). ``__all__`` lists what the front ends import from here (a test keeps it so): the
front door, those two functions, and what reading a note, a PDF or the bundled guide needs.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .config import DB_FILE, Settings, default_home, load_settings
from .errors import StoreError
from .indexing import facets as facet_rules
from .indexing.chunk import chunk_markdown
from .indexing.collections import Collection, Collections
from .indexing.documents import opener_command
from .indexing.embed import Embedder
from .indexing.frontmatter import split_frontmatter
from .indexing.guide import GUIDE_NAME, guide_dir, is_guide_note, is_guide_path
from .indexing.notes import is_document_name
from .indexing.pages import number_in as page_number
from .results import Hit, SearchResult, SyncProgress, SyncReport, SyncStatus
from .search.filter_specs import FILTERS
from .search.limits import MAX_K, RequestLimits
from .search.retrieval import Retrieval
from .search.scope import Scope
from .search.vector_index import VectorIndex
from .services.clipper import Clipper
from .services.doctor import Check, Doctor, environment_checks, indexing_fingerprint
from .services.graph import Graph
from .services.index import Index
from .services.model import Model
from .services.notes import NoteRef, Notes
from .services.searcher import Searcher
from .store import Store
from .store import compact as compaction
from .store import health
from .store.writer_lock import WriterLock

if TYPE_CHECKING:
    from .writes.service import NoteWriter

# What a front end imports from here; its data types, errors, settings and Markdown helpers
# are in the other contract modules (results, errors, config, markdown, safe_text).
__all__ = [
    # the front door, and what opens, repairs or compacts a home without one open
    "KnowledgeBase", "repair_home", "compact_home", "environment_checks", "Check", "indexing_fingerprint",
    # the documented functions of the first version
    "chunk_markdown", "extract_from_url",
    # a note named by a request, and the lines it asks for (kb.notes.read pages it); the most hits one request may ask
    "NoteRef", "MAX_K",
    # a note's frontmatter and body, split as the index splits them
    "split_frontmatter",
    # documents: which names are documents, how one opens (kb.notes.read finds a PDF's page),
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


class KnowledgeBase:
    """``home``: the folder of the index and config; ``settings``: instead of its config.toml;
    ``embedder``: instead of the settings' model (a fake posing as it, in tests and benchmarks);
    ``upgrade_progress(done, total, phase)``: how the upgrade of an index written by an older
    pms-tui goes (done once, when it is opened)."""

    limits = RequestLimits  # what a request may ask, with no index open too (the MCP schemas)

    def __init__(self, home: str | os.PathLike | None = None, settings: Settings | None = None, *,
                 embedder: Embedder | None = None, upgrade_progress: SyncProgress | None = None):
        self.home = Path(home).expanduser() if home else default_home()
        self.home.mkdir(parents=True, exist_ok=True)
        self.settings = settings or load_settings(self.home)
        self.db_path = self.home / DB_FILE
        self._store = Store(self.db_path, upgrade_progress)
        self.model = Model(self._store, embedder or Embedder(
            self.settings.model, self.settings.embed_batch_size, self.settings.max_tokens), self.home)
        self._vectors = VectorIndex(self._store, self.model.index_dim())
        self.collections = Collections(self._store)
        self.scope = Scope(self.collections, self.home, self._store.read_only)
        self.index = Index(self.home, self.settings, self._store, self.collections, self.model, self._vectors)
        self.collections.writing = self.index.writing  # a removal waits for (or refuses during) a sync
        self.notes = Notes(self.settings, self._store, self.collections)
        self.retrieval = Retrieval(self._store, self.settings, self.model, self._vectors, self.scope)
        self.searcher = Searcher(self.settings, self._store, self.retrieval, self.notes, self.model, self.scope)
        self.graph = Graph(self._store, self.collections, self.notes, self.scope, self.model, self._vectors)
        self.doctor = Doctor(self.home, self.db_path, self.settings, self._store, self.index, self.graph,
                             self.model)
        self.clipper = Clipper(self.collections, self.index)
        facet_rules.backfill(self._store)  # once, on an index older than its tags and dates

    @property
    def _embedder(self) -> Embedder:
        """The model's embedder (tests and benchmarks put a fake in its place: every service
        reads it from the model)."""
        return self.model.embedder

    @_embedder.setter
    def _embedder(self, embedder: Embedder) -> None:
        self.model.embedder = embedder

    @functools.cached_property
    def write(self) -> NoteWriter:
        """Every write to a note (create, edit, move, delete, undo: ``core/writes``), each
        indexed as it returns; made on first use (a search never writes)."""
        from .writes.service import NoteWriter

        return NoteWriter(self.home, self.settings, self._store, self.collections, self.notes.place,
                          self.index.index_written)

    # -- the documented names, each its service's ---------------------------------------------
    def sync(self, progress: SyncProgress | None = None, collections: Sequence[str] | None = None,
             only_paths: set[str] | None = None, cancel: threading.Event | None = None, *, embed: bool = True,
             on_wait: Callable[[int | None], None] | None = None, wait: bool = False,
             retry_skipped: bool = False) -> SyncReport:
        """Index what changed, text first, then the queued vectors (``Index.sync``: waiting,
        cancelling, another writer)."""
        return self.index.sync(progress, collections, only_paths, cancel, embed=embed, on_wait=on_wait, wait=wait,
                               retry_skipped=retry_skipped)

    def check_sync_status(self, collections: Sequence[str] | None = None) -> SyncStatus:
        """What a sync would add, delete and update (``Index.check_sync_status``)."""
        return self.index.check_sync_status(collections)

    def reindex(self, progress: SyncProgress | None = None, cancel: threading.Event | None = None) -> SyncReport:
        """Every note read again and re-embedded with the configured model (``Index.reindex``)."""
        return self.index.reindex(progress, cancel)

    def stats(self) -> dict:
        """Notes, chunks, vectors, collections, the file's size, the model (``Index.stats``)."""
        return self.index.stats()

    def search(self, query: str, k: int = 10, mode: str = "hybrid", collections: Sequence[str] | None = None, *,
               vector: bool = True, stop: Callable[[], bool] | None = None, typing: bool = False) -> SearchResult:
        """Hits (best first) with the lanes that answered (``Searcher.search``)."""
        return self.searcher.search(query, k, mode, collections, vector=vector, stop=stop, typing=typing)

    def recent(self, limit: int = 30, collections: Sequence[str] | None = None) -> list[Hit]:
        """The first chunk of the most recently changed notes (``Searcher.recent``)."""
        return self.searcher.recent(limit, collections)

    def chunks_of(self, collection: str | Collection, rel: str) -> list[Hit]:
        """Every chunk of one indexed note, in order (``Notes.chunks_of``)."""
        return self.notes.chunks_of(collection, rel)

    def close(self) -> None:
        self.model.close()
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
    (see ``Index.repair``). Notes are never touched."""
    home_path = Path(home).expanduser() if home else default_home()
    db_path = home_path / DB_FILE
    steps: list[str] = []
    if db_path.exists():
        with WriterLock(home_path).hold(wait, on_wait):
            if health.file_needs_salvage(db_path):
                steps += health.salvage_file(db_path)
    with KnowledgeBase(home_path) as kb:
        kb.index.on_writer_wait = on_wait
        more, report = kb.index.repair(progress)
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
