"""A passage the model reads whole when it can, window by window when it cannot.

The model reads the first ``max_tokens`` tokens of a text. A paragraph longer than the chunk
target (a one-line abstract, a long prose line) stays one passage for BM25 and for the reader,
and its embed text holds the passage whole, then its *windows* (the paragraph cut at sentence
ends into parts of at most the chunk target, each led by the note's title and breadcrumb), all
joined by ``WINDOW_SEP``. The embedding queue embeds the whole passage when it fits the model's
window (counted by the model's own tokenizer: a paragraph a little longer than the target
often does), else each window, and stores their normalised mean as the passage's one vector
(``embed_windowed``): every part of a long paragraph counts in the vector lane, a paragraph
the model can read at once is read at once, and the index still holds one vector per passage.
Why, with the figures: ``docs/evaluation.md`` ("Whole paragraphs") and
``research/long_queries/README.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

# ASCII record separator. A note whose own text holds one is read as windows where it falls:
# harmless (its vector is still its words').
WINDOW_SEP = "\x1e"


def join(whole: str, windows: Sequence[str]) -> str:
    """The embed text of a passage the model reads ``whole`` if it fits, else as ``windows``."""
    return WINDOW_SEP.join([whole, *windows])


def parts_to_embed(text: str, fits: bool) -> list[str]:
    """What the model reads of one embed text: the text itself; for a passage with windows,
    the whole passage when it ``fits`` the model's window, else its windows."""
    if WINDOW_SEP not in text:
        return [text]
    whole, *windows = text.split(WINDOW_SEP)
    windows = [w for w in windows if w.strip()]
    return [whole] if fits or not windows else windows


def embed_windowed(embed: Callable[[list[str]], object], texts: Sequence[str],
                   fits: Callable[[list[str]], Sequence[bool]] | None = None):
    """``embed(texts)`` (rows of unit vectors, in order), where a text holding ``WINDOW_SEP``
    is embedded whole if ``fits`` says its whole passage fits the model's window (None: never
    known to fit), else window by window, getting the normalised mean of its windows' vectors.
    The parts go to ``embed`` in calls of at most ``len(texts)`` of them: ``texts`` is a run the
    queue sized for the model's window per text (``length_batches``), and no part is longer
    than that, so no call costs more memory than the run would have."""
    if not any(WINDOW_SEP in t for t in texts):
        return embed(list(texts))
    import numpy as np

    windowed = [i for i, t in enumerate(texts) if WINDOW_SEP in t]
    answers = list(fits([texts[i].split(WINDOW_SEP, 1)[0] for i in windowed])) if fits else []
    fitting = {i for i, ok in zip(windowed, answers) if ok}
    flat: list[str] = []
    spans: list[tuple[int, int]] = []
    for i, text in enumerate(texts):
        parts = parts_to_embed(text, i in fitting)
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
