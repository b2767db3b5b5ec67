"""Gate 1 of the int8 brief: do the integer-product model's vectors match the shipped model's
on real text?

Chunks real notes with the product's chunker (``parse_note``, default settings) from
jbranchaud-til, tldr-pages-en and SciFact (``# title`` + text, as ``eval beir`` writes them),
takes a seeded sample of each, embeds them through the product's ``Embedder`` with the shipped
model and with the per-token integer copy of it (``recipes.per_token``; the same tokenizer,
batching, pooling and normalisation), and prints the cosine between each chunk's two
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
sys.path.insert(0, str(Path(__file__).resolve().parent))  # recipes.py
CORPORA = Path(os.environ.get("PMS_TUI_CORPORA") or ROOT.parent / "shared" / "corpora")  # as benchmarks/corpora.py


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


def per_token_embedder(tmp: Path):
    """An ``Embedder`` of the shipped model whose fastembed model runs the per-token integer
    file (recipes.per_token) from a copy of the bundled model's folder: the same tokenizer,
    batching, pooling and normalisation."""
    import shutil

    from fastembed import TextEmbedding

    from pms_tui.core.config import DEFAULT_MODEL
    from pms_tui.core.indexing.embed import Embedder, _register_bundled_model, bundled_model_dir
    from recipes import per_token

    folder = tmp / "per-token"
    shutil.copytree(bundled_model_dir(256), folder)  # links followed: real files
    (folder / "model.onnx").unlink()
    per_token(bundled_model_dir(256) / "model.onnx", folder / "model.onnx")
    _register_bundled_model()
    embedder = Embedder()
    embedder._model = TextEmbedding(model_name=DEFAULT_MODEL, specific_model_path=str(folder), threads=1)
    return embedder


def timed_embed(embedder, texts: list[str]):
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
        "cpu_ms_per_chunk": round(1000 * (time.process_time() - cpu) / len(texts), 2),
    }


def main() -> None:
    import numpy as np

    import tempfile

    from pms_tui.core.indexing.embed import Embedder

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
    shipped, shipped_speed = timed_embed(Embedder(), texts)
    with tempfile.TemporaryDirectory() as tmp:
        integer, integer_speed = timed_embed(per_token_embedder(Path(tmp)), texts)
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
