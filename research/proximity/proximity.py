"""Words side by side (measured, not kept): a term-proximity score folded
into the BM25 lane's ranking.

BM25 scores each query word apart, so a passage holding three of the words scattered can
outrank the note that says them together ("The vendor API may rate limit us" for "vendor api
rate limit"). The lane's first ``DEPTH`` passages are re-scored with the proximity accumulator
of Büttcher, Clarke and Lushman (SIGIR 2006): walking a passage's query-word occurrences in
order, each pair of neighbouring occurrences of two different query words ``d`` tokens apart
adds ``idf(other) / d**2`` to each word's accumulator, and a word's accumulator counts like a
BM25 term frequency, ``min(1, idf) * acc * (k1 + 1) / (acc + k1)``. The sum, times
a weight, is added to the passage's BM25 score (FTS5's scores are
negative, best first, so it is subtracted). Title, heading and body are walked apart (no pair
spans two columns). Queries with fewer than two distinct words, or holding CJK (their pairs
already carry the order), are left as they are.

Positions: the passages' text is split into words as FTS5's unicode61 tokenizer splits it
(letters and digits; diacritics folded for the comparison); a word that could stem to a query
word's stem is stemmed by the index's own tokenizer (``Bm25Planner.stems``, cached), so a
passage word counts exactly when BM25 would have matched it.

What it does on every evaluation set, and why the product does not use it: docs/evaluation.md
("Tried and dropped"); ``measure.py`` here measures it.
"""

from __future__ import annotations

import re
import unicodedata

from pms_tui.core.search.bm25_planner import BM25_K1, Bm25Planner, idf

DEPTH = 50  # the BM25 lane's first passages that are re-scored (a lane depth's worth)

Ranked = list[tuple[int, float]]
_TOKEN = re.compile(r"[^\W_]+")


def texts_by_ids(conn, ids: list[int]) -> dict[int, tuple[str, str, str]]:
    """{chunk id: (title, heading, body)} as the full-text index holds them."""
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    return {r[0]: (r[1] or "", r[2] or "", r[3] or "") for r in conn.execute(
        f"SELECT id, title, heading, body FROM chunks WHERE id IN ({marks})", list(ids))}


def score(occurrences: list[tuple[int, int, int]], weights: list[float]) -> float:
    """The proximity score of one passage: ``occurrences`` are (column, offset, query word
    index) in order, ``weights`` each query word's idf."""
    acc = [0.0] * len(weights)
    prev = None
    for col, offset, g in occurrences:
        if prev is not None and prev[0] == col and prev[2] != g and offset > prev[1]:
            d2 = float(offset - prev[1]) ** 2
            acc[g] += weights[prev[2]] / d2
            acc[prev[2]] += weights[g] / d2
        prev = (col, offset, g)
    return sum(min(1.0, w) * a * (BM25_K1 + 1) / (a + BM25_K1) for w, a in zip(weights, acc) if a > 0)


_COMBINING = re.compile(r"[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+")


def fold(text: str) -> str:
    """Lower case, diacritics dropped (unicode61's ``remove_diacritics``, near enough for the
    first comparison: the index's tokenizer has the last word)."""
    text = text.lower()
    if text.isascii():
        return text
    return _COMBINING.sub("", unicodedata.normalize("NFKD", text))


class _Terms:
    """The query's distinct words as index tokens: exact stems and typed prefixes, each with
    its idf, and which passage words match them."""

    def __init__(self, exact: dict[str, int], prefixes: dict[str, int], weights: list[float]):
        self.exact, self.prefixes, self.weights = exact, prefixes, weights
        # a passage word can stem to a stem only if it starts with the stem less its last
        # letter (Porter rewrites only endings: happy -> happi, hoping -> hope)
        self.starts = tuple({(s[:-1] if len(s) >= 4 else s) for s in exact} | set(prefixes))

    def index(self, token: str) -> int | None:
        g = self.exact.get(token)
        if g is None:
            g = next((i for p, i in self.prefixes.items() if token.startswith(p)), None)
        return g


def _terms(conn, planner: Bm25Planner, match: str) -> _Terms | None:
    """The query's words (``match``: the lane's OR-query of quoted words), or None when it has
    fewer than two distinct words the index holds, or is not such a query (CJK)."""
    planned = planner.groups(conn, match)
    if planned is None:
        return None
    rows, groups = planned
    exact: dict[str, int] = {}
    prefixes: dict[str, int] = {}
    weights: list[float] = []
    for g in groups:
        if len(g.tokens) != 1 or (g.df == 0 and not g.prefix):
            continue  # a word the index lacks, or one that makes several tokens
        token = g.tokens[0]
        if token in exact or token in prefixes:
            continue
        (prefixes if g.prefix else exact)[token] = len(weights)
        weights.append(idf(rows, max(g.df, 1)))
    if len(weights) < 2:
        return None
    return _Terms(exact, prefixes, weights)


def occurrences(conn, planner: Bm25Planner, match: str | None, chunk_ids: list[int]
                ) -> tuple[_Terms | None, dict[int, list[tuple[int, int, int]]]]:
    """(the query's words, {chunk id: [(column, offset, query word index)] in order}) for the
    query ``match`` (the lane's OR-query) in these passages; (None, {}) when it has fewer than
    two distinct words the index holds."""
    terms = _terms(conn, planner, match) if match else None
    if terms is None:
        return None, {}
    texts = texts_by_ids(conn, chunk_ids)
    tokens = {(c, col): _TOKEN.findall(fold(text)) for c, columns in texts.items() for col, text in enumerate(columns)}
    # the distinct words that may match, stemmed by the index's tokenizer: word -> query word
    distinct = set().union(*tokens.values()) if tokens else set()
    maybe = sorted(w for w in distinct if w.startswith(terms.starts))
    stems = planner.stems(conn, maybe)
    matching = {w: g for w in maybe if len(stems.get(w) or ()) == 1 and (g := terms.index(stems[w][0])) is not None}
    found: dict[int, list[tuple[int, int, int]]] = {}
    for (chunk_id, col), toks in tokens.items():
        found.setdefault(chunk_id, []).extend((col, i, matching[w]) for i, w in enumerate(toks) if w in matching)
    for occ in found.values():
        occ.sort()
    return terms, found


def rerank(conn, planner: Bm25Planner, match: str | None, ranked: Ranked, weight: float,
           depth: int = DEPTH) -> Ranked:
    """``ranked`` (chunk id, bm25) best first, its first ``depth`` passages re-scored with the
    proximity of the query's words (``match``: the lane's OR-query) and re-ordered. Re-scoring
    only lowers (improves) scores, so the passages after ``depth`` stay behind them."""
    if weight <= 0 or not match or len(ranked) < 2:
        return ranked
    head = ranked[:depth]
    terms, found = occurrences(conn, planner, match, [c for c, _ in head])
    if terms is None:
        return ranked
    rescored = [(c, bm25 - weight * score(found.get(c, []), terms.weights)) for c, bm25 in head]
    rescored.sort(key=lambda item: (item[1], item[0]))
    return rescored + ranked[depth:]
