"""Leave-one-collection-out cross-validation of query-aware fusion (``core/search/lane_trust.py``).

    python research/fusion_cv.py --beir DIR [--beir DIR ...] --known-item FILE DIR [...]

For every collection, each query's two lanes and its two signals (coverage, gap) are computed
once with the product's own code (``Retrieval.lanes``: the query parsed and filtered as
``search`` does), at the depth ``pms-tui eval`` ranks with (BEIR 300, known-item 50), and
cached beside the evaluation's index. Each setting of the rule's four
numbers, and plain RRF, is then fused offline with the product's ``fuse`` (which ranks exactly
as ``search`` does), documents taken at their best passage.

A setting is RRF's k (``rrf_k``, the base every lane starts from) with the rule's four numbers
or without the rule (plain RRF); plain RRF at the customary k 60 is the reference.

Each collection in turn is held out. The setting is chosen on the other collections by one
objective, in this order of importance: (1) no group, a collection or one of a known-item
set's query kinds, below the better of its two lanes (the shortfalls summed, weighted 3);
(2) the gain over plain RRF (k 60) on each collection's headline metric (nDCG@10 for BEIR, MRR@10
for known-item). The held-out collection's figures with that setting are what may be reported.

The report's ``ceiling`` says, for each group, the most any setting on the grid lifts it over
its better lane (in-sample): whether the objective's first part can be met by a choice at all.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import statistics
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pms_tui.core.config import Settings  # noqa: E402
from pms_tui.core.kb_measure import Measure  # noqa: E402
from pms_tui.core.search import lane_trust  # noqa: E402
from pms_tui.core.search.fusion import fuse  # noqa: E402
from pms_tui.eval import beir, harness, known_item, metrics  # noqa: E402

OBJECTIVE_SHORTFALL_WEIGHT = 3.0
REFERENCE_K = 60  # plain RRF's customary k: the reference every gain is measured from
RRF_K = (2, 3, 5, 10, 20, 60)
GRID = {
    "coverage": (0.7, 0.8, 0.9, 1.01),  # 1.01: the rule is off
    "confident_k": (1, 2, 5, 10, 20),  # only those below the setting's rrf_k (else no change)
    "gap": (0.1, 0.15, 0.2, 0.25, 0.3, 9.0),  # 9: the rule is off
    "contradicted_weight": (0.0, 0.25),
}


@dataclass(frozen=True)
class Setting:
    """One point of the grid: RRF's k, and the rule's thresholds (None: plain RRF)."""

    rrf_k: int
    thresholds: lane_trust.Thresholds | None


def settings_grid() -> list[Setting]:
    """Plain RRF at the reference k first, then plain RRF at every other k, then every
    combination of GRID at every k."""
    grid = [Setting(REFERENCE_K, None)] + [Setting(k, None) for k in RRF_K if k != REFERENCE_K]
    for k in RRF_K:
        grid += [Setting(k, lane_trust.Thresholds(*values)) for values in itertools.product(*GRID.values())
                 if values[1] < k]
    return grid


DEFAULT = Setting(Settings.rrf_k, lane_trust.Thresholds.of(Settings()))  # the product's setting


def collect(kb, queries: list[tuple[str, str]], depth: int, key_dir: Path, typed: set[str] = frozenset()) -> dict:
    """{qid: {"bm25": [[chunk, score]...], "vector": [...], "coverage", "gap"}}, cached in
    ``key_dir`` under a name that covers the queries, the depth and the retrieval settings;
    the queries in ``typed`` are ranked as while typing (as ``pms-tui eval`` does)."""
    key = json.dumps([queries, depth, harness.retrieval_settings(kb.settings), sorted(typed)], sort_keys=True)
    cache = key_dir / f"fusion-cv-lanes-{hashlib.sha256(key.encode()).hexdigest()[:16]}.json"
    if cache.is_file():
        return json.loads(cache.read_text())
    out = {}
    measure = Measure(kb)
    for qid, text in queries:
        parsed, lanes = measure.lanes(text, depth, typing=qid in typed)  # as search ranks them
        signals = measure.signals(parsed, lanes)
        out[qid] = {"bm25": lanes.get("bm25", []), "vector": lanes.get("vector", []),
                    "coverage": signals.coverage, "gap": signals.gap}
    cache.write_text(json.dumps(out))
    return out


class Collection:
    """One collection's cached lanes, judgments and query kinds."""

    def __init__(self, name: str, kind: str, lanes: dict, qrels: dict, kinds: dict, docs: dict[int, str]):
        self.name, self.kind, self.lanes, self.qrels, self.kinds, self.docs = name, kind, lanes, qrels, kinds, docs
        self.metric = "ndcg@10" if kind == "beir" else "mrr@10"

    def ranked(self, qid: str, chunk_ids) -> list[str]:
        ranked = metrics.unique(self.docs.get(int(c)) for c in chunk_ids)
        return [d for d in ranked if d != qid] if self.kind == "beir" else ranked

    def score(self, run_of) -> dict[str, float]:
        """{group: mean metric}: "all", and each query kind of a known-item set."""
        groups: dict[str, list[float]] = defaultdict(list)
        for qid, lanes in self.lanes.items():
            judged = self.qrels.get(qid)
            if not judged:
                continue
            ranked = self.ranked(qid, run_of(lanes))
            value = metrics.ndcg_at(ranked, judged, 10) if self.kind == "beir" else metrics.mrr_at(ranked, judged, 10)
            groups["all"].append(value)
            if self.kind != "beir":
                groups[self.kinds[qid]].append(value)
        return {g: statistics.fmean(v) for g, v in groups.items()}


