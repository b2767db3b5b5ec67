"""Published nDCG@10 numbers to print beside ours, by the collection's folder name.

Each figure names its source; docs/evaluation.md has the full table. A collection whose
folder name matches none of the keys is printed without references, and so is one whose
folder name says its text was preprocessed otherwise (``preprocessed``: NFCorpus as its
original release has it, lowercased and without stop words, is not BEIR's text, so BEIR's
figures do not compare).
"""

from __future__ import annotations

from pathlib import Path

# folder-name substring -> [(system, nDCG@10, source)]
PUBLISHED: dict[str, list[tuple[str, float, str]]] = {
    "scifact": [
        ("BM25, BEIR paper (Elasticsearch)", 0.665, "Thakur et al. 2021"),
        ("BM25 flat, Anserini", 0.679, "castorini/anserini regressions-beir-v1.0.0-scifact.flat"),
        ("all-MiniLM-L6-v2 (fp32)", 0.674, "embeddings-benchmark/results, SciFact.json"),
        ("bge-small-en-v1.5", 0.713, "embeddings-benchmark/results"),
        ("RRF(BM25 flat + bge-base-en-v1.5), k=60", 0.742, "castorini/anserini experiments-beir-fusion"),
    ],
    "nfcorpus": [
        ("BM25 flat, Anserini", 0.322, "castorini/anserini regressions-beir-v1.0.0-nfcorpus.flat"),
        ("all-MiniLM-L6-v2 (fp32)", 0.314, "embeddings-benchmark/results, NFCorpus.json"),
        ("bge-base-en-v1.5 flat, Anserini", 0.374, "castorini/anserini regressions nfcorpus bge-base"),
    ],
}


def published_for(collection: str) -> list[tuple[str, float, str]]:
    name = Path(collection).name.lower()
    if "preprocessed" in name:
        return []
    for key, rows in PUBLISHED.items():
        if key in name:
            return rows
    return []
