"""Leave-one-collection-out cross-validation of a question signal for query-aware fusion: is a
query asked in words (``question.asked`` beside this file), and if so, does BM25 get its own
confidence threshold, contradiction gap and weight (``Rule`` below, around the product's
``lane_trust.decide``)?

    python research/questions/question_cv.py NAME KNOWN.jsonl NEGATIVE.jsonl DIR [NAME ...] > report.json

For every collection, each query's two lanes, its coverage and gap signals and whether it is
asked in words are computed once with the product's own code (``Measure.lanes`` and
``Measure.signals``: parsed and ranked as ``search`` does, prefix queries as while typing), at
the known-item evaluation's depth (50), and cached beside the evaluation's index. Every
setting of the question rule is then fused offline with ``lane_trust.decide`` and ``fuse``,
notes taken at their best passage. The reference is the product's setting without the rule.

Each collection in turn is held out; the setting is chosen on the others by fusion_cv's
objective: (1) no group (a collection, or one of its query kinds) below the better of its two
lanes (shortfalls summed, weighted 3); (2) the MRR@10 gain over the reference. Reported per
collection and kind: BM25, vector, the hybrid before (reference) and after (held-out choice),
with paired-bootstrap 95% intervals of after minus before and after minus the better lane;
and "no note matches well" (``match_quality``'s rule) on the negatives and on the known-item
queries whose target the hybrid shows in its top 10.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pms_tui.core.config import Settings  # noqa: E402
from pms_tui.core.kb_measure import Measure  # noqa: E402
from pms_tui.core.search import lane_trust, match_quality  # noqa: E402
from pms_tui.core.search.fusion import fuse  # noqa: E402
from pms_tui.eval import harness, known_item, metrics  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from question import asked  # noqa: E402

DEPTH = 50
SHORTFALL_WEIGHT = 3.0


@dataclasses.dataclass(frozen=True)
class Rule:
    """The product's thresholds, and what changes for a query asked in words."""

    product: lane_trust.Thresholds
    asked_weight: float = 1.0  # BM25's weight multiplied by this when it is not confident
    asked_coverage: float | None = None  # the confident rule's coverage for an asked query (None: the same)
    asked_gap: float | None = None  # the contradiction gap for an asked query (None: the same)
    asked_vector_k: int | None = None  # the vector lane's k for an asked query (None: RRF's k)

    def decide(self, signals: lane_trust.Signals, is_asked: bool, lanes, rrf_k: int, weights: dict) -> lane_trust.Fusion:
        if not is_asked:
            return lane_trust.decide(signals, lanes, rrf_k, weights, self.product)
        t = dataclasses.replace(self.product,
                                coverage=self.product.coverage if self.asked_coverage is None else self.asked_coverage,
                                gap=self.product.gap if self.asked_gap is None else self.asked_gap)
        fusion = lane_trust.decide(signals, lanes, rrf_k, weights, t)
        confident = signals.coverage is not None and signals.coverage >= t.coverage
        if "bm25" in fusion.weights and "vector" in fusion.weights and not confident and self.asked_weight != 1.0:
            fusion.weights["bm25"] *= self.asked_weight
        if "vector" in fusion.k and self.asked_vector_k is not None:
            fusion.k["vector"] = min(fusion.k["vector"], self.asked_vector_k)
        return fusion


BASE = Rule(lane_trust.Thresholds.of(Settings()))  # the product's rule: an asked query as any other
GRID = {
    "asked_weight": (1.0, 0.75, 0.5, 0.35, 0.25, 0.1),
    "asked_coverage": (None, 0.85, 1.01),  # None: the rule's own; 1.01: never confident
    "asked_gap": (None, 0.05, 0.0),  # None: the rule's own
    "asked_vector_k": (None, 1, 2),  # None: RRF's k (the product's 3)
}


def grid() -> list[Rule]:
    out = [BASE]
    for values in itertools.product(*GRID.values()):
        t = dataclasses.replace(BASE, **dict(zip(GRID, values)))
        if t != BASE:
            out.append(t)
    return out


