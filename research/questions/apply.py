"""One fixed question rule on collections it was not chosen on: MRR@10 per group, BM25, vector,
the product's hybrid (before) and with the rule (after), paired 95% intervals.

    python research/questions/apply.py --asked-coverage 1.01 [--asked-weight 0.75] \
        til-questions docs/known-item-til-questions.jsonl /dev/null ../shared/corpora/markdown/jbranchaud-til
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import question_cv  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python research/questions/apply.py")
    parser.add_argument("--asked-coverage", type=float)
    parser.add_argument("--asked-weight", type=float, default=1.0)
    parser.add_argument("--asked-gap", type=float)
    parser.add_argument("--asked-vector-k", type=int)
    parser.add_argument("sets", nargs="+", help="NAME KNOWN.jsonl NEGATIVE.jsonl DIR, repeated")
    args = parser.parse_args(argv)
    if len(args.sets) % 4:
        parser.error("give NAME KNOWN.jsonl NEGATIVE.jsonl DIR for each collection")
    rule = dataclasses.replace(question_cv.BASE, asked_coverage=args.asked_coverage, asked_weight=args.asked_weight,
                               asked_gap=args.asked_gap, asked_vector_k=args.asked_vector_k)
    out = {}
    for i in range(0, len(args.sets), 4):
        data = question_cv.collect(*args.sets[i:i + 4])
        lanes = {m: question_cv.per_query(data, m) for m in ("bm25", "vector")}
        out[data["name"]] = question_cv.table(data, lanes, question_cv.per_query(data, "hybrid"),
                                              question_cv.per_query(data, "hybrid", rule))
    json.dump({"rule": question_cv.describe(rule), "collections": out}, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
