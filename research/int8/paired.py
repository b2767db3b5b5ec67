"""Gate 2 of the int8 brief, paired: the integer-product model against the shipped one, per
query, with the paired bootstrap `pms-tui eval` uses (metrics.paired_bootstrap).

Both indexes must have been built by `pms-tui eval` first (docs/evaluation.md, "Reproduce"):
the shipped model's in the default eval cache, the integer model's under ``--int8-cache``
(``PMS_TUI_EVAL_CACHE=/tmp/eval-int8 PMS_TUI_MODEL=pms-tui/all-MiniLM-L6-v2-int8-dynamic``).
Main metric: nDCG@10 for a BEIR collection, MRR@10 for a known-item set.

    python research/int8/paired.py --int8-cache /tmp/eval-int8 \\
        --beir ../shared/corpora/beir/scifact \\
        --known-item docs/known-item-til.jsonl ../shared/corpora/markdown/jbranchaud-til [--modes vector,hybrid]
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def scores(kind: str, args: list[str], model: str, cache: str | None, modes: list[str]) -> dict[str, dict]:
    from pms_tui.eval import beir, harness, known_item, metrics

    if cache:
        os.environ["PMS_TUI_EVAL_CACHE"] = cache
    else:
        os.environ.pop("PMS_TUI_EVAL_CACHE", None)
    settings = replace(harness.eval_settings(), model=model)
    out: dict[str, dict] = {}
    if kind == "beir":
        prep = beir.prepare(args[0], settings, quiet=True)
        kb, build = prep.kb, prep.build
        judged = set(metrics.judged_queries(prep.qrels))
        queries = [(q, t) for q, t in prep.topics.items() if q in judged]
        try:
            assert build.cached, f"{args[0]}: the {model} index was not built yet"
            for mode in modes:
                run = harness.run_mode(kb, queries, mode, lambda h: prep.mapping.get(h.relpath), exclude_self=True).run
                each = metrics.per_query(run, prep.qrels, [q for q, _ in queries])
                out[mode] = {q: s["ndcg@10"] for q, s in each.items()}
        finally:
            kb.close()
        return out
    items = known_item.read_queries(args[0])
    kb, build = known_item.open_collection(args[1], settings, quiet=True)
    try:
        assert build.cached, f"{args[1]}: the {model} index was not built yet"
        for mode in modes:
            run = harness.run_mode(kb, [(i.qid, i.query) for i in items], mode, lambda h: h.relpath, depth=50).run
            out[mode] = {i.qid: known_item.score(run.get(i.qid, []), i.target)["mrr@10"] for i in items}
    finally:
        kb.close()
    return out


def main() -> None:
    from pms_tui.core.indexing.embed import INTEGER_MODEL, SHIPPED_MODEL
    from pms_tui.eval import metrics

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--int8-cache", required=True)
    parser.add_argument("--shipped-cache", default=None, help="default: the user cache's eval folder")
    parser.add_argument("--beir", action="append", default=[], nargs=1)
    parser.add_argument("--known-item", action="append", default=[], nargs=2, metavar=("FILE", "FOLDER"))
    parser.add_argument("--modes", default="vector,hybrid")
    args = parser.parse_args()
    modes = args.modes.split(",")
    sets = [("beir", b) for b in args.beir] + [("known-item", k) for k in args.known_item]
    print(f"{'collection':28} {'mode':7} {'shipped':>8} {'integer':>8} {'diff':>7}  95% interval (paired bootstrap)")
    for kind, paths in sets:
        shipped = scores(kind, paths, SHIPPED_MODEL, args.shipped_cache, modes)
        integer = scores(kind, paths, INTEGER_MODEL, args.int8_cache, modes)
        name = Path(paths[-1]).name
        for mode in modes:
            qids = sorted(shipped[mode])
            a, b = [integer[mode][q] for q in qids], [shipped[mode][q] for q in qids]
            diff, low, high = metrics.paired_bootstrap(a, b)
            print(f"{name:28} {mode:7} {sum(b) / len(b):8.4f} {sum(a) / len(a):8.4f} {diff:+7.4f}  [{low:+.4f}, {high:+.4f}]",
                  flush=True)
    print("load average", os.getloadavg())


if __name__ == "__main__":
    main()
