"""The BM25 lane of every set under each way of cutting a long query, on BM25-only indexes.

    python research/long_queries/bm25_caps.py [--beir DIR ...] [--known-item FILE DIR ...]

Indexes are built by ``pms-tui eval``'s harness without vectors (``sync(embed=False)``; under
``PMS_TUI_EVAL_CACHE`` when set). Each way is the product's lane with its caps changed:

* ``today``: the constants as they are (``query.MAX_TERMS`` content words of the text, then
  the planner's ``MAX_PHRASES`` strongest distinct phrases);
* ``terms=N``/``phrases=N``: those caps set to N (0: no cap);
* ``plain``: no planner at all (every query runs as written: the exact ranking of the
  expression ``build_match`` makes).

Each query is searched once at ``pms-tui eval``'s depth (300 BEIR, 50 known-item), so the
figures are the eval's BM25 column. Prints one JSON line per set and way: nDCG@10 (BEIR) or
MRR@10 (known-item), with the share of queries whose text had more content words or distinct
phrases than today's caps keep.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pms_tui.core.kb import KnowledgeBase  # noqa: E402
from pms_tui.core.kb_measure import Measure  # noqa: E402
from pms_tui.core.search import bm25 as bm25_mod  # noqa: E402
from pms_tui.core.search import bm25_planner, query  # noqa: E402
from pms_tui.eval import beir, known_item, metrics  # noqa: E402

_sync = KnowledgeBase.sync
KnowledgeBase.sync = lambda self, *a, **kw: _sync(self, *a, **{**kw, "embed": False})  # type: ignore[method-assign]
TODAY = {"terms": query.MAX_TERMS, "phrases": bm25_planner.MAX_PHRASES}
PLAN = {"on": True}
_init = bm25_mod.Bm25Lane.__init__


def _lane_init(self, *a, **kw):
    _init(self, *a, **kw)
    self.plan = PLAN["on"]


bm25_mod.Bm25Lane.__init__ = _lane_init  # type: ignore[method-assign]


def apply(way: str) -> None:
    caps = dict(TODAY)
    PLAN["on"] = way != "plain"
    for part in way.split(","):
        if "=" in part:
            name, value = part.split("=")
            caps[name] = int(value) or 10**9
    query.build_match.__kwdefaults__["max_terms"] = caps["terms"]
    query.MAX_TERMS = caps["terms"]
    bm25_planner.MAX_PHRASES = caps["phrases"]


def over_caps(texts: list[str]) -> dict:
    words = [len(query.content_words(t)) for t in texts]
    distinct = [len(set(query.content_words(t)[: TODAY["terms"]])) for t in texts]
    n = max(1, len(texts))
    return {"over_terms": round(sum(w > TODAY["terms"] for w in words) / n, 3),
            "over_phrases": round(sum(d > TODAY["phrases"] for d in distinct) / n, 3),
            "median_words": sorted(words)[len(words) // 2] if words else 0}


def run(kb, queries, doc_of, depth: int, exclude_self: bool, typed=frozenset()) -> tuple[dict[str, list[str]], float]:
    """Each query's BM25 lane at ``pms-tui eval``'s depth (the ranking ``search`` returns in
    mode bm25, without building its hits): (ranked documents, seconds)."""
    measure = Measure(kb)
    notes = measure.chunk_notes()
    out: dict[str, list[str]] = {}
    started = time.perf_counter()
    for qid, text in queries:
        _, lanes = measure.lanes(text, depth, mode="bm25", typing=qid in typed)
        ranked = metrics.unique(doc_of(notes[c]) for c, _ in lanes.get("bm25", []))
        out[qid] = [d for d in ranked if d != qid] if exclude_self else ranked
    return out, time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--beir", nargs="*", default=[])
    ap.add_argument("--known-item", nargs=2, action="append", default=[], metavar=("FILE", "DIR"))
    ap.add_argument("--ways", default="today;phrases=0;terms=0;terms=0,phrases=0")
    args = ap.parse_args()
    ways = args.ways.split(";")
    for folder in args.beir:
        prep = beir.prepare(folder, quiet=True)
        judged = set(metrics.judged_queries(prep.qrels))
        queries = [(q, t) for q, t in prep.topics.items() if q in judged]
        stats = over_caps([t for _, t in queries])
        for way in ways:
            apply(way)
            ranked, seconds = run(prep.kb, queries, prep.mapping.get, 300, True)
            scores = metrics.mean_scores(metrics.per_query(ranked, prep.qrels, [q for q, _ in queries]))
            print(json.dumps({"set": Path(folder).name, "way": way, "ndcg@10": round(scores["ndcg@10"], 4),
                              "recall@100": round(scores["recall@100"], 4),
                              "ms_per_query": round(1000 * seconds / max(1, len(queries)), 1), **stats}), flush=True)
        prep.kb.close()
    for file, folder in args.known_item:
        items = known_item.read_queries(file)
        kb, _ = known_item.open_collection(folder, quiet=True)
        queries = [(i.qid, i.query) for i in items]
        stats = over_caps([t for _, t in queries])
        for way in ways:
            apply(way)
            ranked, seconds = run(kb, queries, str, 50, False, known_item.typed_ids(items))
            mrr = statistics.fmean(metrics.mrr_at(ranked.get(i.qid, []), {i.target: 1}, 10) for i in items)
            print(json.dumps({"set": Path(file).stem, "way": way, "mrr@10": round(mrr, 4),
                              "ms_per_query": round(1000 * seconds / max(1, len(queries)), 1), **stats}), flush=True)
        kb.close()


if __name__ == "__main__":
    main()
