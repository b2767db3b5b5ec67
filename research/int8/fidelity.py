"""Gate 1 of the int8 brief: do the integer-product model's vectors match the shipped model's
on real text?

Chunks real notes with the product's chunker (``parse_note``, default settings) from
jbranchaud-til, tldr-pages-en and SciFact (``# title`` + text, as ``eval beir`` writes them),
takes a seeded sample of each, embeds them through the product's ``Embedder`` with both models
(the same tokenizer, pooling and normalisation), and prints the cosine between each chunk's two
vectors (mean, 1st percentile, min) and the speed of each model.

    python research/int8/fidelity.py [--per-corpus 700] [--json]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
CORPORA = Path(os.environ.get("PMS_TUI_CORPORA", "/work/shared/corpora"))


def markdown_chunks(folder: Path) -> list[str]:
    from pms_tui.core.indexing.chunk import parse_note
    from pms_tui.core.indexing.notes import walk_notes

    texts = []
    for rel, _ in sorted(walk_notes(folder)):
        note = parse_note((folder / rel).read_text(encoding="utf-8-sig"), Path(rel).name)
        texts.extend(c.embed_text for c in note.chunks)
    return texts


def scifact_chunks(folder: Path) -> list[str]:
    from pms_tui.core.indexing.chunk import parse_note

    texts = []
    with gzip.open(folder / "corpus.jsonl.gz", "rt", encoding="utf-8") as handle:
        for line in handle:
            doc = json.loads(line)
            note = parse_note(f"# {doc['title']}\n\n{doc['text']}\n", doc["_id"] + ".md")
            texts.extend(c.embed_text for c in note.chunks)
    return texts


def timed_embed(model_name: str, texts: list[str]):
    from pms_tui.core.indexing.embed import Embedder

    embedder = Embedder(model_name)
    started = time.perf_counter()
    embedder.load()
    load = time.perf_counter() - started
    embedder.embed_documents(texts[:16])  # warm up
    runs: list[float] = []
    real = embedder._run

    def counted(batch):
        runs.append(len(batch))
        return real(batch)

    embedder._run = counted
    cpu, wall = time.process_time(), time.perf_counter()
    vectors = embedder.embed_documents(texts)
    return vectors, {
        "load_s": round(load, 2),
        "wall_s": round(time.perf_counter() - wall, 2),
        "cpu_s": round(time.process_time() - cpu, 2),
        "runs": len(runs),
        "ms_per_run_wall": round(1000 * (time.perf_counter() - wall) / max(1, len(runs)) * embedder.workers, 1),
        "cpu_ms_per_chunk": round(1000 * (time.process_time() - cpu) / len(texts), 2),
    }


def main() -> None:
    import numpy as np

    from pms_tui.core.indexing.embed import INTEGER_MODEL, SHIPPED_MODEL

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-corpus", type=int, default=700)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    corpora = {
        "jbranchaud-til": markdown_chunks(CORPORA / "markdown" / "jbranchaud-til"),
        "tldr-pages-en": markdown_chunks(CORPORA / "markdown" / "tldr-pages-en"),
        "scifact": scifact_chunks(CORPORA / "beir" / "scifact"),
    }
    rng = random.Random(args.seed)
    sample = {name: rng.sample(texts, min(args.per_corpus, len(texts))) for name, texts in corpora.items()}
    texts = [t for part in sample.values() for t in part]
    shipped, shipped_speed = timed_embed(SHIPPED_MODEL, texts)
    integer, integer_speed = timed_embed(INTEGER_MODEL, texts)
    cosines = np.sum(shipped * integer, axis=1)  # both are L2-normalised

    def summary(values) -> dict:
        return {"n": len(values), "mean": round(float(values.mean()), 4),
                "p1": round(float(np.percentile(values, 1)), 4), "min": round(float(values.min()), 4)}

    result = {"all": summary(cosines)}
    start = 0
    for name, part in sample.items():
        result[name] = summary(cosines[start : start + len(part)])
        start += len(part)
    result["speed"] = {"shipped": shipped_speed, "integer": integer_speed}
    result["load_average"] = os.getloadavg()
    if args.json:
        print(json.dumps(result, indent=1))
        return
    for name, row in result.items():
        print(f"{name:16} {row}")


if __name__ == "__main__":
    main()
