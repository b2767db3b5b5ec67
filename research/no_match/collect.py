"""Signals of "no note matches well" for negative and known-item queries, one JSON line each.

For each collection: its known-item queries (target must stay visible) and its negative
queries (docs/negative-*.jsonl: the answer is in no note), run through the product's hybrid
search on the eval cache's index of the folder (``pms-tui eval known-item`` builds the same
one). Each line holds the signals ``pms_tui.core.search.match_quality`` reads (the same
function computes them) and the rank of a known-item query's target.

    PMS_TUI_EVAL_CACHE=... python research/no_match/collect.py \
        til docs/known-item-til.jsonl docs/negative-til.jsonl ../shared/corpora/markdown/jbranchaud-til \
        > signals-til.jsonl
"""

from __future__ import annotations

import json
import sys

from pms_tui.core.search import match_quality
from pms_tui.eval import known_item


def read(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def main(name: str, known_file: str, negative_file: str, folder: str) -> None:
    kb, build = known_item.open_collection(folder, quiet=True)
    model = kb.settings.model
    retrieval = kb.retrieval
    rows = [(q, False) for q in read(known_file)] + [(q, True) for q in read(negative_file)]
    for item, negative in rows:
        parsed, ranked_by = retrieval.lanes(item["query"], kb.settings.lane_depth, "hybrid")
        similarity, coverage = match_quality.signals(retrieval.signal_sources(), parsed.match_text, ranked_by, None)
        notes = []
        for hit in kb.search(item["query"], k=30):
            if hit.relpath not in notes:
                notes.append(hit.relpath)
        target = item.get("target", "").lstrip("./")
        rank = notes.index(target) + 1 if target in notes else None
        print(json.dumps({
            "collection": name, "model": model, "qid": item["qid"], "kind": item.get("kind"),
            "negative": negative, "similarity": similarity, "coverage": coverage,
            "target_rank": rank, "chunks": build.chunks,
        }, ensure_ascii=False), flush=True)
    kb.close()


if __name__ == "__main__":
    main(*sys.argv[1:5])
