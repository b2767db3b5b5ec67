"""Ranking metrics with trec_eval semantics, on plain ranked lists of document ids.

A *run* is, per query, the ranked list of retrieved document ids (best first, each id once);
*qrels* is, per query, a mapping of judged document id to relevance grade. Only grades
above zero are relevant; a query with no relevant judgment is skipped (as trec_eval does).

- ``ndcg_at``   trec_eval ``ndcg_cut.k``: gain = grade, discount log2(rank + 1), the ideal
  ranking is every relevant judged document of the query sorted by grade.
- ``recall_at`` relevant documents in the top k over all relevant documents of the query.
- ``mrr_at``    1 / rank of the first relevant document in the top k, else 0.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Iterable, Mapping, Sequence

Qrels = Mapping[str, Mapping[str, int]]
Run = Mapping[str, Sequence[str]]


def unique(ids: Iterable[str | None]) -> list[str]:
    """Ids in order with repeats (and Nones) dropped: a document ranks at its best chunk."""
    seen: set[str] = set()
    out: list[str] = []
    for doc_id in ids:
        if doc_id is None or doc_id in seen:
            continue
        seen.add(doc_id)
        out.append(doc_id)
    return out


def dcg(gains: Iterable[float]) -> float:
    return sum(g / math.log2(rank + 1) for rank, g in enumerate(gains, start=1) if g > 0)


def ndcg_at(ranked: Sequence[str], judged: Mapping[str, int], k: int = 10) -> float:
    ideal = dcg(sorted((g for g in judged.values() if g > 0), reverse=True)[:k])
    if ideal <= 0:
        return 0.0
    return dcg(max(judged.get(d, 0), 0) for d in ranked[:k]) / ideal


def recall_at(ranked: Sequence[str], judged: Mapping[str, int], k: int = 100) -> float:
    relevant = {d for d, g in judged.items() if g > 0}
    if not relevant:
        return 0.0
    return len(relevant.intersection(ranked[:k])) / len(relevant)


def mrr_at(ranked: Sequence[str], judged: Mapping[str, int], k: int = 10) -> float:
    for rank, doc_id in enumerate(ranked[:k], start=1):
        if judged.get(doc_id, 0) > 0:
            return 1.0 / rank
    return 0.0


def hit_at(ranked: Sequence[str], target: str, k: int) -> float:
    """1.0 when ``target`` is in the top k (known-item Recall@k), else 0.0."""
    return 1.0 if target in ranked[:k] else 0.0


def judged_queries(qrels: Qrels) -> list[str]:
    """Query ids with at least one relevant judgment, in qrels order."""
    return [q for q, judged in qrels.items() if any(g > 0 for g in judged.values())]


def per_query(run: Run, qrels: Qrels, qids: Iterable[str] | None = None) -> dict[str, dict[str, float]]:
    """nDCG@10, Recall@100 and MRR@10 of every judged query (a query missing from the run scores 0)."""
    wanted = judged_queries(qrels)
    if qids is not None:
        keep = set(wanted)
        wanted = [q for q in qids if q in keep]
    out: dict[str, dict[str, float]] = {}
    for qid in wanted:
        ranked = run.get(qid, [])
        judged = qrels[qid]
        out[qid] = {
            "ndcg@10": ndcg_at(ranked, judged, 10),
            "recall@100": recall_at(ranked, judged, 100),
            "mrr@10": mrr_at(ranked, judged, 10),
        }
    return out


def mean_scores(scores: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """The mean of each metric over the queries given (0.0 for none)."""
    if not scores:
        return {}
    names = next(iter(scores.values())).keys()
    return {name: statistics.fmean(s[name] for s in scores.values()) for name in names}


def evaluate(run: Run, qrels: Qrels, qids: Iterable[str] | None = None) -> dict[str, float]:
    """Mean nDCG@10, Recall@100, MRR@10 over the judged queries (optionally only ``qids``)."""
    return mean_scores(per_query(run, qrels, qids))


def paired_bootstrap(a: Sequence[float], b: Sequence[float], resamples: int = 2000,
                     seed: int = 0) -> tuple[float, float, float]:
    """(mean of a - b, and the 2.5 and 97.5 percentiles of that mean over ``resamples``
    resamplings of the query pairs, drawn with replacement): how far a difference measured on
    a few queries could move with other queries of the same kind. Seeded: the same pairs give
    the same interval."""
    if len(a) != len(b):
        raise ValueError("paired_bootstrap needs one score of each system per query")
    diffs = [x - y for x, y in zip(a, b)]
    if not diffs:
        return 0.0, 0.0, 0.0
    rng = random.Random(seed)
    n = len(diffs)
    means = sorted(sum(diffs[rng.randrange(n)] for _ in range(n)) / n for _ in range(resamples))
    low, high = means[int(0.025 * (resamples - 1))], means[int(round(0.975 * (resamples - 1)))]
    return statistics.fmean(diffs), low, high


def against_better_lane(per_query: Mapping[str, Mapping[str, float]], groups: Mapping[str, Sequence[str]],
                        resamples: int = 2000) -> dict[str, dict]:
    """For each group of query ids: the hybrid's mean metric minus that of the better of its two
    lanes on that group, with a paired-bootstrap 95% interval. ``per_query[mode][qid]`` is one
    query's metric in a mode ("bm25", "vector", "hybrid")."""
    out: dict[str, dict] = {}
    if not all(mode in per_query for mode in ("bm25", "vector", "hybrid")):
        return out
    for group, qids in groups.items():
        if not qids:
            continue
        lanes = {mode: [per_query[mode][q] for q in qids] for mode in ("bm25", "vector", "hybrid")}
        better = max(("bm25", "vector"), key=lambda mode: (statistics.fmean(lanes[mode]), mode == "vector"))
        diff, low, high = paired_bootstrap(lanes["hybrid"], lanes[better], resamples)
        out[group] = {"n": len(qids), "better_lane": better, "diff": round(diff, 4),
                      "ci95": [round(low, 4), round(high, 4)]}
    return out
