"""BM25 planning: an OR-query of quoted phrases run so that frequent words cost little.

See :class:`Bm25Planner`. Its SQL (vocabulary, stemming) lives in ``store.fts``.
"""

from __future__ import annotations

import math
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from ..store import fts

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
# Counting whether an OR-query reaches a cap starts with its most frequent phrases, enough of
# them that their frequencies sum to this many times the cap, when that leaves out at least
# FREQUENT_SAVES phrases (else the whole OR is counted at once)
FREQUENT_MARGIN = 1.5
FREQUENT_SAVES = 4
# A pasted paragraph (this many distinct phrases or more) ranks the rows holding its rare
# phrases, by their full score, without the extra round that would prove it exact.
LONG_QUERY_GROUPS = 8
# A longer text (more distinct phrases than this) is ranked by its strongest phrases only (the
# largest count * idf, as Lucene's MoreLikeThis keeps a text's most distinctive terms): each
# phrase costs a full read of its doclist for bm25()'s idf however little it adds. 20 cost no
# nDCG@10 on CISI's queries (a sentence or two). On paragraph-long queries, 20 chosen from all
# their words keeps most of what no cap gives; 32 keeps a little more but makes a pasted
# paragraph's BM25 lane slower at 100,000 chunks (research/long_queries/README.md,
# docs/benchmarks.md).
MAX_PHRASES = 20
# Caches (each bounded; a request never reads back what its own insertions may evict)
STEM_CACHE_SIZE = 4096  # words -> FTS5 tokens, per connection, least recently used first out
DF_CACHE_SIZE = 50_000  # document frequencies, per connection, dropped whole when full
MAX_CONNECTION_STATES = 32  # connections whose state is kept (the store pools a few)
_PHRASE = re.compile(r'"((?:[^"]|"")+)"(\*?)')


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
class _ConnState:
    """One connection's planning state: its temp tables exist, and its caches."""

    conn: object
    ready: bool = False  # temp tables made
    tokens: OrderedDict = field(default_factory=OrderedDict)  # word -> FTS5 tokens (LRU)
    df: dict = field(default_factory=dict)  # term -> df, ('*', prefix) -> (max, sum)
    key: tuple | None = None  # the index's state the frequencies belong to
    rows: int = 0
    own: int = 0  # changes this connection made to its temp tables


@dataclass
class PlanInfo:
    """How the last BM25 query was run (for benchmarks and tests)."""

    mode: str  # "plain", "split" (rare words first) or "conjunction" (all words common)
    exact: bool  # the ranking is provably the one the plain query gives
    postings: int = 0  # postings of the whole query
    candidates: str = ""
    dropped: int = 0  # distinct phrases left out of a long text (MAX_PHRASES)


def strongest(groups: list[_Group], n: int) -> list[_Group]:
    """The ``n`` phrases that add most to a row's score at most (count * idf), in the query's
    order; a phrase no row holds (its cost 0) comes last, ties go to the earlier phrase."""
    keep = sorted(range(len(groups)), key=lambda i: (groups[i].cost == 0, -groups[i].bound, i))[:n]
    return [groups[i] for i in sorted(keep)]


def idf(rows: int, hits: int) -> float:
    """FTS5's idf of a phrase found in ``hits`` of ``rows`` rows."""
    value = math.log((0.5 + rows - hits) / (0.5 + hits))
    return value if value > 0 else 1e-6


