"""Every query of an exact-words set through the product's search: each kind's MRR@10, R@1,
and the share the hybrid calls weak ("No note matches well").

    python research/exact_words/run.py SET.jsonl DIR [--modes bm25,hybrid] > report.json

DIR is indexed as ``pms-tui eval known-item`` indexes it (the same cached index). For the
figures before a change, run it with ``PYTHONPATH`` naming a checkout of the earlier commit:
this file imports whichever ``pms_tui`` comes first. A negative set (docs/negative-*.jsonl,
no target) reports the share flagged weak alone.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import defaultdict


def read(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def first_rank(hits, targets: set[str]) -> int | None:
    notes: list[str] = []
    for hit in hits:
        if hit.relpath not in notes:
            notes.append(hit.relpath)
            if hit.relpath in targets:
                return len(notes)
    return None


def run(rows: list[dict], folder: str, modes: list[str]) -> dict:
    from pms_tui.eval import known_item

    kb, build = known_item.open_collection(folder, quiet=True)
    per_query: dict[str, dict] = {}
    try:
        for row in rows:
            targets = set(row.get("targets") or ([row["target"]] if row.get("target") else []))
            out: dict = {"kind": row.get("kind") or "all", "query": row["query"]}
            for mode in modes:
                # a query cut mid-word is searched as the app does while typing (as pms-tui eval does)
                result = kb.search(row["query"], k=50, mode=mode, typing=row.get("kind") == known_item.TYPED_KIND)
                out[mode] = first_rank(result.hits, targets) if targets else None
                if mode == "hybrid":
                    out["weak"] = bool(result.match and result.match.weak)
            per_query[row["qid"]] = out
    finally:
        kb.close()
    return {"collection": folder, "chunks": build.chunks, "summary": summarize(per_query, modes),
            "per_query": per_query}


def summarize(per_query: dict[str, dict], modes: list[str]) -> dict:
    groups: dict[str, list[dict]] = defaultdict(list)
    for q in per_query.values():
        groups["all"].append(q)
        groups[q["kind"]].append(q)
    out = {}
    for group, qs in groups.items():
        row: dict = {"n": len(qs)}
        for mode in modes:
            ranks = [q[mode] for q in qs]
            row[f"{mode} mrr@10"] = round(statistics.fmean(1 / r if r and r <= 10 else 0.0 for r in ranks), 4)
            row[f"{mode} r@1"] = round(statistics.fmean(r == 1 for r in ranks), 4)
        if "hybrid" in modes:
            row["weak"] = round(statistics.fmean(q["weak"] for q in qs), 4)
        out[group] = row
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python research/exact_words/run.py")
    parser.add_argument("set")
    parser.add_argument("folder")
    parser.add_argument("--modes", default="bm25,hybrid")
    args = parser.parse_args(argv)
    report = run(read(args.set), args.folder, args.modes.split(","))
    json.dump(report, sys.stdout, ensure_ascii=False, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
