"""Choose the "no note matches well" rule per model by leave-one-collection-out
cross-validation over the signal files that collect.py wrote.

Rules tried: similarity < s; coverage < c; both (similarity < s and coverage < c). A rule
*flags* a query. On the training collections the rule and thresholds that flag the most
negative queries while flagging at most 5% of the known-item queries (their targets would be
shown dimmed: counted hidden whether or not the target was found) win; ties go to the fewer
known-item queries flagged, then the lower thresholds. The chosen rule is then reported on
the held-out collection, and the rule fitted on every collection is the product's.

    python research/no_match/calibrate.py signals-*.jsonl
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict

MAX_HIDDEN = 0.05
SIMS = [round(i * 0.005, 3) for i in range(0, 201)]
COVS = [round(i * 0.05, 2) for i in range(0, 21)] + [1.01]


def flags(row, rule, s, c) -> bool:
    sim = row["similarity"] if row["similarity"] is not None else 1.0
    cov = row["coverage"] if row["coverage"] is not None else 1.0
    if rule == "similarity":
        return sim < s
    if rule == "coverage":
        return cov < c
    return sim < s and cov < c


def rates(rows, rule, s, c) -> tuple[float, float, float, int, int]:
    """(negatives flagged, known-item queries flagged, known-item found in top 10 and
    flagged, n negatives, n known)."""
    neg = [r for r in rows if r["negative"]]
    known = [r for r in rows if not r["negative"]]
    flagged_neg = sum(flags(r, rule, s, c) for r in neg) / max(1, len(neg))
    flagged_known = sum(flags(r, rule, s, c) for r in known) / max(1, len(known))
    hidden_found = sum(flags(r, rule, s, c) and (r["target_rank"] or 99) <= 10 for r in known) / max(1, len(known))
    return flagged_neg, flagged_known, hidden_found, len(neg), len(known)


def fit(rows, rules=("similarity", "coverage", "both")) -> tuple[str, float, float]:
    """The best rule on ``rows``, the constraint checked per collection (each at most 5%)."""
    by_collection = defaultdict(list)
    for r in rows:
        by_collection[r["collection"]].append(r)
    best = None
    for rule in rules:
        for s in (SIMS if rule != "coverage" else [0.0]):
            for c in (COVS if rule != "similarity" else [0.0]):
                per = [rates(rs, rule, s, c) for rs in by_collection.values()]
                if any(p[1] > MAX_HIDDEN for p in per):
                    continue
                neg = sum(p[0] for p in per) / len(per)
                known = sum(p[1] for p in per) / len(per)
                key = (neg, -known, -s, -c)
                if best is None or key > best[0]:
                    best = (key, rule, s, c)
    if best is None:
        return rules[0], 0.0, 0.0
    return best[1], best[2], best[3]


def describe(rule, s, c) -> str:
    if rule == "similarity":
        return f"similarity < {s}"
    if rule == "coverage":
        return f"coverage < {c}"
    return f"similarity < {s} and coverage < {c}"


def main(files: list[str]) -> None:
    rows = [json.loads(line) for f in files for line in open(f, encoding="utf-8") if line.strip()]
    for model in sorted({r["model"] for r in rows}):
        for rules in (("similarity",), ("coverage",), ("similarity", "coverage", "both")):
            report(model, [r for r in rows if r["model"] == model], rules)


def report(model, mine, rules) -> None:
    collections = sorted({r["collection"] for r in mine})
    print(f"model {model}, rules tried: {', '.join(rules)}")
    if True:
        for held in collections:
            train = [r for r in mine if r["collection"] != held]
            test = [r for r in mine if r["collection"] == held]
            if not train:
                continue
            rule, s, c = fit(train, rules)
            neg, known, found, n_neg, n_known = rates(test, rule, s, c)
            print(f"  held out {held:<12} rule fitted on {', '.join(x for x in collections if x != held)}: "
                  f"{describe(rule, s, c)} -> negatives flagged {neg:.0%} of {n_neg}, known-item flagged "
                  f"{known:.1%} of {n_known} (found in top 10 and flagged {found:.1%})")
        rule, s, c = fit(mine, rules)
        print(f"  fitted on all ({', '.join(collections)}): {describe(rule, s, c)}")
        for held in collections:
            test = [r for r in mine if r["collection"] == held]
            neg, known, found, n_neg, n_known = rates(test, rule, s, c)
            print(f"    {held:<12} negatives flagged {neg:.0%} of {n_neg}, known-item flagged {known:.1%} "
                  f"of {n_known} (found in top 10 and flagged {found:.1%})")


if __name__ == "__main__":
    main(sys.argv[1:])
