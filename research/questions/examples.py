"""The issue's obsidian-help examples as the app ranks them (hybrid, finished queries), with the
question rule off and on:

    python research/questions/examples.py ../shared/corpora/markdown/obsidian-help
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pms_tui.eval import harness, known_item  # noqa: E402

EXAMPLES = [
    ("how to publish my notes as a website", "Introduction to Obsidian Publish"),
    ("canvas", "Canvas"),
    ("my links break when I rename a file", "Internal links"),
    ("how do I keep my notes in sync between my phone and laptop", "Sync your notes across devices"),
]


def main(folder: str) -> None:
    product = harness.eval_settings()
    off = dataclasses.replace(product, asked_coverage=product.confident_coverage, asked_weight=1.0)
    for label, settings in (("rule off", off), ("product", product)):
        kb, _ = known_item.open_collection(folder, settings, quiet=True)
        print(f"== {label}: asked_coverage {settings.asked_coverage}, asked_weight {settings.asked_weight}")
        for query, target in EXAMPLES:
            result = kb.search(query, k=30, mode="hybrid", typing=False)
            notes: list[str] = []
            for hit in result.hits:
                title = Path(hit.relpath).stem
                if title not in notes:
                    notes.append(title)
            rank = notes.index(target) + 1 if target in notes else None
            print(f"{query!r}: {target!r} at {rank}; weak {result.weak}")
            print("   " + " | ".join(notes[:5]))
        kb.close()


if __name__ == "__main__":
    main(sys.argv[1])
