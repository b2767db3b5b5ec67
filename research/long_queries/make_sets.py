"""Paragraph-long queries over one-paragraph documents, built from BEIR SciFact in place.

    python research/long_queries/make_sets.py [--scifact DIR] [--out DIR] [--queries N] [--distractors N]

SciFact's own queries are one-sentence claims. This writes a BEIR-format folder
(``corpus.jsonl``, ``queries.jsonl``, ``qrels.test.tsv``) in which each query is a paragraph and
its one relevant document is another paragraph, as in sets of argument/counter-argument pairs:

* ``N`` abstracts of 9 to 16 sentences (the first N in corpus order that qualify, every 4th
  one, so the sample spreads over the file) are each cut at a sentence end: the first third of
  their sentences (at least 2) is the query, the remaining two thirds, under the abstract's
  title, are the document. The query never appears in the corpus, and shares no sentence with
  its document: what links them is topic and vocabulary, as between a paragraph and the next.
* ``--distractors`` other abstracts (every k-th of the rest, in corpus order) stay whole.

The documents' remainders are mostly 150-260 tokens (the band where a paragraph is longer
than the chunk target of 1,000 characters yet fits the model's 256-token window); the
queries 60-150 words. ``--fit`` makes the other set: the query is the fewest leading
sentences (at least 2) that leave a remainder in that band (every such remainder; abstracts
with none are passed over). Nothing is random: the same input gives the same set.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPORA = Path(os.environ.get("PMS_TUI_CORPORA") or ROOT.parent / "shared" / "corpora")
DEFAULT_SCIFACT = CORPORA / "beir" / "scifact"
# A sentence ends at . ! or ? followed by a space and an upper-case letter or digit (abstracts
# hold "e.g. x", "P < 0.05", "vs. y": a lower-case letter after the stop is not a new sentence).
MIN_SENTENCES, MAX_SENTENCES = 9, 16
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(])")


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text.strip()) if s.strip()]


def build(scifact: Path, out: Path, queries: int, distractors: int, band=None) -> dict:
    docs = [json.loads(line) for line in gzip.open(scifact / "corpus.jsonl.gz", "rt", encoding="utf-8")]
    chosen: dict[str, tuple[str, str]] = {}  # doc id -> (query, remainder)
    for i, d in enumerate(docs):
        if len(chosen) >= queries:
            break
        if i % 4 and band is None:
            continue
        parts = sentences(d["text"])
        if not MIN_SENTENCES <= len(parts) <= MAX_SENTENCES:
            continue
        k = max(2, len(parts) // 3)
        if band is not None:  # the fewest leading sentences that leave a remainder in the band
            k = next((j for j in range(2, len(parts) - 1) if band(d["title"], " ".join(parts[j:]))), 0)
            if not k:
                continue
        chosen[d["_id"]] = (" ".join(parts[:k]), " ".join(parts[k:]))
    rest = [d for d in docs if d["_id"] not in chosen]
    step = max(1, len(rest) // max(1, distractors))
    kept = rest[::step][:distractors]
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "corpus.jsonl", "w", encoding="utf-8") as f:
        for d in docs:
            if d["_id"] in chosen:
                f.write(json.dumps({"_id": d["_id"], "title": d["title"], "text": chosen[d["_id"]][1]}) + "\n")
        for d in kept:
            f.write(json.dumps({"_id": d["_id"], "title": d["title"], "text": d["text"]}) + "\n")
    with open(out / "queries.jsonl", "w", encoding="utf-8") as f:
        for doc_id, (query, _) in chosen.items():
            f.write(json.dumps({"_id": f"q{doc_id}", "text": query}) + "\n")
    with open(out / "qrels.test.tsv", "w", encoding="utf-8") as f:
        f.write("query-id\tcorpus-id\tscore\n")
        for doc_id in chosen:
            f.write(f"q{doc_id}\t{doc_id}\t1\n")
    words = sorted(len(q.split()) for q, _ in chosen.values())
    return {"queries": len(chosen), "documents": len(chosen) + len(kept),
            "query_words_median": words[len(words) // 2] if words else 0, "out": str(out)}


def subset(scifact: Path, out: Path, size: int) -> dict:
    """SciFact's own test claims over a smaller corpus: every judged abstract, then every k-th
    other one in corpus order up to ``size`` (a corpus the vector lane can be built on twice
    in minutes; its figures are for comparing two ways, not for the published ones)."""
    docs = [json.loads(line) for line in gzip.open(scifact / "corpus.jsonl.gz", "rt", encoding="utf-8")]
    qrels = [line.split() for line in open(scifact / "qrels.beir-v1.0.0-scifact.test.txt", encoding="utf-8")]
    judged = {r[2] for r in qrels}
    rest = [d for d in docs if d["_id"] not in judged]
    step = max(1, len(rest) // max(1, size - len(judged)))
    kept = [d for d in docs if d["_id"] in judged] + rest[::step][: max(0, size - len(judged))]
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "corpus.jsonl", "w", encoding="utf-8") as f:
        for d in kept:
            f.write(json.dumps({"_id": d["_id"], "title": d["title"], "text": d["text"]}) + "\n")
    with gzip.open(scifact / "topics.beir-v1.0.0-scifact.test.tsv.gz", "rt", encoding="utf-8") as src:
        (out / "topics.test.tsv").write_text(src.read(), encoding="utf-8")
    with open(out / "qrels.test.txt", "w", encoding="utf-8") as f:
        f.writelines(" ".join(r) + "\n" for r in qrels)
    return {"documents": len(kept), "judged": len(judged), "out": str(out)}


def in_band(max_tokens: int = 256, target: int = 1000):
    """``band(title, text)``: the note ``# title`` + text is one passage longer than the chunk
    target (so the chunker reads it in windows) whose whole text the model can read (at most
    ``max_tokens`` tokens with its title, counted by the bundled model's own tokenizer)."""
    from tokenizers import Tokenizer

    from pms_tui.core.indexing.embed import _bundled_files

    tok = Tokenizer.from_file(str(_bundled_files()[1]))
    tok.no_truncation()
    return lambda title, text: len(text) > target and len(tok.encode(f"{title}\n\n{text}").ids) <= max_tokens


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scifact", type=Path, default=DEFAULT_SCIFACT)
    ap.add_argument("--out", type=Path, default=Path("/tmp/longq-data/scifact-long"))
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--distractors", type=int, default=700)
    ap.add_argument("--fit", action="store_true",
                    help="documents in the band: longer than the chunk target, within the model's window")
    ap.add_argument("--subset", type=int, default=0,
                    help="instead: SciFact's test claims over its judged abstracts plus others, this many in all")
    args = ap.parse_args()
    if args.subset:
        print(json.dumps(subset(args.scifact, args.out, args.subset)))
        return
    band = in_band() if args.fit else None
    print(json.dumps(build(args.scifact, args.out, args.queries, args.distractors, band)))


if __name__ == "__main__":
    main()
