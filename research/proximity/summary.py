"""The table of ``measure.py``'s results, with the weight of each signal chosen by
leave-one-set-out cross-validation: for every set, the weight (0 = off among them) whose mean
change over the *other* sets is largest, reported on the held-out set.

    python research/proximity/summary.py /tmp/prox/bm25.jsonl [/tmp/prox/hybrid.jsonl ...]
"""

from __future__ import annotations

import json
import statistics
import sys
from collections import defaultdict


def load(paths):
    means = defaultdict(dict)  # (lane, kind) -> {(set, weight): mean}
    costs = {}
    for path in paths:
        for line in open(path, encoding="utf-8"):
            row = json.loads(line)
            if "cost" in row:
                costs[row["set"]] = row["cost"]
                continue
            means[(row["lane"], row["kind"])][(row["set"], row["weight"])] = row["mean"]
    return means, costs


def choose(table: dict, base: dict, sets: list[str], weights: list[float], held: str) -> float:
    """The weight with the largest mean change over the sets other than ``held``."""
    others = [s for s in sets if s != held]
    best, best_gain = 0.0, 0.0
    for w in weights:
        gain = statistics.fmean(table[(s, w)] - base[s] for s in others)
        if gain > best_gain + 1e-12:
            best, best_gain = w, gain
    return best


def main() -> None:
    means, costs = load(sys.argv[1:])
    for lane in ("bm25", "hybrid"):
        none = means.get((lane, "none"))
        if not none:
            continue
        base = {s: m for (s, _), m in none.items()}
        sets = sorted(base)
        print(f"\n## {lane} lane" if lane == "bm25" else "\n## hybrid")
        for kind in sorted(k for (ln, k) in means if ln == lane and k != "none"):
            table = means[(lane, kind)]
            weights = sorted({w for (_, w) in table})
            head = " | ".join(f"w {w:g}" for w in weights)
            print(f"\n{kind}: | set | off | {head} | held out (weight chosen on the others) |")
            for s in sets:
                row = " | ".join(f"{table.get((s, w), float('nan')):.4f}" for w in weights)
                w = choose(table, base, sets, weights, s)
                held = base[s] if w == 0 else table[(s, w)]
                print(f"| {s} | {base[s]:.4f} | {row} | {held:.4f} (w {w:g}) |")
    if costs:
        print("\n## cost of the proximity step (ms per query, lane depth 50)")
        for s, c in sorted(costs.items()):
            print(f"| {s} | {c} |")


if __name__ == "__main__":
    main()
