"""Hybrid retrieval: an FTS5 BM25 lane and a vector lane, fused by reciprocal rank fusion.

Rank first, fetch last: each lane returns only chunk ids (and its score) in rank order, the
lanes are fused, and text and metadata are read for the final top k alone.
"""

from __future__ import annotations

import math
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from . import fts_query
from . import store as st
from .results import HIT_COLUMNS, HIT_JOINS, SNIPPET_CLOSE, SNIPPET_OPEN, Hit, hit_from_row

if TYPE_CHECKING:
    from .kb import KnowledgeBase

MODES = ("hybrid", "bm25", "vector")
SNIPPET_TOKENS = 24

# BM25 planning (see Bm25Planner). FTS5 scores every row an OR-query matches, about 1 us a
# row here, so a query holding a word found in a third of 100,000 chunks costs ~30 ms
# however rare its other words are.
BM25_K1 = 1.2  # FTS5's bm25 constants; each phrase adds idf * f*(k1+1)/(f + k1*(1-b+b*D/avgD))
PLAN_MIN_POSTINGS = 6_000  # a query matching fewer rows than this runs as written
PLAN_BUDGET = 6_000  # postings the candidate expression may hold
PLAN_MAX_BUDGET = 30_000  # ... when more are needed to prove the ranking exact
# Approximations are used only for queries this costly (postings of all their phrases): below
# it, every query is answered exactly.
PLAN_APPROX_POSTINGS = 40_000
# A pasted paragraph (this many distinct phrases or more) ranks the rows holding its rare
# phrases, by their full score, without the extra round that would prove it exact.
LONG_QUERY_GROUPS = 8
_PHRASE = re.compile(r'"((?:[^"]|"")+)"(\*?)')


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


@dataclass
class _Group:
    """One distinct phrase of an OR-query and how often the query repeats it."""

    text: str  # the MATCH fragment: '"word"' or '"word"*'
    count: int
    tokens: list[str]
    prefix: bool
    df: int = 0  # rows holding it (a lower bound for prefixes and multi-token phrases)
    cost: int = 0  # postings it brings (an upper bound)
    bound: float = 0.0  # the most all its occurrences can add to one row's score


@dataclass
class PlanInfo:
    """How the last BM25 query was run (for benchmarks and tests)."""

    mode: str  # "plain", "split" (rare words first) or "conjunction" (all words common)
    exact: bool  # the ranking is provably the one the plain query gives
    postings: int = 0  # postings of the whole query
    candidates: str = ""


def _idf(rows: int, hits: int) -> float:
    idf = math.log((0.5 + rows - hits) / (0.5 + hits))
    return idf if idf > 0 else 1e-6


