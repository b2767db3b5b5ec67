"""``pms-tui eval``: print an evaluation as a table, or as JSON with ``--json``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from . import harness
from .references import published_for


def _index_line(build: dict) -> str:
    state = "cached" if build["cached"] else "built now"
    rate = f", {build['chunks_per_second']:.1f} chunks/s" if build["chunks_per_second"] else ""
    return (
        f"index: {build['documents']} notes, {build['chunks']} chunks, {build['vectors']} vectors; "
        f"a {build['build_seconds']:.0f} s build{rate}, {build['embed_seconds']:.0f} s in the model "
        f"summed over its threads ({state})\n"
        f"       model {build['settings']['model']}, chunk_target {build['settings']['chunk_target']}, "
        f"chunk_overlap {build['settings']['chunk_overlap']}; {build['path']}"
    )


def print_beir(report: dict) -> None:
    print(f"{report['collection']}: {report['queries']} judged queries, {report['documents']} documents")
    print(_index_line(report["index"]))
    r = report["retrieval"]
    print("retrieval: " + ", ".join(f"{k}={v}" for k, v in r.items()))
    print()
    print(f"{'mode':<8} {'nDCG@10':>8} {'Recall@100':>11} {'MRR@10':>8} {'median ms':>10} {'p95 ms':>8}")
    for mode, m in report["modes"].items():
        print(f"{mode:<8} {m['ndcg@10']:>8.4f} {m['recall@100']:>11.4f} {m['mrr@10']:>8.4f} "
              f"{m['median_ms']:>10.1f} {m['p95_ms']:>8.1f}")
    print_against_better_lane(report, "nDCG@10")
    published = published_for(report["collection"])
    if published:
        print("\npublished nDCG@10: " + "; ".join(f"{name} {value:.3f}" for name, value, _ in published))


def print_against_better_lane(report: dict, metric: str) -> None:
    """The hybrid against the better of its lanes, per group, with a 95% interval."""
    rows = report.get("against_better_lane") or {}
    if not rows:
        return
    print(f"\nhybrid minus the better lane ({metric}; 95% interval, paired bootstrap over the queries):")
    for group, r in rows.items():
        low, high = r["ci95"]
        print(f"  {group:<12} n={r['n']:<4} {r['better_lane']:<6} {r['diff']:+.3f}  [{low:+.3f}, {high:+.3f}]")


def print_summary(reports: list[dict]) -> None:
    """One line per collection and mode, after the per-collection tables."""
    print(f"\n{'collection':<24} {'mode':<8} {'nDCG@10':>8} {'Recall@100':>11} {'MRR@10':>8}")
    for report in reports:
        name = Path(report["collection"]).name[:24]
        for mode, m in report["modes"].items():
            print(f"{name:<24} {mode:<8} {m['ndcg@10']:>8.4f} {m['recall@100']:>11.4f} {m['mrr@10']:>8.4f}")


def print_known_item(report: dict) -> None:
    print(f"{report['collection']}: {report['queries']} known-item queries from {report['file']}")
    print(_index_line(report["index"]))
    print("retrieval: " + ", ".join(f"{k}={v}" for k, v in report["retrieval"].items()))
    print()
    print(f"{'mode':<8} {'kind':<12} {'n':>4} {'R@1':>6} {'R@5':>6} {'MRR@10':>7} {'median ms':>10}")
    for mode, m in report["modes"].items():
        rows = [("all", m["overall"])] + sorted(m["by_kind"].items())
        for kind, s in rows:
            ms = f"{m['median_ms']:>10.1f}" if kind == "all" else ""
            print(f"{mode:<8} {kind:<12} {s['n']:>4} {s['recall@1']:>6.3f} {s['recall@5']:>6.3f} "
                  f"{s['mrr@10']:>7.3f} {ms}")
    print_against_better_lane(report, "MRR@10")
    missing = report.get("missing_targets") or []
    if missing:
        print(f"\n{len(missing)} targets are not indexed notes: {', '.join(missing[:5])}")


def run_eval(args) -> int:
    modes = harness.modes_for(args.mode)
    if args.eval_kind == "beir":
        from .beir import evaluate

        folders = args.dir if isinstance(args.dir, list) else [args.dir]
        reports = [evaluate(folder, modes, limit=args.limit) for folder in folders]
        if len(reports) > 1:
            if args.json:
                json.dump({"collections": reports}, sys.stdout, ensure_ascii=False, indent=2)
                sys.stdout.write("\n")
                return 0
            for report in reports:
                print_beir(report)
                print()
            print_summary(reports)
            return 0
        report = reports[0]
        printer = print_beir
    else:
        from .known_item import evaluate as evaluate_known_items

        report = evaluate_known_items(args.file, args.collection, modes)
        printer = print_known_item
    if args.json:
        json.dump(report, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        printer(report)
    return 0
