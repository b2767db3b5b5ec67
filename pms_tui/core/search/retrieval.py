"""Hybrid retrieval: an FTS5 BM25 lane and a vector lane, fused by reciprocal rank fusion.

One search, one way through (``search``):

1. ``_prepare``: the query parsed (the search language) and its filters resolved to notes;
2. ``_gather``: each lane's ranking, ids and scores only (the vector lane on another core
   while BM25 ranks), then, for query-aware fusion, the two signals read off those rankings
   (BM25's coverage of the query, the similarity gap; ``lane_trust.measure``);
3. ``fusion_for`` + ``fuse``: the per-query k and weights, then reciprocal rank fusion;
4. ``_hits``: text, snippets and metadata read for the final top k alone.

Retrieval receives what it needs (the store, the settings, the embedding model, the vector
mirror, and the ``Scope``: which collections a request means), never the KnowledgeBase.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Protocol

from ..config import Settings
from ..errors import SearchStopped
from ..indexing.embed import Embedder, model_languages, model_scripts
from ..results import VECTORS_FILLING_IN, VECTORS_OTHER_MODEL, Hit, SearchResult, VectorOut
from ..store import Store
from ..store import chunks as chunk_rows
from ..store import facets
from ..store import vectors as vector_rows
from ..store.connection import is_interrupted, stop_when
from . import evidence as evidence_mod
from . import exact_match, lane_trust, match_quality, navigation
from . import query as fts_query
from . import query_script
from .bm25 import Bm25Lane
from .filters import Plan, plan
from .fusion import Fused, fuse, mark_words, without
from .hits import distinct, hit_from_row, preview
from .limits import check_mode
from .query_syntax import Ignored, ParsedQuery, parse_for
from .scope import Scope
from .vector_index import VectorIndex
from .vector_lane import Ranked, VectorLane

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

# How often a search waiting for its vector lane asks its ``stop`` check (a newer query typed).
STOP_POLL_SECONDS = 0.02


@dataclass
class LaneEvidence:
    """One query's evidence, gathered in one pass before fusion: each lane's ranking, the
    notes for the user (a lane skipped, and why) and, for query-aware fusion, the signals."""

    ranked: dict[str, Ranked] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    vector_out: VectorOut | None = None  # why the vector lane was left out (a note says it)
    signals: lane_trust.Signals | None = None
    # read while the vector lane was still running (see Retrieval._while_waiting)
    coverage: object = lane_trust.UNKNOWN  # BM25's first passage's coverage of the query
    rows: dict[int, chunk_rows.HitRow] = field(default_factory=dict)  # BM25's first hits' rows
    snippets: dict[int, str] = field(default_factory=dict)  # ... and their snippets

    def ids(self) -> dict[str, list[int]]:
        return {name: [c for c, _ in ranked] for name, ranked in self.ranked.items()}

    def scores(self, lane: str) -> dict[int, float]:
        return dict(self.ranked.get(lane, ()))


class QueryModel(Protocol):
    """The embedding model as retrieval uses it: its embedder, and the check that the index's
    vectors are its own (ModelMismatchError otherwise)."""

    embedder: Embedder

    def require_vectors(self) -> None: ...


class Retrieval:
    def __init__(self, store: Store, settings: Settings, model: QueryModel, vectors: VectorIndex, scope: Scope):
        self.store = store
        self.settings = settings
        self.model = model
        self.vectors = vectors
        # Which collections a request means (scope.py). When neither the caller nor the query
        # (in:) chooses, a search drops the collections the scope hides (the bundled guide once
        # it steps aside) from each lane's ranking rather than restricting the lanes to the
        # others: a restricted BM25 lane ranks by runs of passage ids, several times slower.
        self.scope = scope
        self.bm25 = Bm25Lane(store, settings)
        self.vector_lane = VectorLane(store, vectors)
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    @property
    def embedder(self) -> Embedder:
        return self.model.embedder

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
                self._pool.shutdown(wait=False, cancel_futures=True)  # a queued lane would meet a closed index
                self._pool = None

    # -- lanes: ids only -------------------------------------------------------------
    def bm25_ranked(self, query: str, depth: int, collection_ids: list[int] | None = None, *,
                    typing: bool = False) -> list[tuple[int, float]]:
        """(chunk id, bm25) best first. Never raises on odd input: no words, no hits.
        ``typing``: as :meth:`search`'s (a trailing space is how the query text says so)."""
        return self.bm25.ranked(query if typing else query + " ", depth, collection_ids)

    def vector_ranked(
        self, query: str, depth: int, collection_ids: list[int] | None = None, qvec=None,
        filters: Plan | None = None,
    ) -> Ranked:
        """(chunk id, cosine distance) nearest first, within ``filters`` when given.

        A narrow filter (few passages) scans just its passages' vectors; a broad one scans
        all and checks the nearest against the filter, fetching deeper until ``depth`` pass,
        so a filter never empties the lane because the unfiltered top fell outside it."""
        if not query.strip() or depth <= 0:
            return []
        self.model.require_vectors()
        if qvec is None:
            qvec = self.embedder.embed_query(query)
        return self.vector_lane.ranked(qvec, depth, collection_ids, filters)

    def candidates(self, query: str, k: int = 10, collections: Sequence[str] | None = None):
        """(bm25 chunk ids, vector chunk ids), each best first."""
        cids = self.scope.ids(collections)
        bm25 = [c for c, _ in self.bm25_ranked(query, k, cids)]
        vec = [c for c, _ in self.vector_ranked(query, k, cids)]
        return bm25, vec

    # -- hits ---------------------------------------------------------------------------
    def search(
        self,
        query: str | ParsedQuery,
        k: int = 10,
        mode: str = "hybrid",
        collections: Sequence[str] | None = None,
        *,
        vector: bool = True,
        typing: bool = False,
        stop: Callable[[], bool] | None = None,
    ) -> SearchResult:
        """The engine's one search path. ``query`` is the search language
        (:mod:`.query_syntax`), parsed here unless already parsed; the result carries it as
        ``.query``. ``vector=False`` answers from BM25 alone (for a UI whose model is still
        loading). ``typing``: the query is still being typed (search as you type), so its last
        word, when nothing follows it, also matches as a prefix; a finished query (a script's,
        an agent's) matches whole words only. ``stop``: asked while the search runs; once true
        (a newer query replaced this one) the search stops at its next step in SQLite, or its
        vector lane before its embedding or scan (:meth:`_vector_lane`), and raises
        :class:`SearchStopped`. The search runs on a reader borrowed for its length
        (``Store.reading``)."""
        with self.store.reading() as conn:
            if stop is None:
                return self._search(query, k, mode, collections, vector, typing, None)
            try:
                with stop_when(conn, stop):
                    return self._search(query, k, mode, collections, vector, typing, stop)
            except Exception as exc:
                if stop() and is_interrupted(exc):
                    raise SearchStopped() from None
                raise

    def _search(self, query: str | ParsedQuery, k: int, mode: str, collections: Sequence[str] | None,
                vector: bool, typing: bool, stop: Callable[[], bool] | None) -> SearchResult:
        check_mode(mode)
        parsed, filters = self._prepare(query, collections, typing)
        hidden = self._hidden(collections, parsed)
        if not parsed.has_text and not filters.positive:
            if not parsed.has_filters:  # nothing at all (an empty query): no hits
                return SearchResult(query=parsed)
            # filters alone: the newest notes they allow
            rows = facets.browse(self.store.conn, filters.note, 2 * k + len(hidden), filters.excluded())
            keys = chunk_rows.passage_keys(self.store.conn, [r.chunk_id for r in rows])
            first: dict[object, chunk_rows.HitRow] = {}
            for row in rows:  # one file indexed twice is listed once
                if row.chunk_id not in hidden:
                    first.setdefault(keys.get(row.chunk_id, row.chunk_id), row)
            rows = list(first.values())[:k]
            hits = [hit_from_row(r, preview(r.body)) for r in rows]
            return SearchResult(tuple(hits), (), ("no words to rank by: the newest notes the filters allow",),
                                query=parsed)
        lanes = self._gather(parsed, filters, mode, max(k, self.settings.lane_depth), vector, hits=k,
                             hidden=hidden, stop=stop)
        fusion = self.fusion_for(lanes)
        fused = navigation.demote(self.store.conn, fuse(lanes.ids(), fusion.k, fusion.weights))
        exact = exact_match.among(self.store.conn, parsed, fused, lanes.rows, self.settings.exact_notes,
                                  tuple(lanes.ranked))
        bm25_scores = lanes.scores("bm25")
        if exact_match.worth_deeper(parsed, exact, len(lanes.ranked.get("bm25", ())),
                                    max(k, self.settings.lane_depth), self.settings.exact_notes):
            deep = without(self.bm25.ranked(parsed.match_text, exact_match.DEEP + len(hidden), None, filters),
                           hidden, exact_match.DEEP)
            exact, fused, bm25_scores = exact_match.deeper(self.store.conn, parsed, deep, fused, lanes.rows,
                                                           bm25_scores, fusion, tuple(lanes.ranked),
                                                           self.settings.exact_notes)
        if exact.applied:
            fusion = replace(fusion, reasons=(*fusion.reasons, exact.reason()))
        fused = distinct(self.store.conn, exact_match.first(fused, exact), k)
        hits = self._hits(fused, parsed.match_text, bm25_scores, lanes.scores("vector"), lanes)
        match = match_quality.assess(self.signal_sources(), parsed.match_text, lanes.ranked, fusion,
                                     self.settings.model, exact=bool(exact.passages))
        return SearchResult(tuple(hits), tuple(lanes.ranked), tuple(lanes.notes), query=parsed, fusion=fusion, match=match,
                            vector_out=lanes.vector_out)

    def lanes(self, query: str | ParsedQuery, depth: int, mode: str = "hybrid",
              collections: Sequence[str] | None = None, *,
              typing: bool = False) -> tuple[ParsedQuery, dict[str, Ranked]]:
        """(the parsed query, {lane: [(chunk id, score)] best first}): what ``search`` fuses
        for a lane depth of ``depth``, before fusing (evaluations re-fuse them offline)."""
        parsed, filters = self._prepare(query, collections, typing)
        if not parsed.has_text and not filters.positive:
            return parsed, {}
        return parsed, self._gather(parsed, filters, mode, depth, True, signals=False).ranked

    def _prepare(self, query: str | ParsedQuery, collections: Sequence[str] | None,
                 typing: bool) -> tuple[ParsedQuery, Plan]:
        parsed = parse_for(query, typing)
        cids = self.scope.ids(collections)
        parsed = self._check_collections(parsed)
        return parsed, plan(parsed, cids, self.collection_map()).resolve(self.store.conn)

    def _hidden(self, collections: Sequence[str] | None, parsed: ParsedQuery) -> frozenset[int]:
        """The passages a search leaves out when neither ``collections`` nor the query's ``in:``
        chooses (see ``__init__``)."""
        if collections or parsed.values("in"):
            return frozenset()
        ids = self.scope.hidden_ids()
        return frozenset(chunk_rows.ids_in_collections(self.store.conn, ids)) if ids else frozenset()

    def _gather(self, parsed: ParsedQuery, filters: Plan, mode: str, depth: int, vector: bool, *,
                signals: bool = True, hits: int = 0, hidden: frozenset[int] = frozenset(),
                stop: Callable[[], bool] | None = None) -> LaneEvidence:
        """Each lane's ranking at ``depth``, and (``signals``, both lanes, query-aware
        fusion on) what query-aware fusion reads off them. ``hits``: how many hits the search
        shows (what :meth:`_while_waiting` may read ahead)."""
        lanes = LaneEvidence()
        use_vector = vector and parsed.has_text
        pending = None
        if mode == "hybrid" and use_vector and self.vectors_mismatch():
            # another model's vectors (a model switch before or during `reindex`): BM25 answers
            use_vector = vector = False
            lanes.notes.append(VECTORS_OTHER_MODEL)
            lanes.vector_out = VectorOut.OTHER_MODEL
        elif mode == "hybrid" and use_vector and (unread := self.unread_note(parsed.text)):
            # a lane that cannot read the query must not vote: an English model ranks a Chinese
            # query's passages at random and fusion followed it far below BM25 alone
            use_vector = vector = False
            lanes.notes.append(unread)
            lanes.vector_out = (VectorOut.UNREAD_SCRIPT if unread.startswith(VectorOut.UNREAD_SCRIPT.value)
                                else VectorOut.UNREAD_LANGUAGE)
        elif mode == "hybrid" and use_vector:
            # vectors still filling in behind the text: the lane would rank the few embedded
            # passages first, which ranked worse than BM25 alone (research/partial_vectors.py)
            share = vector_rows.embedded_share(self.store.conn)
            if share < self.settings.vector_min_share:
                use_vector = vector = False
                lanes.notes.append(f"{VECTORS_FILLING_IN}: {share:.0%} of the passages "
                                   f"have one (it joins at {self.settings.vector_min_share:.0%})")
                lanes.vector_out = VectorOut.FILLING_IN
        if mode == "hybrid" and use_vector:
            # the vector lane (embedding the query, then the scan) runs on another core while
            # this one ranks BM25; ONNX Runtime, NumPy and SQLite all release the GIL
            self.model.require_vectors()
            pending = self._embedding_pool().submit(self._vector_lane, parsed.text, depth + len(hidden), filters,
                                                    stop)
        if mode in ("hybrid", "bm25"):
            try:
                lanes.ranked["bm25"] = without(self.bm25.ranked(parsed.match_text, depth + len(hidden), None, filters),
                                                hidden, depth)
                if pending is not None and not pending.done():
                    self._while_waiting(lanes, parsed.match_text, signals, hits)
            except BaseException:
                if pending is not None:
                    pending.cancel()
                raise
        if mode in ("hybrid", "vector"):
            if use_vector:
                lanes.ranked["vector"] = without(
                    self._lane_result(pending, stop) if pending is not None
                    else self._vector_lane(parsed.text, depth + len(hidden), filters, stop, own_thread=False),
                    hidden, depth)
            elif lanes.notes:
                pass  # the lane was turned off above, and the note says why
            elif not vector:
                lanes.notes.append("vector lane waiting for the model")
            else:
                lanes.notes.append("vector lane skipped: the query has no words, only filters")
        if signals and self.settings.query_aware_fusion and len(lanes.ranked) >= 2:
            lanes.signals = self.lane_signals(parsed, lanes.ranked["bm25"], lanes.ranked["vector"], lanes.coverage)
        return lanes

    def _vector_lane(self, text: str, depth: int, filters: Plan, stop: Callable[[], bool] | None, *,
                     own_thread: bool = True) -> Ranked:
        """One search's vector lane, on the lane's thread (one at a time: the query's embedding
        takes the other core). A search replaced by a newer query (``stop()`` true) before its
        turn comes embeds nothing and scans nothing: typing over a query never leaves a queue
        of stale embeddings in front of the newest one. Once begun, it stops between the
        embedding and the scan, and its SQL at the next step (``own_thread`` False: it runs on
        the search's thread, whose connection the search's own stop check already watches)."""
        if stop is None:
            return self.vector_ranked(text, depth, None, None, filters)
        if stop():
            raise SearchStopped()
        if not text.strip() or depth <= 0:
            return []
        self.model.require_vectors()
        qvec = self.embedder.embed_query(text)
        if stop():
            raise SearchStopped()
        if not own_thread:
            return self.vector_ranked(text, depth, None, qvec, filters)
        try:
            with stop_when(self.store.conn, stop):
                return self.vector_ranked(text, depth, None, qvec, filters)
        except Exception as exc:
            if stop() and is_interrupted(exc):
                raise SearchStopped() from None
            raise

    @staticmethod
    def _lane_result(pending, stop: Callable[[], bool] | None) -> Ranked:
        """The vector lane's ranking; with ``stop``, :class:`SearchStopped` as soon as a newer
        query replaces this one, its lane dropped from the queue if it has not begun."""
        if stop is None:
            return pending.result()
        from concurrent.futures import wait

        while not wait([pending], timeout=STOP_POLL_SECONDS).done:
            if stop():
                pending.cancel()
                raise SearchStopped()
        return pending.result()

    def unread_note(self, text: str) -> str:
        """Why hybrid search leaves the vector lane out of ``text``: a script or a language the
        model reads poorly (query_script)."""
        model = self.settings.model
        return (query_script.unread_note(model, model_scripts(model), text)
                or query_script.unread_language_note(model, model_languages(model), fts_query.words(text)))

    def _while_waiting(self, lanes: LaneEvidence, match_text: str, signals: bool, hits: int) -> None:
        """BM25 has ranked and the vector lane still runs (on the other core): this thread
        reads now what the search will need of BM25's side anyway, instead of idling: the
        coverage signal of BM25's first passage, and the rows and snippets of its first
        ``hits`` passages (most of the fused top ``hits`` come from there; the rest are read
        after fusion)."""
        bm25 = lanes.ranked["bm25"]
        if not bm25:
            return
        if signals and self.settings.query_aware_fusion:
            lanes.coverage = lane_trust.coverage(self.signal_sources(), match_text, bm25[0][0])
        if hits > 0:
            lanes.rows = chunk_rows.hits_by_ids(self.store.conn, [c for c, _ in bm25[:hits]])
            lanes.snippets = self.bm25.snippets(match_text, list(lanes.rows.values()))

    def fusion_for(self, lanes: LaneEvidence) -> lane_trust.Fusion:
        """The RRF parameters for this query: the settings', adjusted per query by
        :mod:`.lane_trust` when its signals were gathered (``query_aware_fusion``)."""
        s = self.settings
        weights = {"bm25": s.bm25_weight, "vector": s.vector_weight}
        if lanes.signals is None:
            return lane_trust.plain(lanes.ranked, s.rrf_k, weights)
        return lane_trust.decide(lanes.signals, lanes.ranked, s.rrf_k, weights, lane_trust.Thresholds.of(s))

    def signal_sources(self) -> lane_trust.Sources:
        """What query-aware fusion's signals are read from (this thread's connection)."""
        return lane_trust.Sources(self.store.conn, self.planner, self.vectors)

    def lane_signals(self, query: str | ParsedQuery, bm25: Ranked, vector: Ranked,
                     coverage: object = lane_trust.UNKNOWN) -> lane_trust.Signals:
        """What query-aware fusion reads off one query's lanes: the vector lane's text embedded
        (cached: the lane just embedded it), coverage measured on the text as BM25 ran it
        (``ParsedQuery.match_text``; a plain string is both) unless already measured."""
        text, match_text = (query.text, query.match_text) if isinstance(query, ParsedQuery) else (query, query)
        qvec = self.embedder.embed_query(text) if vector else None
        return lane_trust.measure(self.signal_sources(), match_text, bm25, vector, qvec, coverage)

    def collection_map(self) -> dict[str, int]:
        """Collection name -> id."""
        return self.scope.by_name()

    def _check_collections(self, parsed: ParsedQuery) -> ParsedQuery:
        """A copy of ``parsed`` where ``in:NAME`` naming no collection is ignored, with the reason."""
        names = set(self.scope.names())
        given = {negated: parsed.values("in", negated) for negated in (False, True)}
        if all(n in names for values in given.values() for n in values):
            return parsed
        ignored = list(parsed.ignored)
        filters = dict(parsed.filters)
        for negated, values in given.items():
            for name in values:
                if name not in names:
                    ignored.append(Ignored(f"{'-' if negated else ''}in:{name}", f"there is no collection named {name!r}"))
            filters[("in", negated)] = [n for n in values if n in names]
        return replace(parsed, filters=filters, ignored=ignored)

    def evidence(self, result: SearchResult, hit: Hit):
        """Why ``hit`` ranks where it does in ``result`` (see :class:`Evidence`)."""
        return evidence_mod.hit_evidence(self, result, hit)

    def explain(self, query: str | ParsedQuery, collection_id: int, relpath: str, note: str,
                collections: Sequence[str] | None = None, *, vector: bool = True, typing: bool = False):
        """Where one note ranks for ``query`` (see :class:`NoteExplanation`); ``collections``
        and ``typing`` as :meth:`search`'s. Within each lane's depth the note's rank is read off
        the very lanes a search fuses (its scope: the collections chosen, else all but those it
        leaves out), so explain and search agree on every rank; past the depth it is counted
        among the passages of the same collections."""
        parsed, filters = self._prepare(query, collections, typing)
        collection_ids = self.scope.ids(collections)
        if collection_ids is None and not parsed.values("in"):
            scope = self.scope.default_ids()  # the note's rank in the search the user would run
            collection_ids = scope if scope is None or collection_id in scope else None
        explanation = evidence_mod.explain_note(self, parsed, collection_id, relpath, note, collection_ids,
                                                vector=vector)
        if not parsed.has_text and not filters.positive:
            return explanation
        lanes = self._gather(parsed, filters, "hybrid", self.settings.lane_depth, vector, signals=False,
                             hidden=self._hidden(collections, parsed))
        return evidence_mod.with_lane_ranks(self, explanation, lanes.ranked, collection_id, relpath)

    def vectors_mismatch(self) -> bool:
        try:
            self.model.require_vectors()
        except Exception:  # noqa: BLE001 - a model mismatch: no vector evidence
            return True
        return False

    def rrf(self, query: str, k: int = 5, collections: Sequence[str] | None = None) -> list[Hit]:
        """Both lanes fused (the hybrid search's hits)."""
        return list(self.search(query, k, "hybrid", collections))

    def bm25_search(self, query: str, k: int = 5, collections: Sequence[str] | None = None) -> list[Hit]:
        return list(self.search(query, k, "bm25", collections))

    def vector_search(self, query: str, k: int = 5, collections: Sequence[str] | None = None) -> list[Hit]:
        return list(self.search(query, k, "vector", collections))

    def _hits(self, fused: list[Fused], query: str, bm25_scores, distances,
              read: LaneEvidence | None = None) -> list[Hit]:
        """The hits of ``fused``: rows and snippets come from ``read`` (what was read while the
        vector lane ran) where they are there, the rest are read now."""
        if not fused:
            return []
        ids = [f.chunk_id for f in fused]
        known_rows, known_snippets = (read.rows, read.snippets) if read is not None else ({}, {})
        rows = {i: known_rows[i] for i in ids if i in known_rows}
        rows.update(chunk_rows.hits_by_ids(self.store.conn, [i for i in ids if i not in rows]))
        snippets = {i: known_snippets[i] for i in ids if i in known_snippets}
        snippets.update(self.bm25.snippets(query, [rows[i] for i in ids
                                                   if i in bm25_scores and i in rows and i not in snippets]))
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

