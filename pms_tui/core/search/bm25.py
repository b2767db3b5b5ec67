"""The BM25 lane: what a person typed, as a safe FTS5 query, ranked by the planner; and the
FTS5 snippets of the hits it found."""

from __future__ import annotations

from collections.abc import Sequence

from ..config import Settings
from ..results import SNIPPET_CLOSE, SNIPPET_OPEN
from ..store import OperationalError, Store, fts
from ..store.chunks import HitRow
from . import query as fts_query
from .bm25_planner import Bm25Planner

SNIPPET_TOKENS = 24


class Bm25Lane:
    def __init__(self, store: Store, settings: Settings):
        self.store = store
        self.settings = settings
        self.planner = Bm25Planner()
        self.plan = True  # False: every query runs as written (for comparisons)

    def ranked(self, query: str, depth: int, collection_ids: Sequence[int] | None = None) -> list[tuple[int, float]]:
        """(chunk id, bm25) best first. Never raises on odd input: no words, no hits."""
        match = fts_query.build_match(query)
        if match is None or depth <= 0:
            return []
        s = self.settings
        conn = self.store.conn
        lane = fts.Bm25Query(conn, fts.ColumnWeights(s.title_weight, s.heading_weight, s.body_weight), collection_ids)

        def run(expression: str) -> list[tuple[int, float]]:
            return lane.ranked(expression, depth)

        try:
            if self.plan:
                return self.planner.ranked(conn, match, run, lane.count, depth)
            return run(match)
        except OperationalError as exc:
            if "fts5" in str(exc) or "syntax" in str(exc):
                return []
            raise

    def snippets(self, query: str, rows: Sequence[HitRow]) -> dict[int, str]:
        """FTS5 snippets of these rows' bodies for the query, where a query word is marked."""
        match = fts_query.build_match(query)
        if not rows or match is None:
            return {}
        conn = self.store.conn
        self.planner.own_changes(conn, 0)  # makes this connection's temporary tables
        sources = [fts.SnippetSource(r.chunk_id, r.title, r.heading, r.body) for r in rows]
        found, changes = fts.snippets(conn, sources, match, (SNIPPET_OPEN, SNIPPET_CLOSE), SNIPPET_TOKENS)
        self.planner.own_changes(conn, changes)
        return {cid: " ".join(text.split()) for cid, text in found.items() if SNIPPET_OPEN in text}
