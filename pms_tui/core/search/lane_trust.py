"""Query-aware RRF: how far each lane is trusted for one query, read off the query's own results.

Plain RRF gives a lane's first place the same weight whether the lane has found the note or
has only matched the query's common words. Two signals, measured on each query's results,
tell these apart:

* ``coverage``: the share of the query's word weight (the idf of each phrase BM25 ran) that
  BM25's first passage holds. 1.0 means it holds every word.
* ``gap``: how much less similar to the query (cosine) BM25's first note is than the vector
  lane's first passage, the note taken at its most similar passage. 0 means the meaning lane
  ranks BM25's first note as high as anything.

Two rules follow from them (``decide``), both kept within rank fusion; their four numbers are
settings (``Settings.confident_coverage`` and the three after it, ``core/config.py``):

* BM25 *holds the query* (coverage >= ``confident_coverage``): its ranks count with
  ``confident_k`` instead of ``rrf_k``, so its first places weigh more (names, identifiers,
  commands, distinctive words).
* the meaning lane *contradicts* BM25 (gap > ``contradiction_gap``, and BM25 does not hold
  the query): BM25's weight becomes ``contradicted_weight`` of itself. BM25 found some of
  the query's words, but in a note far from what the query means (a paraphrase).

How they were chosen is in ``research/README.md``; ``docs/evaluation.md`` gives their figures.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import cast

from ..config import Settings
from ..store import facets, language
from . import query as fts_query
from .bm25_planner import Bm25Planner, idf
from .vector_index import VectorIndex


@dataclass(frozen=True)
class Signals:
    coverage: float | None  # None: BM25 found nothing
    gap: float | None  # None: no vector lane, or BM25's first note has no vector yet


@dataclass(frozen=True)
class Sources:
    """What the two signals are read from: the index (which passages hold a phrase; a note's
    vectors), BM25's planner (the phrases BM25 ran and their document frequencies) and the
    vector mirror (a note's best similarity to the query)."""

    conn: sqlite3.Connection
    planner: Bm25Planner
    vectors: VectorIndex


@dataclass(frozen=True)
class Thresholds:
    """The rule's four numbers; the product's come from its settings (``of``)."""

    coverage: float
    confident_k: int
    gap: float
    contradicted_weight: float

    @classmethod
    def of(cls, settings: Settings) -> "Thresholds":
        return cls(settings.confident_coverage, settings.confident_k, settings.contradiction_gap,
                   settings.contradicted_weight)


@dataclass(frozen=True)
class Fusion:
    """The RRF parameters one query was fused with, and why (shown as evidence)."""

    k: dict[str, int]
    weights: dict[str, float]
    signals: Signals = Signals(None, None)
    reasons: tuple[str, ...] = field(default=())

    def to_json(self) -> dict:
        return {"k": dict(self.k), "weights": dict(self.weights), "coverage": self.signals.coverage,
                "gap": self.signals.gap, "reasons": list(self.reasons)}


def plain(lanes, rrf_k: int, weights: dict[str, float]) -> Fusion:
    return Fusion({lane: rrf_k for lane in lanes}, {lane: weights.get(lane, 1.0) for lane in lanes})


def decide(signals: Signals, lanes, rrf_k: int, weights: dict[str, float], thresholds: Thresholds) -> Fusion:
    """The per-lane k and weights for one query (see the module's rules)."""
    base = plain(lanes, rrf_k, weights)
    if "bm25" not in lanes or "vector" not in lanes or signals.coverage is None:
        return Fusion(base.k, base.weights, signals)
    k, w, reasons = dict(base.k), dict(base.weights), []
    if signals.coverage >= thresholds.coverage:
        k["bm25"] = min(rrf_k, thresholds.confident_k)
        reasons.append(f"BM25's first passage holds {signals.coverage:.0%} of the query's words: "
                       f"its ranks count with k={k['bm25']}")
    elif signals.gap is not None and signals.gap > thresholds.gap:
        w["bm25"] = w["bm25"] * thresholds.contradicted_weight
        reasons.append(f"BM25's first note is far from the query's meaning (cosine {signals.gap:.2f} below "
                       f"the vector lane's first): BM25 weighs {w['bm25']:g}")
    return Fusion(k, w, signals, tuple(reasons))


UNKNOWN = object()  # a signal not measured yet (None is a measured answer: "cannot tell")


def measure(sources: Sources, text: str, bm25: list[tuple[int, float]], vector: list[tuple[int, float]],
            qvec, known_coverage: object = UNKNOWN) -> Signals:
    """The two signals for one query, from its lanes (a few FTS5 lookups and a small dot
    product); ``known_coverage``: BM25's first passage's coverage, when already measured."""
    if not bm25:
        return Signals(None, None)
    held = coverage(sources, text, bm25[0][0]) if known_coverage is UNKNOWN else cast("float | None", known_coverage)
    return Signals(held, gap(sources, bm25[0][0], vector, qvec))


def coverage(sources: Sources, text: str, chunk_id: int) -> float | None:
    """The idf-weighted share of the query's phrases (as BM25 ran them) that the chunk holds."""
    shares = coverages(sources, text, [chunk_id])
    return None if shares is None else shares[chunk_id]


def coverages(sources: Sources, text: str, chunk_ids: list[int]) -> dict[int, float] | None:
    """:func:`coverage` of each of ``chunk_ids`` (one FTS5 lookup per phrase for them all);
    None when the query has no phrase BM25 can run. A word and its stems in the index's other
    languages are one word here, held when the passage holds any of them, weighed by the most
    frequent (else an English passage holding ``prettier`` would hold a third of it, in an
    index with German and Spanish notes, for want of the German and Spanish stems no English
    note has)."""
    held = _holding(sources, text, chunk_ids)
    if held is None:
        return None
    weights, holding, total, _ = held
    return {chunk: round(sum(w for unit, w in weights.items() if chunk in holding[unit]) / total, 6)
            for chunk in chunk_ids}


def coverage_together(sources: Sources, text: str, chunk_ids: list[int]) -> float | None:
    """The idf-weighted share of the query's phrases that any of ``chunk_ids`` holds (the
    passages of one page of a document, each holding some of the words)."""
    held = _holding(sources, text, chunk_ids)
    if held is None:
        return None
    weights, holding, total, _ = held
    return round(sum(w for unit, w in weights.items() if holding[unit]) / total, 6)


def absent(sources: Sources, text: str) -> float | None:
    """The idf-weighted share of the query's phrases that no passage of the index holds in any
    form (its words and their stems none of them found: a name the library has never met);
    None when the query has no phrase BM25 can run."""
    held = _holding(sources, text, [])
    if held is None:
        return None
    weights, _, total, rows = held
    never = idf(rows, 0) * (1 - 1e-9)  # the weight of a phrase found in no row
    return round(sum(w for w in weights.values() if w >= never) / total, 6)


def _holding(sources: Sources, text: str,
             chunk_ids: list[int]) -> tuple[dict[str, float], dict[str, set[int]], float, int] | None:
    """(each unit's idf weight, which of ``chunk_ids`` hold it, the weights' sum, the rows
    BM25 counts) as BM25 ran the query; None when it has no phrase BM25 can run."""
    conn = sources.conn
    languages = language.query_languages(fts_query.words(text), language.present(conn))
    match = fts_query.build_match(text, stem_languages=languages)  # as the BM25 lane builds it
    if match is None:
        return None
    planned = sources.planner.groups(conn, match)
    if planned is None:
        return None
    rows, groups = planned
    word_of = _stem_owners(text, languages)
    units: dict[str, int] = {}  # a word (or a phrase of its own) -> its most frequent form's df
    holding: dict[str, set[int]] = {}
    for group in groups:
        if not group.tokens:
            continue
        unit = word_of.get(group.text, group.text)
        df = group.df if len(group.tokens) == 1 else group.cost  # a phrase: its rarest token
        units[unit] = max(units.get(unit, 0), df)
        holding.setdefault(unit, set()).update(facets.matching(conn, group.text, chunk_ids))
    weights = {unit: idf(rows, df) for unit, df in units.items()}
    total = sum(weights.values())
    if not total:
        return None
    return weights, holding, total, rows


def _stem_owners(text: str, languages: list[str]) -> dict[str, str]:
    """{a stem's MATCH phrase: its word's}, as ``build_match`` writes them (a prefix too)."""
    owners: dict[str, str] = {}
    said = language.languages_said(fts_query.words(text), languages)
    for word in fts_query.content_words(text)[:fts_query.MAX_TERMS]:
        for stem in language.query_stems(word, languages, said=said):
            owners[f'"{stem}"'] = f'"{word}"'
            owners[f'"{stem}"*'] = f'"{word}"*'
    return owners


def gap(sources: Sources, chunk_id: int, vector: list[tuple[int, float]], qvec) -> float | None:
    """Cosine of the vector lane's first passage minus that of the most similar passage of the
    note holding ``chunk_id``; None when either is unknown."""
    if not vector or qvec is None:
        return None
    vector_ids = facets.note_vector_ids(sources.conn, chunk_id)
    best = sources.vectors.best_similarity(qvec, vector_ids)
    if best is None:
        return None
    return round(max(0.0, (1.0 - vector[0][1]) - best), 6)
