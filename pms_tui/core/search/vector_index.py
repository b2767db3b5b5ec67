"""Exact cosine search over an in-memory copy of the vectors stored in sqlite-vec.

The vectors' truth stays in SQLite (``vec_vectors``). sqlite-vec's public KNN query (``WHERE
embedding MATCH ? AND k = ?``) scans every vector for each search; one matrix-vector product
over the same vectors in NumPy is several times faster (benchmarks/run.py prints both), so the
store's vectors are mirrored in a float32 matrix and kept in step
through a generation counter that every write to the vectors bumps. Vectors are
normalised when written, so the dot product is the cosine similarity.

Loading: reading the vectors row by row through the vec0 virtual table is several times slower
than reading vec0's own storage, a blob of 1,024 vectors at a time; the mirror is loaded that
way (``store.vec0_shadow``, the one module that knows vec0's layout: checked blob by blob,
anything unexpected falls back to the virtual table). Rows are copied into a matrix allocated
once, one blob at a time, so loading never holds the vectors twice.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from ..store import Store, read_snapshot
from ..store import vectors as vector_rows
from ..store.vec0_shadow import LayoutMismatch, shadow_blocks
from ..store.meta import vectors_generation

if TYPE_CHECKING:
    import numpy as np
# NumPy is imported when vectors are first searched (a BM25-only search never imports it).


class VectorIndex:
    def __init__(self, store: Store, dim: int):
        self.store = store
        self._lock = threading.Lock()
        self.use_shadow_tables = True
        self.reset(dim)

    def reset(self, dim: int) -> None:
        """Forget the mirror (after a reindex, perhaps with another dimension)."""
        with self._lock:
            self.dim = dim
            self._generation: str | None = None
            self._ids: np.ndarray | None = None  # None: not loaded yet (see refresh)
            self._matrix: np.ndarray | None = None

    def __len__(self) -> int:
        return 0 if self._ids is None else len(self._ids)

    def refresh(self) -> None:
        """Bring the mirror in step with the store: drop deleted ids, load new ones."""
        import numpy as np

        conn = self.store.conn
        if vectors_generation(conn) == self._generation and self._ids is not None:
            return
        with self._lock, read_snapshot(conn):
            if self._ids is None:
                # one snapshot for the ids, the vectors and the generation
                self._ids = np.zeros(0, dtype=np.int64)
                self._matrix = np.zeros((0, self.dim), dtype=np.float32)
            generation = vectors_generation(conn)
            if generation == self._generation:
                return
            assert self._matrix is not None  # loaded with the ids
            live = vector_rows.live_ids(conn)
            keep = np.isin(self._ids, live, assume_unique=True)
            kept = int(keep.sum())
            # new vectors: usually all after the last loaded id, but a queued text embedded
            # late (the queue drains in id order, a later sync may requeue) can be anywhere
            wanted = np.setdiff1d(live, self._ids, assume_unique=True)
            last = int(wanted[0]) - 1 if len(wanted) else (int(self._ids[-1]) if len(self._ids) else 0)
            ids = np.empty(kept + len(wanted), dtype=np.int64)
            matrix = np.empty((kept + len(wanted), self.dim), dtype=np.float32)
            ids[:kept] = self._ids[keep]
            matrix[:kept] = self._matrix[keep]
            filled = self._load_new(conn, last, wanted, ids, matrix, kept)
            if filled != len(ids):  # the vectors and vec0 tables disagree: keep what vec0 has
                ids, matrix = ids[:filled].copy(), matrix[:filled].copy()
            if filled > kept and not np.all(ids[kept + 1 : filled] > ids[kept : filled - 1]):
                order = np.argsort(ids, kind="stable")
                ids, matrix = ids[order], matrix[order]
            self._ids, self._matrix, self._generation = ids, matrix, generation

    def _load_new(self, conn, last: int, wanted: np.ndarray, ids: np.ndarray, matrix: np.ndarray, pos: int) -> int:
        """Copy the vec0 rows of ``wanted`` ids (sorted, all > ``last``) into ``ids``/``matrix`` from
        ``pos``; returns the new end."""
        start = pos
        if self.use_shadow_tables:
            try:
                for block_ids, block in shadow_blocks(conn, self.dim, last):
                    pos = self._put(ids, matrix, pos, block_ids, block, wanted)
                return pos
            except LayoutMismatch:
                self.use_shadow_tables = False
                pos = start
        for block_ids, block in vector_rows.scan_blocks(conn, self.dim, last):
            pos = self._put(ids, matrix, pos, block_ids, block, wanted)
        return pos

    @staticmethod
    def _put(ids, matrix, pos: int, block_ids: np.ndarray, block: np.ndarray, wanted: np.ndarray) -> int:
        # a vec0 row whose vectors row is gone is not loaded (``wanted`` is sorted)
        import numpy as np

        at = np.minimum(np.searchsorted(wanted, block_ids), max(len(wanted) - 1, 0))
        live = wanted[at] == block_ids if len(wanted) else np.zeros(len(block_ids), dtype=bool)
        if not live.all():
            block_ids, block = block_ids[live], block[live]
        room = len(ids) - pos
        n = min(room, len(block_ids))
        ids[pos : pos + n] = block_ids[:n]
        matrix[pos : pos + n] = block[:n]
        return pos + n

    def snapshot(self) -> tuple[np.ndarray, np.ndarray]:
        """(the vector ids, sorted; their rows): the mirror as it is now, not copied (an
        evaluation scans it its own way). A later refresh replaces both, never changes them."""
        self.refresh()
        ids, matrix = self._ids, self._matrix
        assert ids is not None and matrix is not None  # refresh loaded them
        return ids, matrix

    def search(self, query: np.ndarray, k: int, among: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The ``k`` nearest vector ids and their cosine distances, nearest first; only among
        the vector ids ``among`` (sorted) when given (a filter's passages: scans those alone)."""
        import numpy as np

        ids, matrix = self.snapshot()  # one consistent snapshot
        if among is not None:
            at = np.minimum(np.searchsorted(ids, among), max(len(ids) - 1, 0))
            rows = at[ids[at] == among] if len(ids) else at[:0]
            ids, matrix = ids[rows], matrix[rows]
        n = len(ids)
        if not n or k <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        # einsum's own single-threaded SIMD loop, not BLAS: OpenBLAS's threaded sgemv waits for
        # its second thread, which on a busy 2-core machine costs more than it saves (einsum
        # took half BLAS's time, measured side by side under load).
        scores = np.einsum("ij,j->i", matrix, np.ascontiguousarray(query, dtype=np.float32))
        top = nearest_rows(scores, ids, k)
        return ids[top], (1.0 - scores[top]).astype(np.float32)

    def best_similarity(self, query: np.ndarray, vector_ids) -> float | None:
        """The highest cosine similarity to ``query`` among ``vector_ids`` (sorted), scanning
        those rows alone; None when none is in the mirror."""
        import numpy as np

        ids, matrix = self.snapshot()
        wanted = np.asarray(vector_ids, dtype=np.int64)
        if not len(ids) or not len(wanted):
            return None
        at = np.minimum(np.searchsorted(ids, wanted), len(ids) - 1)
        rows = at[ids[at] == wanted]
        if not len(rows):
            return None
        return float(np.max(matrix[rows] @ np.ascontiguousarray(query, dtype=np.float32)))

    def rank_of(self, query: np.ndarray, vector_ids: np.ndarray,
                among: np.ndarray | None = None) -> tuple[int, float, int] | None:
        """(the nearest of ``vector_ids``, its cosine similarity, its rank among all vectors,
        or among the sorted vector ids ``among``)."""
        import numpy as np

        ids, matrix = self.snapshot()
        if not len(ids) or not len(vector_ids):
            return None
        scores = np.einsum("ij,j->i", matrix, np.ascontiguousarray(query, dtype=np.float32))
        rows = self._rows_of(ids, vector_ids)
        if not len(rows):
            return None
        best = rows[np.argmax(scores[rows])]
        counted = scores if among is None else scores[self._rows_of(ids, among)]
        return int(ids[best]), float(scores[best]), int(np.count_nonzero(counted > scores[best])) + 1

    @staticmethod
    def _rows_of(ids: np.ndarray, vector_ids: np.ndarray) -> np.ndarray:
        """The rows of the mirror (its ``ids`` sorted) holding these sorted vector ids."""
        import numpy as np

        if not len(vector_ids):
            return np.zeros(0, dtype=np.int64)
        at = np.minimum(np.searchsorted(ids, vector_ids), len(ids) - 1)
        return at[ids[at] == vector_ids]


def nearest_rows(scores: np.ndarray, ids: np.ndarray, k: int) -> np.ndarray:
    """The rows of the ``k`` highest ``scores``, best first, ties by id (exact).

    A full ``argpartition`` touches every score several times; instead, the scores are cut
    into at least ``4 k`` blocks: the k-th highest block maximum ``t`` is at most the k-th
    highest score (k blocks each hold a score of at least ``t``), so every top-k row scores
    ``>= t``; those few (~1.5 k) are sorted exactly. Ties are broken by id, so the order never
    depends on how a partition fell."""
    import numpy as np

    n = len(scores)
    k = min(k, n)
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    block = n // (4 * k)
    if block >= 16:
        full = n - n % block
        maxima = scores[:full].reshape(-1, block).max(axis=1)
        if full < n:
            maxima = np.append(maxima, scores[full:].max())
        t = np.partition(maxima, len(maxima) - k)[len(maxima) - k]
        if np.isfinite(t):
            rows = np.flatnonzero(scores >= t)
            return rows[np.lexsort((ids[rows], -scores[rows]))][:k]
    return np.lexsort((ids, -scores))[:k]  # few scores (under 64 k): sort them all
