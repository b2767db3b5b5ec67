"""A passage the model reads window by window: one vector for a whole long paragraph.

The model reads the first ``max_tokens`` tokens of a text. A paragraph longer than that (a
one-line abstract, a long prose line) stays one passage for BM25 and for the reader, and its
embed text is its *windows* (the paragraph cut at sentence ends into parts of at most the
chunk target, each led by the note's title and breadcrumb) joined by ``WINDOW_SEP``. The
embedding queue embeds each window and stores their normalised mean as the passage's one
vector (``embed_windowed``), so every part of the paragraph counts in the vector lane and the
index still holds one vector per passage. Why, with the figures: ``docs/evaluation.md``
("Whole paragraphs").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

# ASCII record separator. A note whose own text holds one has that passage embedded as two
# windows as well: harmless (its vector is still its words', averaged).
WINDOW_SEP = "\x1e"


def join(windows: Sequence[str]) -> str:
    """The embed text of a passage read as ``windows``."""
    return WINDOW_SEP.join(windows)


def embed_windowed(embed: Callable[[list[str]], object], texts: Sequence[str]):
    """``embed(texts)`` (rows of unit vectors, in order), where a text holding ``WINDOW_SEP``
    is embedded window by window and gets the normalised mean of its windows' vectors. The
    windows go to ``embed`` in calls of at most ``len(texts)`` of them: ``texts`` is a run the
    queue sized for the model's window per text (``length_batches``), and a window is no
    longer than that, so no call costs more memory than the run would have."""
    if not any(WINDOW_SEP in t for t in texts):
        return embed(list(texts))
    import numpy as np

    flat: list[str] = []
    spans: list[tuple[int, int]] = []
    for text in texts:
        parts = [p for p in text.split(WINDOW_SEP) if p.strip()] or [text]
        spans.append((len(flat), len(flat) + len(parts)))
        flat.extend(parts)
    step = len(texts)
    rows = np.vstack([np.asarray(embed(flat[i : i + step]), dtype=np.float32) for i in range(0, len(flat), step)])
    out = np.empty((len(texts), rows.shape[1]), dtype=np.float32)
    for i, (start, stop) in enumerate(spans):
        mean = rows[start:stop].mean(axis=0)
        norm = float(np.linalg.norm(mean))
        out[i] = mean / norm if norm > 0 else mean
    return out
