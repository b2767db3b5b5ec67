"""KnowledgeBase: the engine's front door, used by the CLI, the terminal UI, scripts and tests.

    kb = KnowledgeBase(home="~/kb")      # or PMS_TUI_HOME, or the platform's user data dir
    kb.collections.create("./notes", name="notes")
    kb.sync()
    hits = kb.search("undo the last commit", k=5)
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path

from . import store as st
from . import sync as sync_mod
from .collections import Collection, Collections
from .config import DB_FILE, Settings, default_home, load_settings
from .embed import Embedder
from .results import HIT_COLUMNS, HIT_JOINS, Hit, SyncReport, SyncStatus, hit_from_row
from .retrieval import Retrieval
from .vector_index import VectorIndex, bump_generation


class ModelMismatchError(RuntimeError):
    """The index holds vectors of another model than the one configured."""


class SyncBusyError(RuntimeError):
    """A sync is already running in this process."""


class KnowledgeBase:
    def __init__(self, home: str | os.PathLike | None = None, settings: Settings | None = None):
        self.home = Path(home).expanduser() if home else default_home()
        self.home.mkdir(parents=True, exist_ok=True)
        self.settings = settings or load_settings(self.home)
        self.db_path = self.home / DB_FILE
        self.store = st.Store(self.db_path)
        self.embedder = Embedder(self.settings.model, self.settings.embed_batch_size, self.settings.max_tokens)
        self.model_mismatch: str | None = self._check_model()
        self.vectors = VectorIndex(self.store, self._index_dim())
        self.collections = Collections(self)
        self.retrieval = Retrieval(self)
        self._sync_lock = threading.Lock()

    # -- model bookkeeping -------------------------------------------------------------------
    def _check_model(self) -> str | None:
        """Record the model on a new index; on an old one, say if it was built with another."""
        conn = self.store.conn
        stored = st.get_meta(conn, "embedding_model")
        if stored is None:
            sync_mod.with_tx(conn, self._record_model)
            return None
        if stored != self.embedder.model_name or int(st.get_meta(conn, "embedding_dim") or 0) != self.embedder.dim:
            return (
                f"The index was built with the embedding model {stored!r} but the configured model is "
                f"{self.embedder.model_name!r}; run `pms-tui reindex` to re-embed with it "
                f"(vectors of two models are never mixed)."
            )
        st.ensure_vector_table(conn, self.embedder.dim)
        return None

    def _record_model(self) -> None:
        conn = self.store.conn
        st.set_meta(conn, "embedding_model", self.embedder.model_name)
        st.set_meta(conn, "embedding_dim", self.embedder.dim)
        st.ensure_vector_table(conn, self.embedder.dim)

    def _index_dim(self) -> int:
        return int(st.get_meta(self.store.conn, "embedding_dim") or self.embedder.dim)

    def require_vectors(self) -> None:
        if self.model_mismatch:
            raise ModelMismatchError(self.model_mismatch)

    # -- sync --------------------------------------------------------------------------------
    def _selected(self, collections: Sequence[str] | None) -> list[Collection]:
        if collections:
            return [self.collections.get(name) for name in collections]
        return self.collections.list()

    def check_sync_status(self, collections: Sequence[str] | None = None) -> SyncStatus:
        """``to_add, to_delete, to_update`` (and ``.summary``) without changing anything."""
        return sync_mod.status(self, self._selected(collections))

    def sync(
        self,
        progress: sync_mod.Progress | None = None,
        collections: Sequence[str] | None = None,
        only_paths: set[str] | None = None,
    ) -> SyncReport:
        """Index what changed. ``progress(done, total, phase)`` is called as files are done."""
        self.require_vectors()
        if not self._sync_lock.acquire(blocking=False):
            raise SyncBusyError("A sync is already running; wait for it to finish.")
        try:
            return sync_mod.Indexer(self, progress).run(self._selected(collections), only_paths)
        finally:
            self._sync_lock.release()

    def reindex(self, progress: sync_mod.Progress | None = None) -> SyncReport:
        """Drop every vector and chunk, record the configured model, and index everything again."""
        if not self._sync_lock.acquire(blocking=False):
            raise SyncBusyError("A sync is already running; wait for it to finish.")
        try:
            conn = self.store.conn

            def reset() -> None:
                conn.execute("DELETE FROM documents")
                conn.execute("DROP TABLE IF EXISTS vec_vectors")
                conn.execute("DELETE FROM vectors")
                bump_generation(conn)
                self._record_model()

            sync_mod.with_tx(conn, reset)
            self.model_mismatch = None
            self.vectors = VectorIndex(self.store, self.embedder.dim)
        finally:
            self._sync_lock.release()
        return self.sync(progress)

    def remove_collection_rows(self, collection_id: int) -> None:
        conn = self.store.conn

        def drop() -> None:
            conn.execute("DELETE FROM documents WHERE collection_id = ?", (collection_id,))
            conn.execute("DELETE FROM collections WHERE id = ?", (collection_id,))

        sync_mod.with_tx(conn, drop)
        sync_mod.collect_garbage(conn)

    # -- search ------------------------------------------------------------------------------
    def search(
        self, query: str, k: int = 10, mode: str = "hybrid", collections: Sequence[str] | None = None
    ) -> list[Hit]:
        return self.retrieval.search(query, k, mode, collections).hits

    def recent(self, limit: int = 30, collections: Sequence[str] | None = None) -> list[Hit]:
        """The first chunk of the most recently changed notes: what an empty query shows."""
        conn = self.store.conn
        sql = f"SELECT {HIT_COLUMNS} {HIT_JOINS} WHERE c.seq = 0"
        params: list = []
        if collections:
            ids = [self.collections.get(n).id for n in collections]
            sql += f" AND d.collection_id IN ({','.join('?' * len(ids))})"
            params += ids
        sql += " ORDER BY d.mtime_ns DESC, d.id DESC LIMIT ?"
        params.append(limit)
        return [hit_from_row(row, " ".join(row[5].split())[:200]) for row in conn.execute(sql, params)]

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

    def chunks_of(self, collection: Collection, rel: str) -> list[Hit]:
        """Every chunk of one indexed note, in order."""
        rows = self.store.conn.execute(
            f"SELECT {HIT_COLUMNS} {HIT_JOINS} WHERE d.collection_id = ? AND d.path = ? ORDER BY c.seq",
            (collection.id, rel),
        )
        return [hit_from_row(row) for row in rows]

    # -- facts -------------------------------------------------------------------------------
    def stats(self) -> dict:
        conn = self.store.conn
        documents = conn.execute("SELECT count(*) FROM documents").fetchone()[0]
        chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        vectors = conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
        size = sum(p.stat().st_size for p in self.home.glob(DB_FILE + "*") if p.is_file())
        return {
            "documents": documents,
            "chunks": chunks,
            "vectors": vectors,
            "collections": len(self.collections.list()),
            "db_bytes": size,
            "model": self.embedder.model_name,
        }

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> "KnowledgeBase":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
