"""Hybrid retrieval: an FTS5 BM25 lane and a vector lane, fused by reciprocal rank fusion.

Rank first, fetch last: each lane returns only chunk ids (and its score) in rank order, the
lanes are fused, and text and metadata are read for the final top k alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from . import fts_query
from . import store as st
from .results import SNIPPET_CLOSE, SNIPPET_OPEN, Hit

if TYPE_CHECKING:
    from .kb import KnowledgeBase

MODES = ("hybrid", "bm25", "vector")
SNIPPET_TOKENS = 24


@dataclass
class Fused:
    chunk_id: int
    rrf: float
    score: float
    ranks: dict[str, int]


@dataclass
class SearchResult:
    """Hits plus which lanes answered, for UIs that show it."""

    hits: list[Hit]
    lanes: list[str]
    notes: list[str] = field(default_factory=list)


def fuse(lanes: dict[str, Sequence[int]], k: int = 60, weights: dict[str, float] | None = None) -> list[Fused]:
    """Reciprocal rank fusion of ranked id lists.

    ``rrf`` is the sum over lanes of w/(k+rank). ``score`` normalises it to 0..1: the sum of
    (w/W)*(k+1)/(k+rank) with W the total weight of the lanes given, so a chunk ranked first by
    every lane scores 1 (with two equal lanes, 0.5*(k+1)/(k+rank) each).
    """
    weights = weights or {}
    total = sum(weights.get(name, 1.0) for name in lanes) or 1.0
    fused: dict[int, Fused] = {}
    for name, ids in lanes.items():
        w = weights.get(name, 1.0)
        for rank, chunk_id in enumerate(ids, start=1):
            entry = fused.setdefault(chunk_id, Fused(chunk_id, 0.0, 0.0, {}))
            entry.rrf += w / (k + rank)
            entry.score += (w / total) * (k + 1) / (k + rank)
            entry.ranks[name] = rank
    # ties: the better best-rank first, then the lower id, so results are deterministic
    return sorted(fused.values(), key=lambda f: (-f.rrf, min(f.ranks.values()), f.chunk_id))


def mark_words(text: str, words: Iterable[str], width: int = 220) -> str:
    """A window of ``text`` around the first query word, with query words marked.

    Used for chunks the BM25 lane did not match (vector-only hits). Words match by their
    first five letters, a rough stand-in for the index's stemming.
    """
    stems = sorted({w[:5] for w in words if len(w) > 1}, key=len, reverse=True)
    flat = " ".join(text.split())
    if not stems:
        return flat[:width]
    pattern = re.compile(r"\b(?:" + "|".join(re.escape(s) for s in stems) + r")\w*", re.IGNORECASE)
    first = pattern.search(flat)
    start = max(0, first.start() - width // 3) if first else 0
    window = flat[start : start + width]
    if start > 0:
        window = "…" + window
    if start + width < len(flat):
        window += "…"
    return pattern.sub(lambda m: f"{SNIPPET_OPEN}{m.group(0)}{SNIPPET_CLOSE}", window)


class Retrieval:
    def __init__(self, kb: "KnowledgeBase"):
        self.kb = kb

    # -- lanes: ids only -------------------------------------------------------------
    def _collection_ids(self, collections: Sequence[str] | None) -> list[int] | None:
        if not collections:
            return None
        return [self.kb.collections.get(name).id for name in collections]

    def bm25_ranked(
        self, query: str, depth: int, collection_ids: list[int] | None = None
    ) -> list[tuple[int, float]]:
        """(chunk id, bm25) best first. Never raises on odd input: no words, no hits."""
        match = fts_query.build_match(query)
        if match is None or depth <= 0:
            return []
        s = self.kb.settings
        score = f"bm25(chunks_fts, {float(s.title_weight)}, {float(s.heading_weight)}, {float(s.body_weight)})"
        sql = f"SELECT rowid, {score} AS s FROM chunks_fts WHERE chunks_fts MATCH ?"
        params: list = [match]
        if collection_ids:
            marks = ",".join("?" * len(collection_ids))
            sql += (
                f" AND rowid IN (SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id"
                f" WHERE d.collection_id IN ({marks}))"
            )
            params += collection_ids
        sql += " ORDER BY s LIMIT ?"
        params.append(depth)
        try:
            return [(int(r[0]), float(r[1])) for r in self.kb.store.conn.execute(sql, params)]
        except st.OperationalError as exc:
            if "fts5" in str(exc) or "syntax" in str(exc):
                return []
            raise

    def vector_ranked(
        self, query: str, depth: int, collection_ids: list[int] | None = None
    ) -> list[tuple[int, float]]:
        """(chunk id, cosine distance) nearest first; over-fetches when filtering."""
        if not query.strip() or depth <= 0:
            return []
        self.kb.require_vectors()
        qvec = self.kb.embedder.embed_query(query)
        index = self.kb.vectors
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
        out: list[tuple[int, int, float]] = []
        conn = self.kb.store.conn
        ids = [int(v) for v in vec_ids]
        for start in range(0, len(ids), 900):
            part = ids[start : start + 900]
            marks = ",".join("?" * len(part))
            sql = f"SELECT c.id, c.vector_id FROM chunks c"
            params: list = list(part)
            if collection_ids:
                sql += f" JOIN documents d ON d.id = c.document_id WHERE c.vector_id IN ({marks})"
                sql += f" AND d.collection_id IN ({','.join('?' * len(collection_ids))})"
                params += collection_ids
            else:
                sql += f" WHERE c.vector_id IN ({marks})"
            for chunk_id, vid in conn.execute(sql, params):
                i = order[vid]
                out.append((i, chunk_id, float(distances[i])))
        out.sort()
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
            raise ValueError(f"Unknown search mode {mode!r}; use one of {', '.join(MODES)}.")
        cids = self._collection_ids(collections)
        s = self.kb.settings
        depth = max(k, s.lane_depth)
        lanes: dict[str, list[int]] = {}
        bm25_scores: dict[int, float] = {}
        distances: dict[int, float] = {}
        notes: list[str] = []
        if mode in ("hybrid", "bm25"):
            ranked = self.bm25_ranked(query, depth, cids)
            lanes["bm25"] = [c for c, _ in ranked]
            bm25_scores = dict(ranked)
        if mode in ("hybrid", "vector"):
            if vector:
                ranked = self.vector_ranked(query, depth, cids)
                lanes["vector"] = [c for c, _ in ranked]
                distances = dict(ranked)
            else:
                notes.append("vector lane waiting for the model")
        fused = fuse(lanes, s.rrf_k, {"bm25": s.bm25_weight, "vector": s.vector_weight})[:k]
        hits = self._hits(fused, query, bm25_scores, distances)
        return SearchResult(hits, list(lanes), notes)

    def rrf(self, query: str, k: int = 5, collections: Sequence[str] | None = None) -> list[Hit]:
        return self.search(query, k, "hybrid", collections).hits

    def bm25_search(self, query: str, k: int = 5, collections: Sequence[str] | None = None) -> list[Hit]:
        return self.search(query, k, "bm25", collections).hits

    def vector_search(self, query: str, k: int = 5, collections: Sequence[str] | None = None) -> list[Hit]:
        return self.search(query, k, "vector", collections).hits

    def _hits(self, fused: list[Fused], query: str, bm25_scores, distances) -> list[Hit]:
        if not fused:
            return []
        ids = [f.chunk_id for f in fused]
        marks = ",".join("?" * len(ids))
        conn = self.kb.store.conn
        rows = {
            r[0]: r
            for r in conn.execute(
                "SELECT c.id, c.start_line, c.end_line, c.title, c.heading, c.body, d.path, col.name, col.path "
                "FROM chunks c JOIN documents d ON d.id = c.document_id "
                f"JOIN collections col ON col.id = d.collection_id WHERE c.id IN ({marks})",
                ids,
            )
        }
        snippets = self._snippets(query, [i for i in ids if i in bm25_scores])
        words = fts_query.content_words(query)
        hits = []
        for f in fused:
            row = rows.get(f.chunk_id)
            if row is None:  # deleted by a sync between ranking and fetching
                continue
            _, start, end, title, heading, body, rel, col_name, col_path = row
            hits.append(
                Hit(
                    chunk_id=f.chunk_id,
                    collection=col_name,
                    path=str(self.kb.note_path(col_path, rel)),
                    relpath=rel,
                    title=title,
                    heading_path=heading.split(" > ") if heading else [],
                    start_line=start,
                    end_line=end,
                    text=body,
                    snippet=snippets.get(f.chunk_id) or mark_words(body, words),
                    score=round(f.score, 6),
                    rrf=round(f.rrf, 8),
                    bm25_rank=f.ranks.get("bm25"),
                    vector_rank=f.ranks.get("vector"),
                    bm25=bm25_scores.get(f.chunk_id),
                    distance=distances.get(f.chunk_id),
                )
            )
        return hits

    def _snippets(self, query: str, ids: list[int]) -> dict[int, str]:
        match = fts_query.build_match(query)
        if not ids or match is None:
            return {}
        marks = ",".join("?" * len(ids))
        sql = (
            f"SELECT rowid, snippet(chunks_fts, 2, ?, ?, '…', {SNIPPET_TOKENS}) FROM chunks_fts "
            f"WHERE chunks_fts MATCH ? AND rowid IN ({marks})"
        )
        try:
            rows = self.kb.store.conn.execute(sql, [SNIPPET_OPEN, SNIPPET_CLOSE, match, *ids]).fetchall()
        except st.OperationalError:
            return {}
        return {r[0]: " ".join(r[1].split()) for r in rows if SNIPPET_OPEN in r[1]}