class Bm25Planner:
    """Runs an OR-query of quoted phrases so that frequent words cost little.

    FTS5 scores every row an OR-query matches (~1 us a row here), so one word found in a third
    of 100,000 chunks costs ~30 ms, however rare the query's other words are. FTS5's bm25 is a
    sum over the query's phrases, and a phrase found in ``n`` of ``N`` rows adds at most
    ``(k1+1) * idf(n)`` to any row, however often it occurs (its frequency term saturates).
    Document frequencies come from an fts5vocab table, looked up by the stems that FTS5's own
    tokenizer makes of the query words (a temporary FTS5 table with the same tokenizer).

    * *plain*: a query that matches few rows (counted without scoring, up to a cap) runs as
      written. So does one whose phrases are all rare, or that has a single phrase.
    * *split*: the rare phrases E (their postings within a budget) find the candidates. ``E``
      alone ranks them (exact scores for rows holding no common phrase C), ``(E) AND (C)``
      scores the rows that also hold a common phrase with every phrase. Merged, that is the
      exact ranking of every row holding an E phrase. A row holding only C phrases scores at
      most ``sum(bound(C))``; if the k-th score found is not above that, the strongest C
      phrases move to E and the query runs once more, which makes the result provably equal
      to the plain query's (``PlanInfo.exact``). A long pasted text whose plain query would be
      costly skips that second round: it ranks the rows holding its rare words by their full
      score (an approximation; its agreement with the plain query is in docs/benchmarks.md).
    * *conjunction*: a costly query whose phrases are all common ranks the rows holding its
      rarest few phrases together (an AND sized to the budget), by their full score. Also an
      approximation (a row missing one of those words is not considered).
    """

    def __init__(self) -> None:
        self._local = threading.local()
        self.last = PlanInfo("plain", True)
        self.long_query_extend = False  # True: long queries too take the proving round

    # -- per-connection state: temp tables, caches --------------------------------------------
    def _state(self, conn):
        state = getattr(self._local, "state", None)
        if state is None or state["conn"] is not conn:
            conn.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS temp.pms_vocab USING fts5vocab(main, chunks_fts, 'row')"
            )
            conn.execute(
                f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.pms_qtok USING fts5(t, tokenize='{st.FTS_TOKENIZE}')"
            )
            conn.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS temp.pms_qtok_v USING fts5vocab(temp, pms_qtok, 'instance')"
            )
            conn.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS temp.pms_snip USING fts5("
                f"title, heading, body, tokenize='{st.FTS_TOKENIZE}')"
            )
            state = {"conn": conn, "tokens": OrderedDict(), "df": {}, "key": None, "rows": 0, "own": 0}
            self._local.state = state
        return state

    def clear_caches(self) -> None:
        """Forget this thread's cached stems and frequencies (benchmarks measure cold queries)."""
        state = getattr(self._local, "state", None)
        if state is not None:
            state["tokens"].clear()
            state["df"].clear()
            state["key"] = None

    def own_changes(self, conn, n: int) -> None:
        """Count writes to temp tables, which must not look like changes of the index."""
        self._state(conn)["own"] += n

    def _tokens(self, conn, state, words: list[str]) -> dict[str, list[str]]:
        """FTS5's own tokens (porter stems) of each word, cached."""
        cache: OrderedDict = state["tokens"]
        todo = [w for w in dict.fromkeys(words) if w not in cache]
        if todo:
            before = conn.total_changes
            conn.execute("DELETE FROM temp.pms_qtok")
            conn.executemany("INSERT INTO temp.pms_qtok(rowid, t) VALUES (?, ?)", list(enumerate(todo)))
            found: dict[int, list[str]] = {}
            for doc, term in conn.execute("SELECT doc, term FROM temp.pms_qtok_v ORDER BY doc, offset"):
                found.setdefault(doc, []).append(term)
            conn.execute("DELETE FROM temp.pms_qtok")
            state["own"] += conn.total_changes - before
            for i, w in enumerate(todo):
                cache[w] = found.get(i, [])
            while len(cache) > 4096:
                cache.popitem(last=False)
        return {w: cache[w] for w in words}

    def _frequencies(self, conn, state, terms: set[str], prefixes: set[str]) -> tuple[int, dict]:
        """(rows in the index, {term: df, ('*', prefix): (max df, sum df)}), cached until the
        index changes."""
        key = (conn.execute("PRAGMA data_version").fetchone()[0], conn.total_changes - state["own"])
        if key != state["key"]:
            state["key"], state["df"] = key, {}
            state["rows"] = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        df = state["df"]
        todo = [t for t in terms if t not in df]
        for start in range(0, len(todo), 200):
            part = todo[start : start + 200]
            df.update(dict.fromkeys(part, 0))
            marks = ",".join("?" * len(part))
            df.update(conn.execute(f"SELECT term, doc FROM temp.pms_vocab WHERE term IN ({marks})", part))
        for p in prefixes:
            if ("*", p) not in df:
                upper = p[:-1] + chr(ord(p[-1]) + 1)
                top, total = conn.execute(
                    "SELECT max(doc), sum(doc) FROM temp.pms_vocab WHERE term >= ? AND term < ?", (p, upper)
                ).fetchone()
                df[("*", p)] = (top or 0, total or 0)
        return state["rows"], df

    # -- planning --------------------------------------------------------------------------
    def groups(self, conn, match: str) -> tuple[int, list[_Group]] | None:
        parts = match.split(" OR ")
        found = [_PHRASE.fullmatch(p) for p in parts]
        if not all(found):
            return None
        state = self._state(conn)
        counts: dict[str, int] = {}
        for p in parts:
            counts[p] = counts.get(p, 0) + 1
        words = {p: _PHRASE.fullmatch(p).group(1).replace('""', '"') for p in counts}
        tokens = self._tokens(conn, state, list(words.values()))
        groups = [
            _Group(p, n, tokens[words[p]], _PHRASE.fullmatch(p).group(2) == "*") for p, n in counts.items()
        ]
        terms = {t for g in groups for t in g.tokens}
        prefixes = {g.tokens[-1] for g in groups if g.prefix and len(g.tokens) == 1}
        rows, df = self._frequencies(conn, state, terms, prefixes)
        for g in groups:
            if not g.tokens:  # no token: matches nothing
                g.df = g.cost = 0
                g.bound = 0.0
                continue
            if len(g.tokens) == 1 and g.prefix:
                g.df, g.cost = df[("*", g.tokens[0])]
            elif len(g.tokens) == 1:
                g.df = g.cost = df[g.tokens[0]]
            else:  # a phrase: rows hold all its tokens, in order; its own df is unknown
                g.df = 0
                g.cost = min(df[t] for t in g.tokens)
                if g.prefix:  # the last token is a prefix: its cost is not known here
                    g.cost = max(g.cost, 1)
            g.bound = g.count * (BM25_K1 + 1) * _idf(rows, g.df)
        return rows, groups

    def ranked(self, conn, match: str, run, count, depth: int) -> list[tuple[int, float]]:
        """The plain query's ranking, best first, at most ``depth`` rows.

        ``run(expression) -> [(rowid, bm25)]`` runs a MATCH expression ranked and limited;
        ``count(expression, cap)`` counts its rows, stopping at ``cap`` (no scoring: cheap).
        """
        # few rows: scoring them is cheap (and a long text is slower to plan than to run)
        cap = PLAN_MIN_POSTINGS * (3 if match.count(" OR ") + 1 >= LONG_QUERY_GROUPS else 1)
        if count(match, cap) < cap:
            self.last = PlanInfo("plain", True)
            return run(match)
        planned = self.groups(conn, match)
        if planned is None or len(planned[1]) < 2:
            self.last = PlanInfo("plain", True)
            return run(match)
        rows, groups = planned
        postings = sum(g.count * g.cost for g in groups)
        costly = postings > PLAN_APPROX_POSTINGS
        order = sorted(groups, key=lambda g: (-g.bound / g.count, g.cost, g.text))
        rare: list[_Group] = []
        spent = 0
        for g in order:
            if g.bound / g.count < 1e-3:  # in more than half the rows: never a candidate source
                continue
            if spent + g.cost <= PLAN_BUDGET:
                rare.append(g)
                spent += g.cost
        if rare and len(rare) == len(groups):
            self.last = PlanInfo("plain", True, postings)
            return run(match)
        if rare:
            ranked, kth = self._split(run, groups, rare, depth)
            outside = sum(g.bound for g in groups if g not in rare)
            long_query = len(groups) >= LONG_QUERY_GROUPS and costly
            if kth <= outside and not costly:  # a second round would cost more than the plain query
                self.last = PlanInfo("plain", True, postings)
                return run(match)
            if kth <= outside and (self.long_query_extend or not long_query):
                # Not provable yet. The k-th score found is a lower bound of the true one: move
                # the strongest common phrases into the candidate side until what stays out
                # scores less than it, then rank once more (exact by construction).
                common = [g for g in order if g not in rare]
                spent = sum(g.cost for g in rare)
                before = len(rare)
                while common and outside >= kth and spent + common[0].cost <= PLAN_MAX_BUDGET:
                    g = common.pop(0)
                    rare.append(g)
                    outside -= g.bound
                    spent += g.cost
                if len(rare) == len(groups):
                    self.last = PlanInfo("plain", True, postings)
                    return run(match)
                if len(rare) > before:
                    ranked, kth = self._split(run, groups, rare, depth)
                outside = sum(g.bound for g in groups if g not in rare)
            exact = kth > outside * (1 + 1e-9) + 1e-12
            if not exact and not long_query:  # only a costly long text may be approximated
                self.last = PlanInfo("plain", True, postings)
                return run(match)
            self.last = PlanInfo("split", exact, postings, self._or(rare))
            return ranked
        if not costly:
            self.last = PlanInfo("plain", True, postings)
            return run(match)
        # every phrase is common: candidates are rows holding the rarest few together
        chosen: list[_Group] = []
        estimate = float(rows)
        for g in order:
            chosen.append(g)
            estimate *= g.cost / max(rows, 1)
            if estimate <= PLAN_BUDGET and len(chosen) >= 2:
                break
        cand = " AND ".join(g.text for g in chosen)
        extra = [(g.text, g.count - 1) for g in chosen if g.count > 1]
        extra += [(g.text, g.count) for g in groups if g not in chosen]
        rest = " OR ".join(" OR ".join([t] * n) for t, n in extra if n)
        self.last = PlanInfo("conjunction", False, postings, cand)
        return self._merge(run, cand, rest, depth)[0]

    @staticmethod
    def _or(groups: list[_Group]) -> str:
        return " OR ".join(" OR ".join([g.text] * g.count) for g in groups)

    def _split(self, run, groups, rare, depth):
        common = [g for g in groups if g not in rare]
        return self._merge(run, self._or(rare), self._or(common), depth)

    @staticmethod
    def _merge(run, cand: str, rest: str, depth: int) -> tuple[list[tuple[int, float]], float]:
        """Rows of ``cand`` ranked by their full score: ``cand`` alone scores the rows that hold
        nothing of ``rest``; ``(cand) AND (rest)`` scores the others with every phrase."""
        full = dict(run(cand))
        if rest:
            full.update(run(f"({cand}) AND ({rest})"))
        ranked = sorted(full.items(), key=lambda item: (item[1], item[0]))[:depth]
        kth = -ranked[-1][1] if len(ranked) >= depth else 0.0
        return ranked, kth


