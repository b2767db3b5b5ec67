"""Words side by side: proximity signals folded into the BM25 lane, measured
on known-item and BEIR sets with the product's own lanes and fusion; plus the step's own cost.

    python research/proximity/measure.py --out /tmp/prox/lanes.jsonl \\
        --known-item til docs/known-item-til.jsonl ../shared/corpora/markdown/jbranchaud-til \\
        --beir scifact ../shared/corpora/beir/scifact
    python research/proximity/summary.py /tmp/prox/lanes.jsonl      # the table, cross-validated

Each query's two lanes come from ``Retrieval.lanes`` (the product's depth: 50 for known-item,
300 for BEIR, as ``pms-tui eval`` runs them). Every variant of
``variants.py`` at every weight then re-ranks the BM25 lane, and the hybrid is fused from it
and the vector lane exactly as ``Retrieval.search`` fuses (``fusion_for``: query-aware fusion's
signals re-read off the re-ranked lane). Weight 0 reproduces ``pms-tui eval``'s figures.
``--text-only`` indexes without embedding (BM25 lane only; give it its own PMS_TUI_EVAL_CACHE).
Writes one JSON line per (set, lane, variant, weight) with every query's score, then one per
set with the cost of ``proximity.rerank`` (ms per query, lane depth 50).
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import time

from pms_tui.core import kb as kb_module
from pms_tui.core.search import query as fts_query
from pms_tui.core.search.fusion import fuse
from pms_tui.core.search.retrieval import LaneEvidence
from pms_tui.eval import beir, harness, known_item, metrics

import proximity  # research/proximity/ is on sys.path when this runs as a script
import variants

WEIGHTS = (0.25, 0.5, 1.0, 2.0)
KINDS = ("buttcher", "span", "span_all")


def text_only() -> None:
    sync = kb_module.KnowledgeBase.sync
    kb_module.KnowledgeBase.sync = functools.partialmethod(sync, embed=False)


def doc_paths(kb) -> dict[int, str]:
    return dict(kb.retrieval.store.conn.execute(
        "SELECT c.id, d.path FROM chunks c JOIN documents d ON d.id = c.document_id"))


def p95(xs):
    return sorted(xs)[min(len(xs) - 1, int(round(0.95 * (len(xs) - 1))))]


def cost(kb, queries: list[str], weight: float = 1.0) -> dict:
    """The proximity step alone (``proximity.rerank``), per query: BM25 lane at depth 50, then the step."""
    r = kb.retrieval
    lane, step = [], []
    for text in queries:
        started = time.perf_counter()
        ranked = r.bm25.ranked(text, 50)
        mid = time.perf_counter()
        proximity.rerank(r.store.conn, r.planner, fts_query.build_match(text), ranked, weight)
        lane.append((mid - started) * 1000)
        step.append((time.perf_counter() - mid) * 1000)
    return {"bm25_median_ms": round(statistics.median(lane), 3), "bm25_p95_ms": round(p95(lane), 3),
            "proximity_median_ms": round(statistics.median(step), 3), "proximity_p95_ms": round(p95(step), 3)}


def run_set(name, kb, queries, score_of, depth, hybrid, out, weights) -> None:
    r = kb.retrieval
    paths = doc_paths(kb)
    conn = r.store.conn
    lanes = {}
    for qid, text in queries:
        parsed, ranked = r.lanes(text, depth, "hybrid" if hybrid else "bm25")
        lanes[qid] = (parsed, ranked)
    configs = [("none", 0.0)] + [(k, w) for k in KINDS for w in weights]
    for kind, w in configs:
        per = {"bm25": {}, "hybrid": {}}
        for qid, _ in queries:
            parsed, ranked = lanes[qid]
            bm25 = ranked.get("bm25", [])
            if kind != "none":
                bm25 = variants.rerank(kind, conn, r.planner, fts_query.build_match(parsed.match_text), bm25, w)
            docs = metrics.unique(paths.get(c) for c, _ in bm25)
            per["bm25"][qid] = score_of(qid, docs)
            if hybrid and "vector" in ranked:
                ev = LaneEvidence(ranked={"bm25": bm25, "vector": ranked["vector"]})
                if r.settings.query_aware_fusion:
                    ev.signals = r.lane_signals(parsed, bm25, ranked["vector"])
                fusion = r.fusion_for(ev)
                fused = fuse(ev.ids(), fusion.k, fusion.weights)[:depth]
                per["hybrid"][qid] = score_of(qid, metrics.unique(paths.get(f.chunk_id) for f in fused))
        for lane, scores in per.items():
            if not scores:
                continue
            row = {"set": name, "lane": lane, "kind": kind, "weight": w,
                   "mean": round(statistics.fmean(scores.values()), 4), "per_query": scores}
            print(json.dumps({k_: v for k_, v in row.items() if k_ != "per_query"}), flush=True)
            out.write(json.dumps(row) + "\n")
            out.flush()
    row = {"set": name, "cost": cost(kb, [t for _, t in queries])}
    print(json.dumps(row), flush=True)
    out.write(json.dumps(row) + "\n")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--known-item", nargs=3, action="append", default=[], metavar=("NAME", "FILE", "FOLDER"))
    p.add_argument("--beir", nargs=2, action="append", default=[], metavar=("NAME", "FOLDER"))
    p.add_argument("--weights", nargs="+", type=float, default=list(WEIGHTS))
    p.add_argument("--text-only", action="store_true")
    p.add_argument("--out", required=True)
    args = p.parse_args()
    if args.text_only:
        text_only()
    settings = harness.eval_settings()
    with open(args.out, "a", encoding="utf-8") as out:
        for name, file, folder in args.known_item:
            items = known_item.read_queries(file)
            target = {i.qid: i.target for i in items}
            kb, _ = known_item.open_collection(folder, settings, quiet=True)
            try:
                def score_of(qid, docs, target=target):
                    return metrics.mrr_at(docs, {target[qid]: 1}, 10)

                run_set(name, kb, [(i.qid, i.query) for i in items], score_of, 50, not args.text_only, out,
                        args.weights)
            finally:
                kb.close()
        for name, folder in args.beir:
            prep = beir.prepare(folder, settings, quiet=True)
            try:
                judged = set(metrics.judged_queries(prep.qrels))
                queries = [(q, t) for q, t in prep.topics.items() if q in judged]

                def score_of(qid, paths, prep=prep):
                    docs = [d for d in (prep.mapping.get(p) for p in paths) if d is not None and d != qid]
                    return metrics.per_query({qid: docs}, prep.qrels, [qid])[qid]["ndcg@10"]

                run_set(name, prep.kb, queries, score_of, 300, not args.text_only, out, args.weights)
            finally:
                prep.kb.close()


if __name__ == "__main__":
    main()
