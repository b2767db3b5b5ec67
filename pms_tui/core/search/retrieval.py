"""Hybrid retrieval: an FTS5 BM25 lane and a vector lane, fused by reciprocal rank fusion.

Rank first, fetch last: each lane returns only chunk ids (and its score) in rank order, the
lanes are fused, and text and metadata are read for the final top k alone.

Retrieval receives what it needs (the store, the settings, the embedder, the vector mirror,
and two small callables of the KnowledgeBase: collection names to ids, and the model check),
never the KnowledgeBase itself.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from ..config import Settings
from ..errors import UsageError
from ..results import MODES, Hit, SearchResult
from ..store import Store
from ..store import chunks as chunk_rows
from . import query as fts_query
from .bm25 import Bm25Lane
from .fusion import Fused, fuse, mark_words
from .hits import hit_from_row
from .vector_index import VectorIndex

CollectionIds = Callable[[Sequence[str] | None], "list[int] | None"]


class Retrieval:
    def __init__(
        self,
        store: Store,
        settings: Settings,
        embedder,
        vectors: VectorIndex,
        collection_ids: CollectionIds,
        require_vectors: Callable[[], None],
    ):
        self.store = store
        self.settings = settings
        self.embedder = embedder
        self.vectors = vectors
        self._collection_ids = collection_ids
        self._require_vectors = require_vectors
        self.bm25 = Bm25Lane(store, settings)
        self._pool = None
        self._pool_lock = threading.Lock()

    @property
    def planner(self):
        return self.bm25.planner

    @property
    def plan_bm25(self) -> bool:
        """False: every BM25 query runs as written (for comparisons)."""
        return self.bm25.plan

    @plan_bm25.setter
    def plan_bm25(self, value: bool) -> None:
        self.bm25.plan = value

    def _embedding_pool(self):
        with self._pool_lock:
            if self._pool is None:
                from concurrent.futures import ThreadPoolExecutor

                self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pms-vector-lane")
            return self._pool

    def close(self) -> None:
        with self._pool_lock:
            if self._pool is not None:
                self._pool.shutdown(wait=False)
                self._pool = None

    # -- lanes: ids only -------------------------------------------------------------
    def bm25_ranked(self, query: str, depth: int, collection_ids: list[int] | None = None) -> list[tuple[int, float]]:
        """(chunk id, bm25) best first. Never raises on odd input: no words, no hits."""
        return self.bm25.ranked(query, depth, collection_ids)

    def vector_ranked(
        self, query: str, depth: int, collection_ids: list[int] | None = None, qvec=None
    ) -> list[tuple[int, float]]:
        """(chunk id, cosine distance) nearest first; over-fetches when filtering."""
        if not query.strip() or depth <= 0:
            return []
        self._require_vectors()
        if qvec is None:
            qvec = self.embedder.embed_query(query)
        index = self.vectors
        fetch = depth * (4 if collection_ids else 1)
        while True:
            vec_ids, distances = index.search(qvec, fetch)
            ranked = self._chunks_for_vectors(vec_ids, distances, collection_ids)
            if len(ranked) >= depth or fetch >= len(index):
                return ranked[:depth]
            fetch *= 4

    def _chunks_for_vectors(self, vec_ids, distances, collection_ids) -> list[tuple[int, float]]:
        if not len(vec_ids):
            return []
        order = {int(v): i for i, v in enumerate(vec_ids)}
        found = chunk_rows.for_vectors(self.store.conn, [int(v) for v in vec_ids], collection_ids)
        out = sorted((order[vid], chunk_id, float(distances[order[vid]])) for chunk_id, vid in found)
        return [(chunk_id, dist) for _, chunk_id, dist in out]

    def candidates(self, query: str, k: int = 10, collections: Sequence[str] | None = None):
        """(bm25 chunk ids, vector chunk ids), each best first."""
        cids = self._collection_ids(collections)
        bm25 = [c for c, _ in self.bm25_ranked(query, k, cids)]
        vec = [c for c, _ in self.vector_ranked(query, k, cids)]
        return bm25, vec

    # -- hits ---------------------------------------------------------------------------
    def search(
        self,
        query: str,
        k: int = 10,
        mode: str = "hybrid",
        collections: Sequence[str] | None = None,
        *,
        vector: bool = True,
    ) -> SearchResult:
        """The engine's one search path. ``vector=False`` answers from BM25 alone (for a UI
        whose model is still loading)."""
        if mode not in MODES:
            raise UsageError(f"Unknown search mode {mode!r}; use one of {', '.join(MODES)}.")
        cids = self._collection_ids(collections)
        s = self.settings
        depth = max(k, s.lane_depth)
        lanes: dict[str, list[int]] = {}
        bm25_scores: dict[int, float] = {}
        distances: dict[int, float] = {}
        notes: list[str] = []
        pending = None
        if mode == "hybrid" and vector and query.strip():
            # the vector lane (embedding the query, then the scan) runs on another core while
            # this one ranks BM25; ONNX Runtime, NumPy and SQLite all release the GIL
            self._require_vectors()
            pending = self._embedding_pool().submit(self.vector_ranked, query, depth, cids)
        if mode in ("hybrid", "bm25"):
            try:
                ranked = self.bm25_ranked(query, depth, cids)
            except BaseException:
                if pending is not None:
                    pending.cancel()
                raise
            lanes["bm25"] = [c for c, _ in ranked]
            bm25_scores = dict(ranked)
        if mode in ("hybrid", "vector"):
            if vector:
                ranked = pending.result() if pending is not None else self.vector_ranked(query, depth, cids)
                lanes["vector"] = [c for c, _ in ranked]
                distances = dict(ranked)
            else:
                notes.append("vector lane waiting for the model")
        fused = fuse(lanes, s.rrf_k, {"bm25": s.bm25_weight, "vector": s.vector_weight})[:k]
        hits = self._hits(fused, query, bm25_scores, distances)
        return SearchResult(hits, list(lanes), notes)

    def rrf(self, query: str, k: int = 5, collections: Sequence[str] | None = None) -> list[Hit]:
        """Both lanes fused (the hybrid search's hits)."""
        return self.search(query, k, "hybrid", collections).hits

    def bm25_search(self, query: str, k: int = 5, collections: Sequence[str] | None = None) -> list[Hit]:
        return self.search(query, k, "bm25", collections).hits

    def vector_search(self, query: str, k: int = 5, collections: Sequence[str] | None = None) -> list[Hit]:
        return self.search(query, k, "vector", collections).hits

    def _hits(self, fused: list[Fused], query: str, bm25_scores, distances) -> list[Hit]:
        if not fused:
            return []
        ids = [f.chunk_id for f in fused]
        rows = chunk_rows.hits_by_ids(self.store.conn, ids)
        snippets = self.bm25.snippets(query, [rows[i] for i in ids if i in bm25_scores and i in rows])
        words = fts_query.content_words(query)
        pending = chunk_rows.with_pending_vector(self.store.conn, ids)
        hits = []
        for f in fused:
            row = rows.get(f.chunk_id)
            if row is None:  # deleted by a sync between ranking and fetching
                continue
            hits.append(hit_from_row(
                row,
                snippets.get(f.chunk_id) or mark_words(row.body, words),
                score=round(f.score, 6),
                rrf=round(f.rrf, 8),
                bm25_rank=f.ranks.get("bm25"),
                vector_rank=f.ranks.get("vector"),
                bm25=bm25_scores.get(f.chunk_id),
                distance=distances.get(f.chunk_id),
                vector_pending=f.chunk_id in pending,
            ))
        return hits
