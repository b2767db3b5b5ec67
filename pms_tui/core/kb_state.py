"""What the KnowledgeBase's parts share, declared once: ``KnowledgeBase`` and its mixins
(``kb_indexing``, ``kb_doctor``, ``kb_graph``, ``kb_notes``) each subclass ``KnowledgeBaseState``,
so the type checker knows every attribute ``KnowledgeBase.__init__`` sets and every method one
part calls on another. Attributes with a leading underscore are the engine's own: the store,
the embedder, the vector index and the locks are never reached by a front end (a test that
needs one names it, ``kb._store``)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .config import Settings
    from .indexing.collections import Collections
    from .indexing.documents import DocumentCounts
    from .indexing.embed import Embedder
    from .search.retrieval import Retrieval
    from .search.vector_index import VectorIndex
    from .store import Store
    from .store.writer_lock import WriterLock


class KnowledgeBaseState:
    # set by KnowledgeBase.__init__
    home: Path
    settings: Settings
    db_path: Path
    collections: Collections
    retrieval: Retrieval  # the documented lanes: rrf, candidates, bm25_search, vector_search
    on_writer_wait: Callable[[int | None], None] | None
    model_mismatch: str | None
    model_error: str | None
    _store: Store
    _embedder: Embedder
    _vectors: VectorIndex
    _writer_lock: WriterLock  # one writer per home across processes
    _embed_lock: WriterLock  # one drain of the embedding queue per home
    _sync_lock: threading.Lock  # one sync's text written at a time in this process
    _drain_lock: threading.Lock  # one drain of the queue at a time in this process

    if TYPE_CHECKING:  # defined by one part, called by another
        def require_vectors(self) -> None: ...
        def stats(self) -> dict: ...
        def load_model(self, serve_queries: bool = False) -> None: ...
        def link_counts(self) -> dict[str, dict[str, int]]: ...
        def document_counts(self) -> dict[str, DocumentCounts]: ...
        def _record_model(self, conn) -> None: ...
        def _index_dim(self) -> int: ...
