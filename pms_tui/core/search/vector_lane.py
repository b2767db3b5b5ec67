"""The vector lane's scan of the in-memory mirror, given a query's vector: the whole mirror,
within collections, or within a search's filters (a narrow filter scans only its passages'
vectors; a broad one scans all and checks the nearest, fetching deeper until enough pass, so a
filter never empties the lane because the unfiltered top fell outside it)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from ..store import Store
from ..store import chunks as chunk_rows
from ..store import facets
from .filters import Plan
from .vector_index import VectorIndex

Ranked = list[tuple[int, float]]  # (chunk id, the lane's score) best first

# A filter allowing fewer passages than this share of the index (and at least NARROW_MIN) is
# answered by scanning its passages' vectors alone (exact); a broader one by the whole scan,
# checked against the filter and widened until enough pass.
NARROW_SHARE = 0.125
NARROW_MIN = 2_000
# A scan whose nearest passages are then checked (a filter, a collection choice) fetches this
# many times the depth at first, and this many times more each round until enough pass.
WIDEN = 4


class VectorLane:
    def __init__(self, store: Store, vectors: VectorIndex) -> None:
        self.store = store
        self.vectors = vectors

    def ranked(self, qvec, depth: int, collection_ids: list[int] | None = None,
               filters: Plan | None = None) -> Ranked:
        """(chunk id, cosine distance) nearest first, within ``filters`` when given."""
        if filters is not None and filters.restricts:
            return self._vector_filtered(qvec, depth, filters, collection_ids)
        return self._vector_scan(qvec, depth, collection_ids)

    def _vector_filtered(self, qvec, depth: int, filters: Plan, collection_ids: list[int] | None) -> Ranked:
        """The vector lane within the filters: the narrow scan, or the whole one checked."""
        conn = self.store.conn
        filters.resolve(conn)
        if filters.nothing:
            return []
        words, exclude = filters.words(), filters.excluded()
        docs = self._filter_documents(filters, collection_ids)
        if words or docs is not None:
            cap = max(NARROW_MIN, int(len(self.vectors) * NARROW_SHARE))
            allowed = facets.chunks_of_documents(conn, docs, words, exclude, limit=cap)
            if len(allowed) < cap:
                return self._ranked_among(qvec, allowed, depth)
        return self._vector_scan(qvec, depth, None, partial(self._within, docs, words, exclude))

    def _within(self, docs: list[int] | None, words: str | None, exclude: str | None, found: Ranked) -> Ranked:
        """The passages of ``found`` that the filters allow, in their order."""
        among = [c for c, _ in found]
        ok = {c for c, _ in facets.chunks_of_documents(self.store.conn, docs, words, exclude, among=among)}
        return [(c, d) for c, d in found if c in ok]

    def _filter_documents(self, filters: Plan, collection_ids: list[int] | None) -> list[int] | None:
        """The notes the filters allow (None: any), narrowed to ``collection_ids`` when a
        caller gives both (``vector_ranked``'s collection argument, from before filters)."""
        if not collection_ids:
            return filters.doc_ids
        docs = facets.document_ids(self.store.conn, facets.NoteFilter(collection_ids=tuple(collection_ids)))
        assert docs is not None  # collection ids are a condition: never "every note"
        return docs if filters.doc_ids is None else sorted(set(docs) & set(filters.doc_ids))

    def _vector_scan(self, qvec, depth: int, collection_ids: list[int] | None,
                     passing: Callable[[Ranked], Ranked] | None = None) -> Ranked:
        """The nearest ``depth`` passages of the whole mirror, within ``collection_ids`` and
        ``passing``; checked scans fetch WIDEN times deeper each round until enough pass."""
        checked = bool(collection_ids) or passing is not None
        fetch = depth * WIDEN if checked else depth
        while True:
            vec_ids, distances = self.vectors.search(qvec, fetch)
            ranked = self._chunks_for_vectors(vec_ids, distances, collection_ids)
            if passing is not None:
                ranked = passing(ranked)
            if len(ranked) >= depth or fetch >= len(self.vectors):
                return ranked[:depth]
            fetch *= WIDEN

    def _chunks_for_vectors(self, vec_ids, distances, collection_ids) -> list[tuple[int, float]]:
        if not len(vec_ids):
            return []
        order = {int(v): i for i, v in enumerate(vec_ids)}
        found = chunk_rows.for_vectors(self.store.conn, [int(v) for v in vec_ids], collection_ids)
        out = sorted((order[vid], chunk_id, float(distances[order[vid]])) for chunk_id, vid in found)
        return [(chunk_id, dist) for _, chunk_id, dist in out]

    def _ranked_among(self, qvec, allowed: list[tuple[int, int]], depth: int) -> list[tuple[int, float]]:
        import numpy as np

        if not allowed:
            return []
        by_vector: dict[int, list[int]] = {}
        for chunk_id, vid in allowed:
            by_vector.setdefault(vid, []).append(chunk_id)
        among = np.array(sorted(by_vector), dtype=np.int64)
        vec_ids, distances = self.vectors.search(qvec, depth, among=among)
        out: list[tuple[int, float]] = []
        for vid, dist in zip(vec_ids.tolist(), distances.tolist()):
            out += [(c, float(dist)) for c in sorted(by_vector.get(vid, ()))]
        return out[:depth]
