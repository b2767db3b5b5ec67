"""``pms-tui eval known-item FILE.jsonl --collection DIR``: can a person find the note they mean?

Each line of FILE is ``{"qid": ..., "query": ..., "target": "relative/path.md", "kind": ...}``;
``"targets": [...]`` lists every note that answers it when there are several (a word two notes
hold): the first of them found counts.
DIR is indexed as one collection in a cached throwaway home (the same sync the app runs, so
a re-run only re-embeds notes that changed), every query goes through the product's search,
hits are collapsed to notes at their best chunk, and Recall@1, Recall@5 and MRR@10 of the
target note are reported overall and per ``kind``.
"""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from ..core.config import Settings
from ..core.kb_measure import Measure
from . import harness, metrics

TYPED_KIND = "prefix"  # the kind of a query cut mid-word (searched as the app does while typing)

class KnownItemError(ValueError):
    """The query file or the folder cannot be used, said in one sentence."""


@dataclass
class KnownItem:
    qid: str
    query: str
    target: str
    kind: str
    targets: tuple[str, ...] = ()  # every note that answers it (target among them)

    def __post_init__(self) -> None:
        if self.target not in self.targets:
            self.targets = (self.target, *self.targets)


def read_queries(path: str | os.PathLike) -> list[KnownItem]:
    items: list[KnownItem] = []
    path = Path(path).expanduser()
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise KnownItemError(f"Cannot read {path}: {exc.strerror or exc}.") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            targets = tuple(str(t).lstrip("./") for t in row.get("targets") or ())
            items.append(KnownItem(str(row.get("qid", number)), str(row["query"]),
                                   str(row.get("target") or targets[0]).lstrip("./"),
                                   str(row.get("kind") or "all"), targets))
        except (ValueError, KeyError, TypeError, IndexError):
            raise KnownItemError(f"{path.name} line {number} needs a JSON object with query and target.") from None
    if not items:
        raise KnownItemError(f"{path.name} holds no queries.")
    return items


def score(ranked: list[str], target: str | tuple[str, ...]) -> dict[str, float]:
    """Recall@1, Recall@5 and MRR@10 of the first of the ``target`` notes found."""
    targets = (target,) if isinstance(target, str) else target
    first = next((i for i, doc in enumerate(ranked) if doc in targets), None)
    return {
        "recall@1": float(first is not None and first < 1),
        "recall@5": float(first is not None and first < 5),
        "mrr@10": 1.0 / (first + 1) if first is not None and first < 10 else 0.0,
    }


def summarize(rows: list[dict[str, float]]) -> dict:
    if not rows:
        return {"n": 0, "recall@1": 0.0, "recall@5": 0.0, "mrr@10": 0.0}
    out = {name: round(statistics.fmean(r[name] for r in rows), 4) for name in rows[0]}
    return {"n": len(rows), **out}


def open_collection(folder: str | os.PathLike, settings: Settings | None = None, *, quiet: bool = False):
    root = Path(folder).expanduser().resolve()
    if not root.is_dir():
        raise KnownItemError(f"{root} is not a folder of notes.")
    settings = settings or harness.eval_settings()
    content = "folder:" + hashlib.sha256(str(root).encode()).hexdigest()
    key_dir = harness.cache_root() / harness.index_key("notes", content, settings)
    key_dir.mkdir(parents=True, exist_ok=True)
    return harness.open_index(key_dir, root, settings, quiet=quiet)


def typed_ids(items: list[KnownItem]) -> set[str]:
    """The queries of kind "prefix": cut mid-word, as a person sees results while typing, so
    searched as the app searches then (the last word also a prefix)."""
    return {i.qid for i in items if i.kind == TYPED_KIND}


def groups_of(items: list[KnownItem]) -> dict[str, list[str]]:
    """Query ids by group: "all", then each kind (when there is more than one)."""
    groups: dict[str, list[str]] = {"all": [i.qid for i in items]}
    kinds = sorted({i.kind for i in items})
    if len(kinds) > 1:
        groups.update({kind: [i.qid for i in items if i.kind == kind] for kind in kinds})
    return groups


def evaluate(
    file: str | os.PathLike,
    folder: str | os.PathLike,
    modes: list[str],
    *,
    depth: int = 50,
    settings: Settings | None = None,
    quiet: bool = False,
) -> dict:
    items = read_queries(file)
    kb, build = open_collection(folder, settings, quiet=quiet)
    try:
        indexed = Measure(kb).indexed_paths()
        missing = sorted({t for i in items for t in i.targets if t not in indexed})
        queries = [(i.qid, i.query) for i in items]
        typed = typed_ids(items)
        results: dict[str, dict] = {}
        per_query: dict[str, dict[str, dict]] = {}
        mrr: dict[str, dict[str, float]] = {}
        for mode in modes:
            if not quiet:
                print(f"[eval] {mode}: {len(queries)} queries ...", file=sys.stderr, flush=True)
            mr = harness.run_mode(kb, queries, mode, lambda h: h.relpath, depth=depth, typed=typed)
            by_kind: dict[str, list[dict[str, float]]] = defaultdict(list)
            rows = []
            per_query[mode] = {}
            for item in items:
                ranked = mr.run.get(item.qid, [])
                s = score(ranked, item.targets)
                rows.append(s)
                by_kind[item.kind].append(s)
                rank = next((r for r, doc in enumerate(ranked, 1) if doc in item.targets), None)
                per_query[mode][item.qid] = {"rank": rank, "top": ranked[:3]}
                mrr.setdefault(mode, {})[item.qid] = s["mrr@10"]
            results[mode] = {
                "overall": summarize(rows),
                "by_kind": {kind: summarize(r) for kind, r in sorted(by_kind.items())},
                "median_ms": round(mr.median_ms, 2),
                "p95_ms": round(mr.p95_ms, 2),
            }
        return {
            "collection": str(Path(folder).expanduser()),
            "file": str(file),
            "queries": len(items),
            "missing_targets": missing,
            "index": build.to_json(),
            "retrieval": harness.retrieval_settings(kb.settings),
            "modes": results,
            "against_better_lane": metrics.against_better_lane(mrr, groups_of(items)),
            "per_query": per_query,
        }
    finally:
        kb.close()
