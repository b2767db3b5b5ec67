"""The issue's obsidian-help examples as the app ranks them (hybrid, finished queries), and as
they would rank with the question rule (question_cv.py's Rule, fused offline from the same lanes):

    python research/questions/examples.py ../shared/corpora/markdown/obsidian-help
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import question_cv  # noqa: E402

from pms_tui.eval import known_item  # noqa: E402

EXAMPLES = ["oh-01", "oh-51", "oh-79", "oh-26"]  # publish as a website; canvas; links break; sync phone
RULES = {"never confident on an asked query": dataclasses.replace(question_cv.BASE, asked_coverage=1.01),
         "... and BM25 weighs 0.75 on it": dataclasses.replace(question_cv.BASE, asked_coverage=1.01, asked_weight=0.75)}


def main(folder: str) -> None:
    here = Path(__file__).resolve().parents[2]
    data = question_cv.collect("obsidian-help", str(here / "docs/known-item-obsidian-help.jsonl"),
                               str(here / "docs/negative-obsidian-help.jsonl"), folder)
    items = {i["qid"]: i for i in data["items"]}
    kb, _ = known_item.open_collection(folder, quiet=True)
    for qid in EXAMPLES:
        item = items[qid]
        target = Path(item["target"]).stem
        result = kb.search(item["query"], k=30, mode="hybrid", typing=False)
        app = list(dict.fromkeys(Path(h.relpath).stem for h in result.hits))
        print(f"{item['query']!r} -> {target!r} (asked: {data['lanes'][qid]['asked']}; weak: {result.weak})")
        print(f"  the app: #{app.index(target) + 1 if target in app else '-'}  " + " | ".join(app[:5]))
        for label, rule in RULES.items():
            ranked = [Path(p).stem for p in question_cv.ranked(data, qid, "hybrid", rule)]
            print(f"  {label}: #{ranked.index(target) + 1 if target in ranked else '-'}  " + " | ".join(ranked[:5]))
    kb.close()


if __name__ == "__main__":
    main(sys.argv[1])
