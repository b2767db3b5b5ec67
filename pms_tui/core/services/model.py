"""The embedding model of one index (``kb.model``): whether the index's vectors are its own, its
state (not loaded, loading, ready, error, mismatch), loading it, and lending it to one-shot
searches of the same home (``query_vectors.service``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import EmbeddingModelError, ModelMismatchError
from ..indexing.embed import Embedder
from ..results import ModelState
from ..search.query_syntax import as_text as as_query_text, parse as parse_query
from ..store import Store, transaction
from ..store import meta
from ..store.schema import ensure_vector_table

if TYPE_CHECKING:
    from ..query_vectors.service import QueryVectorServer


class Model:
    """``embedder``: the model (a fake posing as it in tests and benchmarks may replace it,
    for every part at once: each reads it from here); ``store``: the index whose recorded
    model it is checked against; ``home``: where one-shot searches find its query vectors."""

    def __init__(self, store: Store, embedder: Embedder, home: Path) -> None:
        self.embedder = embedder
        self._store = store
        self._home = home
        self._state = ModelState.NOT_LOADED
        self._server: QueryVectorServer | None = None
        self.error: str | None = None  # why loading failed, when it did
        # the sentence saying the index was built with another model, or None
        self.mismatch: str | None = self._check()

    def _check(self) -> str | None:
        """Record the model on a new index; on an old one, say if it was built with another."""
        conn = self._store.conn
        stored, dim = meta.recorded_model(conn)
        if stored is None and self._store.read_only:
            return None  # an empty read-only index: nothing to compare
        if stored is None:
            with transaction(conn):
                self.record(conn)
            return None
        if stored != self.embedder.model_name or dim != self.embedder.dim:
            return (
                f"The index was built with the embedding model {stored!r} but the configured model is "
                f"{self.embedder.model_name!r}; run `pms-tui reindex` to re-embed with it "
                f"(vectors of two models are never mixed)."
            )
        if not self._store.read_only:
            ensure_vector_table(conn, self.embedder.dim)
        return None

    def record(self, conn) -> None:
        """Record this model as the index's (in the caller's transaction), with its vector table."""
        meta.record_model(conn, self.embedder.model_name, self.embedder.dim)
        ensure_vector_table(conn, self.embedder.dim)

    def index_dim(self) -> int:
        """The dimensions of the index's vectors (this model's on a new index)."""
        return meta.recorded_model(self._store.conn)[1] or self.embedder.dim

    def require_vectors(self) -> None:
        """Raise ModelMismatchError when the index's vectors are not the configured model's."""
        if self.mismatch:
            raise ModelMismatchError(self.mismatch)

    @property
    def state(self) -> ModelState:
        """Not loaded, loading, ready, error (see ``error``) or mismatch (see ``mismatch``); a
        ``StrEnum``, so it reads as its value."""
        if self.mismatch:
            return ModelState.MISMATCH
        if self.embedder.ready:
            return ModelState.READY
        return self._state

    @property
    def ready(self) -> bool:
        """True when vector search can run now: the model is loaded and matches the index."""
        return self.embedder.ready and not self.mismatch

    def load(self, serve_queries: bool = False) -> None:
        """Load the embedding model (slow the first time; safe from a worker thread).
        Raises EmbeddingModelError or ModelMismatchError with the sentence to show.
        ``serve_queries``: then :meth:`serve_query_vectors` (the app and the MCP server)."""
        self.require_vectors()
        self._state = ModelState.LOADING
        try:
            self.embedder.load()
        except EmbeddingModelError as exc:
            self._state, self.error = ModelState.ERROR, str(exc)
            raise
        self._state, self.error = ModelState.READY, None
        if serve_queries:
            self.serve_query_vectors()

    def expect_query_vector(self, future) -> None:
        """Take a query's vector from ``future`` (a ``concurrent.futures.Future`` of what
        ``query_vectors.start`` gives) instead of loading the model for it."""
        self.embedder.expect_query_vector(future)

    def serve_query_vectors(self) -> bool:
        """Answer one-shot `pms-tui search` processes of this home with query vectors from this
        process's loaded model (``query_vectors.service``: a Unix socket in the home, owner only)
        until :meth:`close`. False where it cannot (the model not loaded, another process serving)."""
        if not self.ready or self._server is not None:
            return False
        from ..query_vectors.service import QueryVectorServer

        server = QueryVectorServer(self._home, self.embedder, lambda query: parse_query(as_query_text(query)).text)
        if not server.start():
            return False
        self._server = server
        return True

    def close(self) -> None:
        """Stop serving query vectors (the index closes)."""
        server, self._server = self._server, None
        if server is not None:
            server.stop()