class Bm25Planner:
    """Runs an OR-query of quoted phrases so that frequent words cost little.

    FTS5 scores every row an OR-query matches (~1 us a row here), so one word found in a third
    of 100,000 chunks costs ~30 ms, however rare the query's other words are. FTS5's bm25 is a
    sum over the query's phrases, and a phrase found in ``n`` of ``N`` rows adds at most
    ``(k1+1) * idf(n)`` to any row, however often it occurs (its frequency term saturates).
    Document frequencies come from the counts the writer keeps beside the index
    (store.term_counts: a lookup, where fts5vocab reads each term's whole doclist), looked up by
    the stems that FTS5's own tokenizer makes of the query words (a temporary FTS5 table with
    the same tokenizer).

    * *plain*: a query that matches few rows runs as written: its phrases' frequencies decide
      it when they can, otherwise its rows are counted without scoring, up to a cap. So does
      one whose phrases are all rare, or that has a single phrase.
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

    Before any of these, a text of more than ``MAX_PHRASES`` distinct phrases keeps only its
    strongest (:func:`strongest`): "the plain query" above means the query those phrases make.
    """

    def __init__(self) -> None:
        self._states: dict[int, _ConnState] = {}
        self._states_lock = threading.Lock()
        self.last = PlanInfo("plain", True)

    # -- per-connection state: temp tables, caches --------------------------------------------
    def _state(self, conn) -> _ConnState:
        """This connection's temp tables and caches. Keyed by the connection, not the thread:
        the store hands a finished thread's connection to the next one, temp tables included."""
        with self._states_lock:
            state = self._states.get(id(conn))
            if state is None or state.conn is not conn:
                state = _ConnState(conn)
                self._states[id(conn)] = state
                while len(self._states) > MAX_CONNECTION_STATES:
                    self._states.pop(next(iter(self._states)))
        if not state.ready:
            fts.create_temp_tables(conn)
            state.ready = True
        return state

    def clear_caches(self) -> None:
        """Forget every cached stem and frequency (benchmarks measure cold queries)."""
        with self._states_lock:
            for state in self._states.values():
                state.tokens.clear()
                state.df.clear()
                state.key = None

    def own_changes(self, conn, n: int) -> None:
        """Count writes to temp tables, which must not look like changes of the index."""
        self._state(conn).own += n

    def _tokens(self, conn, state: _ConnState, words: list[str]) -> dict[str, list[str]]:
        """FTS5's own tokens (porter stems) of each word, from a bounded LRU cache.

        The answer is built from what was found, never read back from the cache after new
        entries went in: a long query can evict its own words (a pasted paragraph brings
        hundreds), and reading them back raised KeyError once the cache had filled."""
        cache = state.tokens
        found: dict[str, list[str]] = {}
        todo = []
        for w in dict.fromkeys(words):
            tokens = cache.get(w)
            if tokens is None:
                todo.append(w)
            else:
                cache.move_to_end(w)
                found[w] = tokens
        if todo:
            stems, changes = fts.stem(conn, todo)
            state.own += changes
            for i, w in enumerate(todo):
                found[w] = cache[w] = stems.get(i, [])
            while len(cache) > STEM_CACHE_SIZE:
                cache.popitem(last=False)
        return found

    def stems(self, conn, words: list[str]) -> dict[str, list[str]]:
        """FTS5's own tokens (porter stems) of each word, cached."""
        return self._tokens(conn, self._state(conn), words)

    def _frequencies(self, conn, state: _ConnState, terms: set[str], prefixes: set[str]) -> tuple[int, dict]:
        """(rows in the index, {term: df, ('*', prefix): (max df, sum df)}) for these terms and
        prefixes; cached until the index changes, the cache bounded like the stems'."""
        version, changes = fts.change_key(conn)
        key = (version, changes - state.own)
        if key != state.key:
            state.key = key
            state.df.clear()
            state.rows = fts.row_count(conn)
        cache = state.df
        wanted = list(terms) + [("*", p) for p in prefixes]
        found = {t: cache[t] for t in wanted if t in cache}
        todo = [t for t in terms if t not in found]
        if todo:
            found.update(fts.document_frequencies(conn, todo))
        for p in prefixes:
            if ("*", p) not in found:
                found[("*", p)] = fts.prefix_frequency(conn, p)
        cache.update(found)
        if len(cache) > DF_CACHE_SIZE:  # a cache, not a copy of the vocabulary: start again
            cache.clear()
        return state.rows, found

    # -- planning --------------------------------------------------------------------------
    def groups(self, conn, match: str) -> tuple[int, list[_Group]] | None:
        parts = match.split(" OR ")
        found = {p: _PHRASE.fullmatch(p) for p in parts}
        phrases = {p: m for p, m in found.items() if m is not None}
        if len(phrases) < len(found):
            return None
        state = self._state(conn)
        counts: dict[str, int] = {}
        for p in parts:
            counts[p] = counts.get(p, 0) + 1
        words = {p: phrases[p].group(1).replace('""', '"') for p in counts}
        tokens = self._tokens(conn, state, list(words.values()))
        groups = [
            _Group(p, n, tokens[words[p]], phrases[p].group(2) == "*") for p, n in counts.items()
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
            g.bound = g.count * (BM25_K1 + 1) * idf(rows, g.df)
        return rows, groups

    def ranked(self, conn, match: str, run, count, depth: int, narrowed: bool = False) -> list[tuple[int, float]]:
        """The plain query's ranking, best first, at most ``depth`` rows.

        ``run(expression) -> [(rowid, bm25)]`` runs a MATCH expression ranked and limited;
        ``count(expression, cap)`` counts its rows, stopping at ``cap`` (no scoring: cheap).
        ``narrowed``: ``run`` and ``count`` see only some rows (a filter), so a phrase's
        frequency in the whole index is not a lower bound of what ``count`` finds.
        """
        # few rows: scoring them is cheap (and a long text is slower to plan than to run)
        cap = PLAN_MIN_POSTINGS * (3 if match.count(" OR ") + 1 >= LONG_QUERY_GROUPS else 1)
        planned = self.groups(conn, match) if " OR " in match else None  # one phrase: as written
        if planned is None or len(planned[1]) < 2:
            self.last = PlanInfo("plain", True)
            return run(match)
        rows, groups = planned
        dropped = 0
        if len(groups) > MAX_PHRASES:
            groups, dropped = strongest(groups, MAX_PHRASES), len(groups) - MAX_PHRASES
            match = self._or(groups)
        ranked = self._planned(match, run, count, depth, narrowed, rows, groups, cap)
        self.last.dropped = dropped
        return ranked

    def as_ranked(self, conn, match: str) -> str:
        """The OR-query :meth:`ranked` ranks ``match`` by: ``match`` itself, or for a text of
        more than ``MAX_PHRASES`` distinct phrases, its strongest ones (what an explanation of
        a rank must score, so that its rank is the lane's)."""
        planned = self.groups(conn, match) if " OR " in match else None
        if planned is None or len(planned[1]) <= MAX_PHRASES:
            return match
        return self._or(strongest(planned[1], MAX_PHRASES))

    def _planned(self, match, run, count, depth, narrowed, rows, groups, cap) -> list[tuple[int, float]]:
        def counted(part: list[_Group] | None) -> int:
            return count(match if part is None else " OR ".join(g.text for g in part), cap)

        if self._fewer_than(groups, cap, narrowed, counted):
            self.last = PlanInfo("plain", True)
            return run(match)
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
            if kth <= outside and not long_query:
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
    def _fewer_than(groups: list[_Group], cap: int, narrowed: bool, counted) -> bool:
        """Whether the OR of these phrases matches fewer than ``cap`` rows. The document
        frequencies answer it when they can (rows of one phrase are a lower bound, their sum an
        upper bound); otherwise ``counted(part)`` counts the OR of ``part`` (None: all phrases)
        up to the cap, which reads the doclists once more. The most frequent few phrases are
        counted first when they may reach the cap alone: their rows are some of the OR's, and
        an OR of 2-4 phrases counts 2-3x faster than one of 20 (a long text's)."""
        if not narrowed and max(g.df for g in groups) >= cap:
            return False
        # cost bounds a phrase's rows, except a multi-token phrase whose last token is a prefix
        if all(not (g.prefix and len(g.tokens) > 1) for g in groups) and sum(g.cost for g in groups) < cap:
            return True
        frequent: list[_Group] = []
        for g in sorted(groups, key=lambda g: -g.df):
            if sum(f.df for f in frequent) >= cap * FREQUENT_MARGIN:
                break
            frequent.append(g)
        if len(groups) - len(frequent) >= FREQUENT_SAVES and counted(frequent) >= cap:
            return False
        return counted(None) < cap

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
