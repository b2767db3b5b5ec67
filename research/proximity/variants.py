"""Proximity signals measured beside the product's (``core/search/proximity.py``), applied
offline to a BM25 lane ranking. Each returns the re-ranked (chunk id, score) list.

* ``buttcher``: ``proximity.rerank`` (Büttcher, Clarke and Lushman 2006) at weight w.
* ``span``: the idf of the distinct query words found together inside one window of
  ``len(words) + slack`` tokens (the best window of the passage's columns), times w, added to
  the BM25 score; only windows holding at least two words count.
* ``span_all``: as ``span``, but only a window holding every query word the index knows counts
  (the query said as a phrase, give or take ``slack`` words between).
"""

from __future__ import annotations

import proximity  # research/proximity/ is on sys.path (run as a script, or by pytest)

DEPTH = proximity.DEPTH


def best_window(occ: list[tuple[int, int, int]], weights: list[float], width: int) -> tuple[float, int]:
    """(idf sum, distinct words) of the best window of ``width`` tokens within one column."""
    best = (0.0, 0)
    start = 0
    counts: dict[int, int] = {}
    for end in range(len(occ)):
        col, off, g = occ[end]
        counts[g] = counts.get(g, 0) + 1
        while occ[start][0] != col or off - occ[start][1] >= width:
            sg = occ[start][2]
            counts[sg] -= 1
            if not counts[sg]:
                del counts[sg]
            start += 1
        found = (sum(weights[i] for i in counts), len(counts))
        if found[1] >= 2 and found > best:
            best = found
    return best


def rerank(kind: str, conn, planner, match, ranked, weight: float, slack: int = 2):
    if weight <= 0 or not match or len(ranked) < 2:
        return ranked
    if kind == "buttcher":
        return proximity.rerank(conn, planner, match, ranked, weight)
    head = ranked[:DEPTH]
    terms, found = proximity.occurrences(conn, planner, match, [c for c, _ in head])
    if terms is None:
        return ranked
    n = len(terms.weights)
    out = []
    for c, bm25 in head:
        idf_sum, words = best_window(found.get(c, []), terms.weights, n + slack)
        if kind == "span_all" and words < n:
            idf_sum = 0.0
        out.append((c, bm25 - weight * idf_sum))
    out.sort(key=lambda item: (item[1], item[0]))
    return out + ranked[DEPTH:]
