"""Latin-script BM25 before and after the CJK column: SciFact and the three known-item sets,
BM25 lane only, on text-only indexes (no embedding, so it runs in minutes on a busy machine).

Run it once with the code before the change and once after, each with its own cache:

    PMS_TUI_EVAL_CACHE=/tmp/bm25-before PYTHONPATH=<old checkout> python research/cjk/latin_bm25.py
    PMS_TUI_EVAL_CACHE=/tmp/bm25-after python research/cjk/latin_bm25.py

It prints one JSON line per collection (the figures ``pms-tui eval`` prints for its bm25 row).
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

from pms_tui.core import kb as kb_module
from pms_tui.eval import beir, known_item

CORPORA = Path(__file__).resolve().parents[3] / "shared" / "corpora"
DOCS = Path(__file__).resolve().parents[2] / "docs"
KNOWN_ITEM = [
    ("til", DOCS / "known-item-til.jsonl", CORPORA / "markdown/jbranchaud-til"),
    ("tldr", DOCS / "known-item-tldr.jsonl", CORPORA / "markdown/tldr-pages-en"),
    ("powershell", DOCS / "known-item-powershell.jsonl", CORPORA / "markdown/powershell-docs/reference/7.5"),
]


def text_only() -> None:
    """Every sync of this process leaves the vectors queued (BM25 needs none)."""
    sync = kb_module.KnowledgeBase.sync
    kb_module.KnowledgeBase.sync = functools.partialmethod(sync, embed=False)


def main() -> None:
    """Every set above, or ``NAME FILE FOLDER`` given on the command line (by query kind)."""
    text_only()
    import pms_tui

    print(json.dumps({"code": pms_tui.__file__}), flush=True)
    if len(sys.argv) == 4:
        name, file, folder = sys.argv[1:]
        report = known_item.evaluate(file, folder, ["bm25"], quiet=True)
        mode = report["modes"]["bm25"]
        print(json.dumps({"collection": name, **mode["overall"], "by_kind": mode["by_kind"]}), flush=True)
        return
    for name, file, folder in KNOWN_ITEM:
        report = known_item.evaluate(file, folder, ["bm25"], quiet=True)
        print(json.dumps({"collection": name, **report["modes"]["bm25"]["overall"]}), flush=True)
    report = beir.evaluate(CORPORA / "beir/scifact", ["bm25"])
    m = report["modes"]["bm25"]
    print(json.dumps({"collection": "scifact", "ndcg@10": m["ndcg@10"], "recall@100": m["recall@100"],
                      "mrr@10": m["mrr@10"]}), flush=True)


if __name__ == "__main__":
    sys.exit(main())
