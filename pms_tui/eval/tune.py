"""Two-fold cross-validation of the retrieval-side settings on a BEIR-style collection.

    python -m pms_tui.eval.tune ../shared/corpora/beir/scifact [--seed 0]

There is only a test split, so the queries are cut in two halves by a seeded shuffle; each
setting is chosen on one half and scored on the other, then the other way round. The
held-out scores are what may be reported; the setting both folds agree on (or the more
conservative one) becomes a default in ``Settings``.

It reuses the cached index of ``pms-tui eval beir`` and the product's own lanes
(``Retrieval.bm25_ranked`` / ``vector_ranked``) and fusion (``retrieval.fuse``): lanes are
computed once per query and re-fused per setting, which ranks exactly as ``search`` does
for a lane depth equal to ``depth``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import statistics
import sys
from collections.abc import Callable, Iterable, Sequence

from ..core.kb import fuse
from . import beir, metrics


def chunk_docs(kb, mapping: dict[str, str]) -> dict[int, str]:
    return {cid: mapping.get(path) for cid, path in kb.chunk_notes().items()}


def bm25_lanes(kb, queries, depth) -> dict[str, list[tuple[int, float]]]:
    return {qid: kb.retrieval.bm25_ranked(text, depth) for qid, text in queries}


def vector_lanes(kb, queries, depth) -> dict[str, list[tuple[int, float]]]:
    return {qid: kb.retrieval.vector_ranked(text, depth) for qid, text in queries}


def to_docs(chunk_ids: Iterable[int], docs: dict[int, str], qid: str) -> list[str]:
    return [d for d in metrics.unique(docs.get(c) for c in chunk_ids) if d != qid]


def rrf_run(bm25, vector, docs, *, k=60, wb=1.0, wv=1.0, depth=300) -> dict[str, list[str]]:
    run = {}
    for qid in bm25:
        lanes = {"bm25": [c for c, _ in bm25[qid][:depth]], "vector": [c for c, _ in vector[qid][:depth]]}
        fused = fuse(lanes, k, {"bm25": wb, "vector": wv})
        run[qid] = to_docs((f.chunk_id for f in fused), docs, qid)
    return run


def lane_run(lane, docs) -> dict[str, list[str]]:
    return {qid: to_docs((c for c, _ in ranked), docs, qid) for qid, ranked in lane.items()}


def folds(qids: Sequence[str], seed: int = 0) -> tuple[list[str], list[str]]:
    order = sorted(qids)
    random.Random(seed).shuffle(order)
    half = len(order) // 2
    return sorted(order[:half]), sorted(order[half:])


def cross_validate(
    grid: Sequence[dict], run_of: Callable[[dict], dict], qrels, qids: Sequence[str], seed: int = 0,
    metric: str = "ndcg@10",
) -> dict:
    """Pick the best setting on each fold, score it on the other fold."""
    a, b = folds(qids, seed)
    table = []
    for params in grid:
        per = metrics.per_query(run_of(params), qrels, qids)
        table.append((params, per))

    def mean(per, part):
        return statistics.fmean(per[q][metric] for q in part if q in per)

    out = {"metric": metric, "folds": []}
    held = []
    for tune, test in ((a, b), (b, a)):
        best_params, best_per = max(table, key=lambda t: mean(t[1], tune))
        held.append((len(test), mean(best_per, test)))
        out["folds"].append({"chosen": best_params, "tune": round(mean(best_per, tune), 4),
                             "held_out": round(mean(best_per, test), 4)})
    out["cv"] = round(sum(n * s for n, s in held) / sum(n for n, _ in held), 4)
    full = sorted(table, key=lambda t: -mean(t[1], qids))
    out["best_full"] = {"params": full[0][0], metric: round(mean(full[0][1], qids), 4)}
    out["grid"] = [{"params": p, metric: round(mean(per, qids), 4)} for p, per in table]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pms_tui.eval.tune")
    parser.add_argument("dir")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--depth", type=int, default=300)
    args = parser.parse_args(argv)
    prep = beir.prepare(args.dir)
    kb = prep.kb
    judged = set(metrics.judged_queries(prep.qrels))
    queries = [(q, t) for q, t in prep.topics.items() if q in judged]
    qids = [q for q, _ in queries]
    docs = chunk_docs(kb, prep.mapping)
    report: dict = {}

    # 1. column weights of the BM25 lane
    base = (kb.settings.title_weight, kb.settings.heading_weight, kb.settings.body_weight)
    cache: dict = {}

    def bm25_with(params):
        key = (params["title_weight"], params["heading_weight"])
        if key not in cache:
            kb.settings.title_weight, kb.settings.heading_weight = key
            cache[key] = bm25_lanes(kb, queries, args.depth)
        return cache[key]

    grid = [{"title_weight": t, "heading_weight": h}
            for t, h in itertools.product((0.0, 0.5, 1.0, 2.0, 4.0), (0.0, 0.5, 1.0, 1.5))]
    report["columns"] = cross_validate(grid, lambda p: lane_run(bm25_with(p), docs), prep.qrels, qids, args.seed)
    kb.settings.title_weight, kb.settings.heading_weight, kb.settings.body_weight = base
    print(json.dumps({k: v for k, v in report["columns"].items() if k != "grid"}), file=sys.stderr)

    # 2. fusion: k, lane weights and depth, on the default BM25 lane
    bm25 = bm25_lanes(kb, queries, args.depth)
    vector = vector_lanes(kb, queries, args.depth)
    grid = [{"k": k, "wb": wb, "depth": d}
            for k, wb, d in itertools.product((5, 10, 20, 30, 45, 60, 80, 100), (0.6, 0.8, 1.0, 1.2, 1.5, 2.0),
                                              (50, 100, 300))]
    report["fusion"] = cross_validate(
        grid, lambda p: rrf_run(bm25, vector, docs, k=p["k"], wb=p["wb"], depth=p["depth"]), prep.qrels, qids,
        args.seed)
    print(json.dumps({k: v for k, v in report["fusion"].items() if k != "grid"}), file=sys.stderr)
    json.dump(report, sys.stdout, indent=1)
    kb.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
