"""Choose the "no note matches well" rule per model by leave-one-collection-out
cross-validation over the signal files that collect.py wrote.

Rules tried: similarity < s; coverage < c; both (similarity < s and coverage < c); either
(both, or a share ``a`` of the query's idf weight in words no passage of the index holds:
``absent``, collect.py). A rule
*flags* a query. On the training collections the rule and thresholds that flag the most
negative queries while flagging at most 5% of the known-item queries (their targets would be
shown dimmed: counted hidden whether or not the target was found) win; ties go to the fewer
known-item queries flagged, then the lower thresholds. The chosen rule is then reported on
the held-out collection, and the rule fitted on every collection is the product's.

A query some passage holds as typed (``exact`` in the signal file) is never flagged, as the
product never calls it weak. ``--signals`` names the fields read: ``top`` (the product's: the
lanes' first passages), ``text`` (their first passage not on a contents or index page) or
``page`` (``text``'s similarity, the coverage of its whole page); see collect.py.

    python research/no_match/calibrate.py [--signals top|text|page] signals-*.jsonl
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pms_tui.core.search.match_quality import RULES  # noqa: E402

MAX_HIDDEN = 0.05
SIGNALS = {"top": ("similarity", "coverage"), "text": ("similarity_text", "coverage_text"),
           "page": ("similarity_text", "coverage_page")}
FIELDS = SIGNALS["top"]
SIMS = [round(i * 0.005, 3) for i in range(0, 201)]
COVS = [round(i * 0.05, 2) for i in range(0, 21)] + [1.01]
ABSENT = [round(i * 0.05, 2) for i in range(2, 21)] + [1.01]  # 1.01: the clause never fires
RULE_NAMES = ("similarity", "coverage", "both", "either")


def _arrays(rows):
    import numpy as np

    def col(name, default):
        return np.array([r[name] if r.get(name) is not None else default for r in rows], dtype=float)

    return (col(FIELDS[0], 1.0), col(FIELDS[1], 1.0), col("absent", 0.0),
            np.array([bool(r.get("exact")) for r in rows]))


def flag_grid(rows, rule, sims, covs, absents):
    """Boolean [row, s, c, a]: does the rule with these thresholds flag the row."""
    import numpy as np

    sim, cov, absent, exact = _arrays(rows)
    s = np.array(sims)[None, :, None, None]
    c = np.array(covs)[None, None, :, None]
    a = np.array(absents)[None, None, None, :]
    sim, cov, absent = sim[:, None, None, None], cov[:, None, None, None], absent[:, None, None, None]
    if rule == "similarity":
        out = np.broadcast_to(sim < s, (len(rows), len(sims), len(covs), len(absents)))
    elif rule == "coverage":
        out = np.broadcast_to(cov < c, (len(rows), len(sims), len(covs), len(absents)))
    elif rule == "both":
        out = np.broadcast_to((sim < s) & (cov < c), (len(rows), len(sims), len(covs), len(absents)))
    else:  # either: both, or a share ``a`` of the query's words that no passage holds
        out = ((sim < s) & (cov < c)) | (absent >= a)
    return out & ~exact[:, None, None, None]


def flags(row, rule, s, c, a=1.01) -> bool:
    return bool(flag_grid([row], rule, [s], [c], [a])[0, 0, 0, 0])


def rates(rows, rule, s, c, a=1.01) -> tuple[float, float, float, int, int]:
    """(negatives flagged, known-item queries flagged, known-item found in top 10 and
    flagged, n negatives, n known)."""
    neg = [r for r in rows if r["negative"]]
    known = [r for r in rows if not r["negative"]]
    flagged_neg = sum(flags(r, rule, s, c, a) for r in neg) / max(1, len(neg))
    flagged_known = sum(flags(r, rule, s, c, a) for r in known) / max(1, len(known))
    hidden_found = sum(flags(r, rule, s, c, a) and (r["target_rank"] or 99) <= 10 for r in known) / max(1, len(known))
    return flagged_neg, flagged_known, hidden_found, len(neg), len(known)


def fit(rows, rules=("similarity", "coverage", "both")) -> tuple[str, float, float, float]:
    """The best rule on ``rows``, the constraint checked per collection (each at most 5%):
    the most negatives flagged (mean over collections), then the fewest known-item queries,
    then the lowest thresholds."""
    import numpy as np

    by_collection = defaultdict(list)
    for r in rows:
        by_collection[r["collection"]].append(r)
    best = None
    for rule in rules:
        sims = SIMS if rule != "coverage" else [0.0]
        covs = COVS if rule != "similarity" else [0.0]
        absents = ABSENT if rule == "either" else [1.01]
        neg_rate, known_rate, ok = 0.0, 0.0, True
        for rs in by_collection.values():
            grid = flag_grid(rs, rule, sims, covs, absents)
            is_neg = np.array([r["negative"] for r in rs])
            n_neg, n_known = max(1, is_neg.sum()), max(1, (~is_neg).sum())
            known = grid[~is_neg].sum(axis=0) / n_known
            ok = ok & (known <= MAX_HIDDEN)
            neg_rate = neg_rate + grid[is_neg].sum(axis=0) / n_neg / len(by_collection)
            known_rate = known_rate + known / len(by_collection)
        for i, j, k in zip(*np.nonzero(ok)):
            key = (round(float(neg_rate[i, j, k]), 9), -round(float(known_rate[i, j, k]), 9),
                   -sims[i], -covs[j], absents[k])
            if best is None or key > best[0]:
                best = (key, rule, sims[i], covs[j], absents[k])
    if best is None:
        return rules[0], 0.0, 0.0, 1.01
    return best[1], best[2], best[3], best[4]


def describe(rule, s, c, a=1.01) -> str:
    if rule == "similarity":
        return f"similarity < {s}"
    if rule == "coverage":
        return f"coverage < {c}"
    if rule == "either" and a <= 1.0:
        return f"(similarity < {s} and coverage < {c}) or absent >= {a}"
    return f"similarity < {s} and coverage < {c}"


def main(files: list[str]) -> None:
    global FIELDS
    if files[:1] == ["--signals"]:
        FIELDS, files = SIGNALS[files[1]], files[2:]
        print(f"signals: {', '.join(FIELDS)}")
    rows = [json.loads(line) for f in files for line in open(f, encoding="utf-8") if line.strip()]
    for model in sorted({r["model"] for r in rows}):
        for rules in (("similarity",), ("coverage",), ("similarity", "coverage", "both"), ("either",)):
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
            rule, s, c, a = fit(train, rules)
            neg, known, found, n_neg, n_known = rates(test, rule, s, c, a)
            print(f"  held out {held:<12} rule fitted on {', '.join(x for x in collections if x != held)}: "
                  f"{describe(rule, s, c, a)} -> negatives flagged {neg:.0%} of {n_neg}, known-item flagged "
                  f"{known:.1%} of {n_known} (found in top 10 and flagged {found:.1%})")
        fitted = [("fitted on all (" + ", ".join(collections) + ")", fit(mine, rules))]
        if rules in (("similarity", "coverage", "both"), ("either",)):
            product = RULES.get(model)
            if product is not None:
                fitted.insert(0, ("the product's rule", ("either", product.similarity, product.coverage,
                                                         product.absent if product.absent is not None else 1.01)))
        for name, (rule, s, c, a) in fitted:
            print(f"  {name}: {describe(rule, s, c, a)}")
            for held in collections:
                test = [r for r in mine if r["collection"] == held]
                neg, known, found, n_neg, n_known = rates(test, rule, s, c, a)
                print(f"    {held:<12} negatives flagged {neg:.0%} of {n_neg}, known-item flagged {known:.1%} "
                      f"of {n_known} (found in top 10 and flagged {found:.1%}); by kind: " + per_kind(test, rule, s, c, a))


def per_kind(rows, rule, s, c, a) -> str:
    kinds = sorted({(r["negative"], r["kind"] or "") for r in rows})
    out = []
    for negative, kind in kinds:
        mine = [r for r in rows if r["negative"] == negative and (r["kind"] or "") == kind]
        out.append(f"{'neg ' if negative else ''}{kind or 'all'} {sum(flags(r, rule, s, c, a) for r in mine)}/{len(mine)}")
    return ", ".join(out)


if __name__ == "__main__":
    main(sys.argv[1:])
