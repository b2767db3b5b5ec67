"""The "no note matches well" signals of question_cv.py's cached collections, one JSON line per
query in research/no_match/collect.py's format, for research/no_match/calibrate.py:

    python research/questions/signals.py NAME KNOWN.jsonl NEGATIVE.jsonl DIR [NAME ...] > signals.jsonl
    python research/no_match/calibrate.py signals.jsonl
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import question_cv  # noqa: E402



def main(argv: list[str]) -> None:
    product = question_cv.BASE
    for i in range(0, len(argv), 4):
        data = question_cv.collect(*argv[i:i + 4])
        for item, negative in [(q, False) for q in data["items"]] + [(q, True) for q in data["negatives"]]:
            lanes = data["lanes"][item["qid"]]
            target = item.get("target", "").lstrip("./")
            notes = question_cv.ranked(data, item["qid"], "hybrid", product)[:30]
            print(json.dumps({
                "collection": data["name"], "model": data["model"], "qid": item["qid"], "kind": item.get("kind"),
                "negative": negative,
                "similarity": round(1.0 - float(lanes["vector"][0][1]), 6) if lanes["vector"] else None,
                "coverage": lanes["flag_coverage"], "asked": lanes["asked"],
                "target_rank": notes.index(target) + 1 if target in notes else None, "chunks": data["chunks"],
            }, ensure_ascii=False))


if __name__ == "__main__":
    main(sys.argv[1:])
