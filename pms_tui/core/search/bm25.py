"""The BM25 lane: what a person typed, as a safe FTS5 query, ranked by the planner; and the
FTS5 snippets of the hits it found."""

from __future__ import annotations

from collections.abc import Sequence

from ..config import Settings
from ..results import SNIPPET_CLOSE, SNIPPET_OPEN
from ..store import OperationalError, Store, cjk, fts, language
from ..store.chunks import HitRow
from . import query as fts_query
from .bm25_planner import Bm25Planner
from .filters import Plan

SNIPPET_TOKENS = 24
# Words of a text the planner may choose its strongest phrases from (bm25_planner.MAX_PHRASES
# of them rank it). A pasted paragraph's most distinctive words are often past its opening:
# cut at its first query.MAX_TERMS words, as an unplanned query is, it lost them (nDCG@10 on
# paragraph-long queries, research/long_queries/README.md). The parser's own cut of a pasted
# page (query_syntax.PARSED_QUERY_CHARS) leaves fewer words than this.
PLANNED_TERMS = 1000


class Bm25Lane:
    def __init__(self, store: Store, settings: Settings):
        self.store = store
        self.settings = settings
        self.planner = Bm25Planner()
        self.plan = True  # False: every query runs as written (for comparisons)

    def ranked(self, query: str, depth: int, collection_ids: Sequence[int] | None = None,
               filters: Plan | None = None) -> list[tuple[int, float]]:
        """(chunk id, bm25) best first. Never raises on odd input: no words, no hits.

        ``filters`` narrows the ranking: its phrases and title words must match (and score),
        its exclusions must not, and only notes its NoteFilter allows count. With phrases the
        expression runs as written (they make it selective); otherwise the planner ranks the
        words' OR-query and every run it makes is narrowed the same way.
        """
        text = self.build_match(query) if query.strip() else None
        if depth <= 0:
            return []
        filters = filters or Plan()
        if text and self.plan and filters.positive:  # runs as written: its strongest phrases
            text = self.as_ranked(text)
        expression = filters.match(text)
        if expression is None:
            return []
        s = self.settings
        conn = self.store.conn
        filters.resolve(conn)
        if filters.nothing:
            return []
        lane = fts.Bm25Query(conn, fts.ColumnWeights(s.title_weight, s.heading_weight, s.body_weight),
                             collection_ids, filters.doc_ids)

        def part_match(part: str) -> str:
            match = filters.match(part)
            assert match is not None  # a part is a phrase of the text: never empty
            return match

        def run(part: str) -> list[tuple[int, float]]:
            return lane.ranked(part_match(part), depth)

        def count(part: str, cap: int) -> int:
            return lane.count(part_match(part), cap)

        try:
            if self.plan and text and not filters.positive:
                narrowed = bool(collection_ids) or filters.doc_ids is not None or bool(filters.negative)
                return self.planner.ranked(conn, text, run, count, depth, narrowed)
            return lane.ranked(expression, depth)
        except OperationalError as exc:
            if "fts5" in str(exc) or "syntax" in str(exc):
                return []
            raise

    def languages(self, text: str) -> list[str]:
        """The languages the words of ``text`` are stemmed in: of the index's notes not in
        English, those the query may be in (store.language.query_languages)."""
        return language.query_languages(fts_query.words(text), language.present(self.store.conn))

    def build_match(self, text: str, prefix: bool = True) -> str | None:
        """The OR-query this lane ranks ``text`` by (query.build_match, with the stems of its
        words in the languages it may be in, among those of the index's notes): with the
        planner, every word of a long text, of which it keeps the strongest (``as_ranked``)."""
        max_terms = PLANNED_TERMS if self.plan else fts_query.MAX_TERMS
        return fts_query.build_match(text, prefix=prefix, stem_languages=self.languages(text), max_terms=max_terms)

    def as_ranked(self, match: str) -> str:
        """The OR-query this lane ranks ``match`` by (a long text: its strongest phrases)."""
        if not self.plan:
            return match
        try:
            return self.planner.as_ranked(self.store.conn, match)
        except OperationalError:
            return match

    def rank_within(self, expression: str, chunk_ids: Sequence[int],
                    document_ids: Sequence[int] | None = None) -> tuple[int | None, int | None]:
        """(rank of the best of these chunks for the expression among all rows the notes
        ``document_ids`` hold (all: None), its chunk id); (None, None) when none matches."""
        s = self.settings
        weights = fts.ColumnWeights(s.title_weight, s.heading_weight, s.body_weight)
        lane = fts.Bm25Query(self.store.conn, weights, None, document_ids)
        try:
            best = lane.best_among(expression, chunk_ids)
            if best is None and document_ids is not None:  # outside the note filter: rank it without
                lane = fts.Bm25Query(self.store.conn, weights)
                best = lane.best_among(expression, chunk_ids)
            if best is None:
                return None, None
            return lane.better_than(expression, best[1]) + 1, best[0]
        except OperationalError:
            return None, None

    def stems(self, words: Sequence[str]) -> dict[str, list[str]]:
        """The index's stems of each word (what BM25 matches)."""
        if not words:
            return {}
        found = self.planner.stems(self.store.conn, [w for w in words if not cjk.has_cjk(w)])
        for w in words:
            if cjk.has_cjk(w):  # matched by its character pairs (store.cjk)
                found[w] = cjk.query_pairs(w)[0]
        return found

    def snippets(self, query: str, rows: Sequence[HitRow]) -> dict[int, str]:
        """FTS5 snippets of these rows' bodies for the query, where a query word is marked."""
        match = fts_query.build_match(query)
        if not rows or match is None or cjk.has_cjk(query):
            return {}  # CJK words: FTS5 cannot mark them inside a run; fusion.mark_words does
        conn = self.store.conn
        self.planner.own_changes(conn, 0)  # makes this connection's temporary tables
        sources = [fts.SnippetSource(r.chunk_id, r.title, r.heading, r.body) for r in rows]
        found, changes = fts.snippets(conn, sources, match, (SNIPPET_OPEN, SNIPPET_CLOSE), SNIPPET_TOKENS)
        self.planner.own_changes(conn, changes)
        return {cid: " ".join(text.split()) for cid, text in found.items() if SNIPPET_OPEN in text}
