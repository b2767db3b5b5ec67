"""Copy a reproducible subsample of a note collection into a scratch folder: every target of
a known-item file plus notes drawn at random (seeded) until ``--notes`` notes, paths kept.

Embedding a whole collection takes an hour on the two shared cores here; a subsample keeps
the known-item targets among distractors. Never writes into the repository.

    python research/no_match/subsample.py ../shared/corpora/markdown/tldr-pages-en \
        --known-item docs/known-item-tldr.jsonl --notes 2000 --out /tmp/sub/tldr
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
from pathlib import Path


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("folder", type=Path)
    p.add_argument("--known-item", type=Path, action="append", default=[])
    p.add_argument("--notes", type=int, required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args()
    every = sorted(str(f.relative_to(args.folder)) for f in args.folder.rglob("*.md") if f.is_file())
    targets = []
    for file in args.known_item:
        for line in file.read_text(encoding="utf-8").splitlines():
            if line.strip():
                targets.append(json.loads(line)["target"].lstrip("./"))
    chosen = list(dict.fromkeys(t for t in targets if t in set(every)))
    rest = [n for n in every if n not in set(chosen)]
    random.Random(args.seed).shuffle(rest)
    chosen += rest[: max(0, args.notes - len(chosen))]
    for rel in chosen:
        dest = args.out / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(args.folder / rel, dest)
    print(json.dumps({"folder": str(args.folder), "notes": len(chosen), "targets": len(set(targets)),
                      "of": len(every), "seed": args.seed, "out": str(args.out)}))


if __name__ == "__main__":
    main()
