"""How many texts the model runs on to index a BEIR-format corpus, a long paragraph read as
its windows' mean (``windows``) or whole where it fits the window (``whole-if-fits``, the
product now), and the time the fit check costs.

    python research/long_queries/model_texts.py DIR [DIR ...]

DIR is a BEIR-format folder or a folder of notes (its ``*.md``, as the known-item sets index it).

Chunks come from the product's chunker (notes as ``pms-tui eval beir`` writes them); the fit
is ``Embedder.fits_window`` (the bundled model's tokenizer at its 256-token window)."""

from __future__ import annotations

import gzip
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pms_tui.core.indexing.chunk import chunk_markdown, parse_note  # noqa: E402
from pms_tui.core.indexing.embed import Embedder  # noqa: E402
from pms_tui.core.indexing.windows import WINDOW_SEP, parts_to_embed  # noqa: E402


def embed_texts(folder: Path) -> list[str]:
    """Every chunk's embed text: of a BEIR corpus's documents, or of a folder's notes."""
    if not (folder / "corpus.jsonl").exists() and not (folder / "corpus.jsonl.gz").exists():
        notes = sorted(folder.rglob("*.md"))
        return [c.embed_text for p in notes
                for c in parse_note(p.read_text(encoding="utf-8", errors="replace"), p.name).chunks]
    return [c.embed_text for d in corpus(folder) for c in chunk_markdown(f"# {d['title']}\n\n{d['text']}\n")]


def corpus(folder: Path):
    path = folder / "corpus.jsonl.gz"
    handle = gzip.open(path, "rt", encoding="utf-8") if path.exists() else open(folder / "corpus.jsonl", encoding="utf-8")
    with handle:
        for line in handle:
            yield json.loads(line)


def main() -> None:
    embedder = Embedder()
    embedder.load()
    for folder in map(Path, sys.argv[1:]):
        texts = embed_texts(folder)
        windowed = [t for t in texts if WINDOW_SEP in t]
        started = time.perf_counter()
        fits = embedder.fits_window([t.split(WINDOW_SEP, 1)[0] for t in windowed])
        seconds = time.perf_counter() - started
        before = sum(len(parts_to_embed(t, False)) for t in texts)
        after = before - sum(len(parts_to_embed(t, False)) - 1 for t, ok in zip(windowed, fits) if ok)
        print(json.dumps({"set": folder.name, "chunks": len(texts), "windowed": len(windowed),
                          "windowed_that_fit": sum(fits), "model_texts_windows": before,
                          "model_texts_whole_if_fits": after, "fit_check_ms": round(1000 * seconds, 1)}))


if __name__ == "__main__":
    main()