def read(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def collect(name: str, known: str, negative: str, folder: str) -> dict:
    items = read(known)
    negatives = read(negative)
    kb, build = known_item.open_collection(folder, quiet=True)
    typed = {i["qid"] for i in items if i.get("kind") == known_item.TYPED_KIND}
    queries = [(i["qid"], i["query"]) for i in items + negatives]
    key = json.dumps([queries, DEPTH, harness.retrieval_settings(kb.settings), sorted(typed),
                      Path(__file__).read_bytes().hex()[:0]], sort_keys=True)
    cache = harness.cache_root() / build.key / f"questions-{hashlib.sha256(key.encode()).hexdigest()[:16]}.json"
    if cache.is_file():
        kb.close()
        return json.loads(cache.read_text())
    measure = Measure(kb)
    lanes_of = {}
    for qid, text in queries:
        parsed, lanes = measure.lanes(text, DEPTH, typing=qid in typed)
        signals = measure.signals(parsed, lanes) if len(lanes) >= 2 else lane_trust.Signals(None, None)
        bm25 = lanes.get("bm25")
        lanes_of[qid] = {"bm25": bm25 or [], "vector": lanes.get("vector") or [], "lanes": sorted(lanes),
                         "coverage": signals.coverage, "gap": signals.gap, "asked": asked(parsed.match_text),
                         "flag_coverage": None if bm25 is None else (
                             0.0 if not bm25 else (signals.coverage if signals.coverage is not None else
                                                   lane_trust.coverage(kb.retrieval.signal_sources(),
                                                                       parsed.match_text, bm25[0][0]) or 0.0))}
    data = {"name": name, "model": kb.settings.model, "lanes": lanes_of, "docs": Measure(kb).chunk_notes(),
            "items": items, "negatives": negatives, "chunks": build.chunks}
    kb.close()
    cache.write_text(json.dumps(data))
    return json.loads(cache.read_text())


def ranked(data: dict, qid: str, mode: str, thresholds: Rule) -> list[str]:
    lanes = data["lanes"][qid]
    if mode in ("bm25", "vector"):
        ids = [c for c, _ in lanes[mode]]
    else:
        present = {lane: [c for c, _ in lanes[lane]] for lane in lanes["lanes"]}
        signals = lane_trust.Signals(lanes["coverage"], lanes["gap"])
        s = Settings()
        fusion = thresholds.decide(signals, lanes["asked"], present, s.rrf_k,
                                   {"bm25": s.bm25_weight, "vector": s.vector_weight})
        ids = [f.chunk_id for f in fuse(present, fusion.k, fusion.weights)]
    return metrics.unique(data["docs"].get(str(c)) for c in ids)


def per_query(data: dict, mode: str, thresholds: Rule = BASE) -> dict[str, float]:
    return {i["qid"]: metrics.mrr_at(ranked(data, i["qid"], mode, thresholds), {i["target"].lstrip("./"): 1}, 10)
            for i in data["items"]}


def groups(data: dict) -> dict[str, list[str]]:
    out: dict[str, list[str]] = defaultdict(list)
    for i in data["items"]:
        out["all"].append(i["qid"])
        out[i["kind"]].append(i["qid"])
        out["asked" if data["lanes"][i["qid"]]["asked"] else "not asked"].append(i["qid"])
    return dict(out)


def mean(values: dict[str, float], qids: list[str]) -> float:
    return statistics.fmean(values[q] for q in qids)


def cross_validate(collections: list[dict]) -> dict:
    settings = grid()
    lanes = {c["name"]: {m: per_query(c, m) for m in ("bm25", "vector")} for c in collections}
    runs = {(c["name"], i): per_query(c, "hybrid", t) for c in collections for i, t in enumerate(settings)}
    kinds = {c["name"]: {g: q for g, q in groups(c).items() if g not in ("asked", "not asked")} for c in collections}

    def objective(i: int, names: list[str]) -> float:
        total = 0.0
        for n in names:
            for g, qids in kinds[n].items():
                better = max(mean(lanes[n]["bm25"], qids), mean(lanes[n]["vector"], qids))
                total += SHORTFALL_WEIGHT * min(0.0, mean(runs[(n, i)], qids) - better)
            total += mean(runs[(n, i)], kinds[n]["all"]) - mean(runs[(n, 0)], kinds[n]["all"])
        return total

    names = [c["name"] for c in collections]
    report: dict = {"grid": {k: list(v) for k, v in GRID.items()}, "held_out": {}}
    for c in collections:
        n = c["name"]
        chosen = max(range(len(settings)), key=lambda i: (round(objective(i, [m for m in names if m != n]), 9), -i))
        report["held_out"][n] = {"chosen": describe(settings[chosen]),
                                 "groups": table(c, lanes[n], runs[(n, 0)], runs[(n, chosen)]),
                                 "no_match": no_match(c, runs[(n, 0)], runs[(n, chosen)])}
    everywhere = max(range(len(settings)), key=lambda i: (round(objective(i, names), 9), -i))
    report["chosen_on_all"] = describe(settings[everywhere])
    report["on_all"] = {c["name"]: table(c, lanes[c["name"]], runs[(c["name"], 0)], runs[(c["name"], everywhere)])
                        for c in collections}
    return report


def describe(t: Rule) -> dict:
    return {k: getattr(t, k) for k in GRID}


def table(data: dict, lanes: dict, before: dict, after: dict) -> dict:
    out = {}
    for g, qids in groups(data).items():
        b, v = [lanes["bm25"][q] for q in qids], [lanes["vector"][q] for q in qids]
        x, y = [before[q] for q in qids], [after[q] for q in qids]
        better = v if statistics.fmean(v) >= statistics.fmean(b) else b
        d1, lo1, hi1 = metrics.paired_bootstrap(y, x)
        d2, lo2, hi2 = metrics.paired_bootstrap(y, better)
        d3, lo3, hi3 = metrics.paired_bootstrap(x, better)
        out[g] = {"n": len(qids), "bm25": r(statistics.fmean(b)), "vector": r(statistics.fmean(v)),
                  "before": r(statistics.fmean(x)), "after": r(statistics.fmean(y)),
                  "after_minus_before": [r(d1), r(lo1), r(hi1)],
                  "before_minus_better_lane": [r(d3), r(lo3), r(hi3)],
                  "after_minus_better_lane": [r(d2), r(lo2), r(hi2)]}
    return out


def no_match(data: dict, before: dict, after: dict) -> dict:
    """Flagged negatives per kind, and flagged known-item queries whose target the hybrid shows
    in its top 10 (before and after: only the ranking moves, the flag does not)."""
    def flag(qid: str) -> bool | None:
        lanes = data["lanes"][qid]
        similarity = round(1.0 - float(lanes["vector"][0][1]), 6) if lanes["vector"] else None
        return match_quality.judge(similarity, lanes["flag_coverage"], data["model"])
    out: dict = {}
    for kind in sorted({q["kind"] for q in data["negatives"]}):
        flags = [flag(q["qid"]) for q in data["negatives"] if q["kind"] == kind]
        out[f"negatives {kind}"] = f"{sum(f is True for f in flags)}/{len(flags)} flagged" + (
            f" ({sum(f is None for f in flags)} unknown)" if None in flags else "")
    for label, run in (("before", before), ("after", after)):
        found = [i["qid"] for i in data["items"] if run[i["qid"]] > 0]
        out[f"found targets flagged {label}"] = f"{sum(flag(q) is True for q in found)}/{len(found)}"
    return out


def r(x: float) -> float:
    return round(x, 4)


def main(argv: list[str]) -> int:
    if len(argv) % 4 or len(argv) < 8:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    collections = [collect(*argv[i:i + 4]) for i in range(0, len(argv), 4)]
    json.dump(cross_validate(collections), sys.stdout, indent=1, ensure_ascii=False)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
