"""While a folder's vectors are still being computed, how far should the vector lane count?

    python research/partial_vectors.py --beir DIR [...] --known-item FILE DIR [...] [--seeds 3]

Text is searchable at once and vectors fill in behind, so for minutes (an hour for a big
folder) the vector lane ranks only the passages embedded so far: its first places are the
nearest of a few, not of all. This simulates that state on the evaluation collections (the
indexes `pms-tui eval` caches): a random share ``c`` of the notes is taken as embedded (the
queue embeds note by note), the vector lane is the exact ranking of those notes' passages
(every passage's similarity is computed from the collection's own vectors), BM25's lane is
unchanged (``fusion_cv.collect``'s cache), and query-aware fusion's gap signal is measured
again on what is embedded (None when BM25's first note has no vectors yet, as search does).

Rules compared, each fused with the product's ``fuse`` and ``lane_trust.decide``:

* ``today``: the lanes fused as they are;
* ``off<c0``: the vector lane left out while less than ``c0`` of the passages are embedded;
* ``weight*c``: the vector lane's weight multiplied by the embedded share.

Each collection is reported at every share (the mean over ``--seeds`` random orders), and
``c0`` is chosen leave-one-collection-out (on the others: the most total gain over ``today``,
summed over shares; then the held-out collection's figures with that choice).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "research"))

import fusion_cv  # noqa: E402

from pms_tui.core.config import Settings  # noqa: E402
from pms_tui.core.kb_measure import Measure  # noqa: E402
from pms_tui.core.search import lane_trust  # noqa: E402
from pms_tui.core.search.fusion import fuse  # noqa: E402
from pms_tui.core.search.query_syntax import parse  # noqa: E402
from pms_tui.eval import beir, harness, known_item, metrics  # noqa: E402

SHARES = (0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.65, 0.8, 0.9, 1.0)
CUTS = (0.05, 0.1, 0.2, 0.35, 0.5, 0.65, 0.8, 0.9)  # c0 of the "off<c0" rule


class Simulated:
    """One collection: BM25's lanes and coverage (cached), every passage's similarity to each
    query, and which note each passage belongs to."""

    def __init__(self, collection: fusion_cv.Collection, kb, queries: list[tuple[str, str]], depth: int):
        self.collection, self.depth = collection, depth
        conn = kb._store.conn
        rows = conn.execute("SELECT id, vector_id, document_id FROM chunks ORDER BY id").fetchall()
        self.chunk_ids = np.array([r[0] for r in rows], dtype=np.int64)
        vec_of_chunk = np.array([r[1] for r in rows], dtype=np.int64)
        self.note_of_chunk = np.array([r[2] for r in rows], dtype=np.int64)
        self.notes = np.unique(self.note_of_chunk)
        ids, matrix = kb._vectors.snapshot()
        at = np.searchsorted(ids, vec_of_chunk)
        self.sims: dict[str, np.ndarray] = {}
        embed = kb.retrieval.embedder.embed_query
        for qid, text in queries:
            parsed = parse(text)
            if qid in collection.lanes and parsed.has_text:
                qvec = np.asarray(embed(parsed.text), dtype=np.float32)
                self.sims[qid] = (matrix @ qvec)[at]  # per passage, in chunk id order
        # each query's passages nearest first (ties by chunk id): a share's lane filters it
        self.order = {q: np.lexsort((self.chunk_ids, -v)) for q, v in self.sims.items()}
        self.row_of = {int(c): i for i, c in enumerate(self.chunk_ids)}

    def score(self, rule, share: float, seed: int) -> float:
        rng = np.random.default_rng(seed)
        embedded = set(rng.choice(self.notes, size=max(1, round(share * len(self.notes))), replace=False).tolist())
        mask = np.isin(self.note_of_chunk, list(embedded))
        c = float(mask.mean())

        def run_of(lanes: dict) -> list[int]:
            qid = lanes["qid"]
            sims = self.sims.get(qid)
            bm25 = [x for x, _ in lanes["bm25"]]
            if sims is None:
                return bm25
            full = self.order[qid]
            order = full[mask[full]][: self.depth]
            vector = self.chunk_ids[order].tolist()
            gap = None
            if bm25 and len(order):
                first = self.row_of[bm25[0]]
                note = self.note_of_chunk[first]
                if note in embedded:
                    best = float(sims[self.note_of_chunk == note].max())
                    gap = max(0.0, float(sims[order[0]]) - best)
            return rule({"bm25": bm25, "vector": vector}, lane_trust.Signals(lanes["coverage"], gap), c)

        return self.collection.score(run_of)["all"]


def fused(ids: dict, signals: lane_trust.Signals, weights: dict[str, float]) -> list[int]:
    s = Settings()
    fusion = lane_trust.decide(signals, ids, s.rrf_k, weights, lane_trust.Thresholds.of(s))
    return [f.chunk_id for f in fuse(ids, fusion.k, fusion.weights)]


def today(ids, signals, c):
    return fused(ids, signals, {"bm25": 1.0, "vector": 1.0})


def off_below(c0: float):
    def rule(ids, signals, c):
        return ids["bm25"] if c < c0 else today(ids, signals, c)
    return rule


def weight_times_share(ids, signals, c):
    return fused(ids, signals, {"bm25": 1.0, "vector": c})


def load(args) -> list[Simulated]:
    out = []
    for folder in args.beir:
        prep = beir.prepare(folder)
        judged = set(metrics.judged_queries(prep.qrels))
        queries = [(q, t) for q, t in prep.topics.items() if q in judged]
        lanes = fusion_cv.collect(prep.kb, queries, 300, harness.cache_root() / prep.build.key)
        docs = {cid: prep.mapping.get(path) for cid, path in Measure(prep.kb).chunk_notes().items()}
        col = fusion_cv.Collection(Path(folder).name, "beir", _tagged(lanes), prep.qrels, {}, docs)
        out.append(Simulated(col, prep.kb, queries, 300))
        prep.kb.close()
    for file, folder in args.known_item:
        items = known_item.read_queries(file)
        kb, build = known_item.open_collection(folder)
        queries = [(i.qid, i.query) for i in items]
        lanes = fusion_cv.collect(kb, queries, 50, harness.cache_root() / build.key)
        col = fusion_cv.Collection(Path(file).stem, "known-item", _tagged(lanes),
                                   {i.qid: {i.target: 1} for i in items}, {i.qid: i.kind for i in items},
                                   Measure(kb).chunk_notes())
        out.append(Simulated(col, kb, queries, 50))
        kb.close()
    return out


def _tagged(lanes: dict) -> dict:
    return {qid: {**value, "qid": qid} for qid, value in lanes.items()}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python research/partial_vectors.py")
    p.add_argument("--beir", action="append", default=[], metavar="DIR")
    p.add_argument("--known-item", action="append", nargs=2, default=[], metavar=("FILE", "DIR"))
    p.add_argument("--seeds", type=int, default=3)
    args = p.parse_args(argv)
    sims = load(args)
    rules = {"today": today, "weight*c": weight_times_share, **{f"off<{c0}": off_below(c0) for c0 in CUTS}}
    table: dict[str, dict[str, dict[float, float]]] = {}
    for sim in sims:
        name = sim.collection.name
        table[name] = {r: {} for r in rules}
        table[name]["bm25 only"] = {s: sim.collection.score(lambda L: [x for x, _ in L["bm25"]])["all"] for s in SHARES}
        for share in SHARES:
            for r, rule in rules.items():
                table[name][r][share] = statistics.fmean(sim.score(rule, share, seed) for seed in range(args.seeds))
    report = {"shares": list(SHARES), "metric": {s.collection.name: s.collection.metric for s in sims},
              "table": {n: {r: {str(s): round(v, 4) for s, v in row.items()} for r, row in t.items()}
                        for n, t in table.items()}}
    names = list(table)
    cut_rules = [f"off<{c0}" for c0 in CUTS] + ["weight*c", "today"]

    def gain(n: str, r: str) -> float:
        return sum(table[n][r][s] - table[n]["today"][s] for s in SHARES)

    report["held_out"] = []
    for held in names:
        others = [n for n in names if n != held] or names
        chosen = max(cut_rules, key=lambda r: (sum(gain(n, r) for n in others), r == "today"))
        report["held_out"].append({"collection": held, "chosen_on": others, "rule": chosen,
                                   "gain_summed_over_shares": round(gain(held, chosen), 4)})
    json.dump(report, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