def fused_ids(lanes: dict, thresholds: lane_trust.Thresholds | None, rrf_k: int = REFERENCE_K) -> list[int]:
    ids = {name: [c for c, _ in lanes[name]] for name in ("bm25", "vector")}
    weights = {"bm25": 1.0, "vector": 1.0}
    if thresholds is None:
        fusion = lane_trust.plain(ids, rrf_k, weights)
    else:
        signals = lane_trust.Signals(lanes["coverage"], lanes["gap"])
        fusion = lane_trust.decide(signals, ids, rrf_k, weights, thresholds)
    return [f.chunk_id for f in fuse(ids, fusion.k, fusion.weights)]


def load_beir(folder: str) -> Collection:
    prep = beir.prepare(folder)
    judged = set(metrics.judged_queries(prep.qrels))
    queries = [(q, t) for q, t in prep.topics.items() if q in judged]
    lanes = collect(prep.kb, queries, 300, harness.cache_root() / prep.build.key)
    docs = {cid: prep.mapping.get(path) for cid, path in Measure(prep.kb).chunk_notes().items()}
    prep.kb.close()
    return Collection(Path(folder).name, "beir", lanes, prep.qrels, {}, docs)


def load_known_item(file: str, folder: str) -> Collection:
    items = known_item.read_queries(file)
    kb, build = known_item.open_collection(folder)
    lanes = collect(kb, [(i.qid, i.query) for i in items], 50, harness.cache_root() / build.key,
                    known_item.typed_ids(items))
    docs = Measure(kb).chunk_notes()
    kb.close()
    return Collection(Path(file).stem, "known-item", lanes, {i.qid: dict.fromkeys(i.targets, 1) for i in items},
                      {i.qid: i.kind for i in items}, docs)


def cross_validate(collections: list[Collection]) -> dict:
    grid = settings_grid()
    lanes_only = {c.name: {lane: c.score(lambda L, lane=lane: [x for x, _ in L[lane]]) for lane in ("bm25", "vector")}
                  for c in collections}
    scores = {(c.name, i): c.score(lambda L, g=g: fused_ids(L, g.thresholds, g.rrf_k))
              for c in collections for i, g in enumerate(grid)}

    margins = {key: over_better_lane(groups, lanes_only[key[0]]) for key, groups in scores.items()}

    def shortfall(name: str, i: int) -> float:
        return sum(min(0.0, m) for m in margins[(name, i)].values())

    def objective(i: int, names: list[str]) -> float:
        return sum(OBJECTIVE_SHORTFALL_WEIGHT * shortfall(n, i) + scores[(n, i)]["all"] - scores[(n, 0)]["all"]
                   for n in names)

    report = {"grid": {"rrf_k": list(RRF_K), **{k: list(v) for k, v in GRID.items()}}, "held_out": []}
    names = [c.name for c in collections]
    for held in names:
        others = [n for n in names if n != held]
        chosen = max(range(len(grid)), key=lambda i: (objective(i, others), -i))
        report["held_out"].append({
            "collection": held, "chosen_on": others, "chosen": _describe(grid[chosen]),
            "plain": _rounded(scores[(held, 0)]), "query_aware": _rounded(scores[(held, chosen)]),
            "bm25": _rounded(lanes_only[held]["bm25"]), "vector": _rounded(lanes_only[held]["vector"]),
        })
    everywhere = max(range(len(grid)), key=lambda i: (objective(i, names), -i))
    report["chosen_on_all"] = _describe(grid[everywhere])
    report["default"] = {n: _rounded(scores[(n, grid.index(DEFAULT))]) for n in names}
    report["ceiling"] = ceiling(grid, margins, names)
    return report


def over_better_lane(groups: dict[str, float], lanes: dict[str, dict[str, float]]) -> dict[str, float]:
    """{group: its figure minus the better of its two lanes' (below zero: below that lane)}."""
    return {g: v - max(lanes["bm25"][g], lanes["vector"][g]) for g, v in groups.items()}


def ceiling(grid: list[Setting], margins: dict, names: list[str]) -> dict:
    """Per collection and group, the most any setting on the grid reaches over the better lane
    (in-sample), with the setting that does it and how many settings leave the group not below;
    plus how many settings leave no group below anywhere. A group whose best is below zero
    cannot be lifted by choosing on this grid."""
    settings = range(len(grid))
    out: dict = {"settings": len(grid), "settings_with_no_group_below": sum(
        all(m >= -1e-9 for n in names for m in margins[(n, i)].values()) for i in settings)}
    for n in names:
        out[n] = {}
        for g in margins[(n, 0)]:
            gains = [margins[(n, i)][g] for i in settings]
            top = max(settings, key=lambda i: (round(gains[i], 9), -i))
            out[n][g] = {"best_minus_better_lane": round(gains[top], 4), "best_setting": _describe(grid[top]),
                         "settings_not_below": sum(v >= -1e-9 for v in gains)}
    return out


def _describe(setting: Setting) -> dict:
    rule = "plain RRF" if setting.thresholds is None else setting.thresholds.__dict__
    return {"rrf_k": setting.rrf_k, "rule": rule}


def _rounded(groups: dict[str, float]) -> dict[str, float]:
    return {g: round(v, 4) for g, v in groups.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python research/fusion_cv.py")
    parser.add_argument("--beir", action="append", default=[], metavar="DIR")
    parser.add_argument("--known-item", action="append", nargs=2, default=[], metavar=("FILE", "DIR"))
    args = parser.parse_args(argv)
    if len(args.beir) + len(args.known_item) < 2:
        parser.error("give at least two collections (one is held out, the others choose)")
    collections = [load_beir(d) for d in args.beir] + [load_known_item(f, d) for f, d in args.known_item]
    json.dump(cross_validate(collections), sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