class Retrieval:
    def __init__(self, kb: "KnowledgeBase"):
        self.kb = kb
        self.planner = Bm25Planner()
        self.plan_bm25 = True  # False: every query runs as written (for comparisons)
        self._pool = None
        self._pool_lock = threading.Lock()

    def _embedding_pool(self):
        with self._pool_lock:
            if self._pool is None:
                from concurrent.futures import ThreadPoolExecutor

                self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pms-vector-lane")
            return self._pool

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
        where = ""
        params: list = []
        if collection_ids:
            marks = ",".join("?" * len(collection_ids))
            where = (
                f" AND rowid IN (SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id"
                f" WHERE d.collection_id IN ({marks}))"
            )
            params = list(collection_ids)
        sql = f"SELECT rowid, {score} AS s FROM chunks_fts WHERE chunks_fts MATCH ?{where} ORDER BY s LIMIT ?"
        conn = self.kb.store.conn

        def run(expression: str) -> list[tuple[int, float]]:
            return [(int(r[0]), float(r[1])) for r in conn.execute(sql, [expression, *params, depth])]

        def count(expression: str, cap: int) -> int:
            return conn.execute(
                f"SELECT count(*) FROM (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?{where} LIMIT ?)",
                [expression, *params, cap],
            ).fetchone()[0]

        try:
            if self.plan_bm25:
                return self.planner.ranked(conn, match, run, count, depth)
            return run(match)
        except st.OperationalError as exc:
            if "fts5" in str(exc) or "syntax" in str(exc):
                return []
            raise

    def vector_ranked(
        self, query: str, depth: int, collection_ids: list[int] | None = None, qvec=None
    ) -> list[tuple[int, float]]:
        """(chunk id, cosine distance) nearest first; over-fetches when filtering."""
        if not query.strip() or depth <= 0:
            return []
        self.kb.require_vectors()
        if qvec is None:
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
        pending = None
        if mode == "hybrid" and vector and query.strip():
            # the vector lane (embedding the query, then the scan) runs on another core while
            # this one ranks BM25; ONNX Runtime, NumPy and SQLite all release the GIL
            self.kb.require_vectors()
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
            r[0]: r for r in conn.execute(f"SELECT {HIT_COLUMNS} {HIT_JOINS} WHERE c.id IN ({marks})", ids)
        }
        snippets = self._snippets(query, [rows[i] for i in ids if i in bm25_scores and i in rows])
        words = fts_query.content_words(query)
        hits = []
        for f in fused:
            row = rows.get(f.chunk_id)
            if row is None:  # deleted by a sync between ranking and fetching
                continue
            hits.append(hit_from_row(
                row,
                snippets.get(f.chunk_id) or mark_words(row[5], words),
                score=round(f.score, 6),
                rrf=round(f.rrf, 8),
                bm25_rank=f.ranks.get("bm25"),
                vector_rank=f.ranks.get("vector"),
                bm25=bm25_scores.get(f.chunk_id),
                distance=distances.get(f.chunk_id),
            ))
        return hits

    def _snippets(self, query: str, rows: list) -> dict[int, str]:
        """FTS5 snippets of the BM25 hits among ``rows`` (id, ..., title, heading, body, ...).

        Run on a temporary FTS5 table holding just these rows, with the same tokenizer: the
        snippet is the same as on the big index (it depends only on the row and the query),
        but a MATCH there costs microseconds instead of re-seeking every query word in the
        whole index (20-40 ms for a common-word query at 100,000 chunks).
        """
        match = fts_query.build_match(query)
        if not rows or match is None:
            return {}
        conn = self.kb.store.conn
        self.planner._state(conn)
        before = conn.total_changes
        try:
            conn.executemany(
                "INSERT INTO temp.pms_snip(rowid, title, heading, body) VALUES (?, ?, ?, ?)",
                [(r[0], r[3], r[4], r[5]) for r in rows],
            )
            found = conn.execute(
                f"SELECT rowid, snippet(pms_snip, 2, ?, ?, '…', {SNIPPET_TOKENS}) FROM temp.pms_snip "
                "WHERE pms_snip MATCH ?",
                [SNIPPET_OPEN, SNIPPET_CLOSE, match],
            ).fetchall()
        except st.OperationalError:
            found = []
        finally:
            conn.execute("DELETE FROM temp.pms_snip")
            self.planner.own_changes(conn, conn.total_changes - before)
        return {r[0]: " ".join(r[1].split()) for r in found if SNIPPET_OPEN in r[1]}
