"""Benchmark-only embedders. Never used by the application.

``RandomUnitEmbedder`` has the interface of :class:`pms_tui.core.indexing.embed.Embedder` (``model_name``,
``dim``, ``ready``, ``load()``, ``embed_documents(texts, progress=None)``, ``embed_query(text)``)
but returns *random unit vectors* (deterministic per text) instead of running a model. It lets
the benchmark build 100,000-chunk indexes through the real sync / store / vector-index code in
minutes instead of the hours real embedding would take. Search *timings* of an exact vector
scan do not depend on the vectors' values, so the vector lane measured on it is honest as a
latency figure; its *results* are meaningless and are never used to judge quality.

``query_model``: when given (a real ``Embedder``), ``embed_query`` delegates to it, so the
hybrid path pays the real cost of embedding the query (the vector it gets back is the real
model's; the stored vectors stay random).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

import numpy as np

from pms_tui.core.config import DEFAULT_MODEL


class RandomUnitEmbedder:
    """Random unit vectors, seeded by the text's SHA-256 (the same text gives the same vector)."""

    def __init__(self, model_name: str = "bench/random-unit", dim: int = 384, query_model=None):
        self.model_name = model_name
        self.dim = dim
        self.query_model = query_model
        self.calls = 0
        self.texts_embedded = 0

    @classmethod
    def posing_as_default(cls, query_model=None) -> "RandomUnitEmbedder":
        """Reports the real default model's name and dimension, so an index it builds can be
        re-synced with the real Embedder (used for the one-edit sync test)."""
        return cls(DEFAULT_MODEL, 384, query_model)

    @property
    def ready(self) -> bool:
        return True

    def load(self) -> None:
        if self.query_model is not None:
            self.query_model.load()

    def _vector(self, text: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")
        v = np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)
        return v / np.linalg.norm(v)

    def embed_documents(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> np.ndarray:
        self.calls += 1
        self.texts_embedded += len(texts)
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            out[i] = self._vector(text)
        if progress:
            progress(len(texts))
        return out

    def embed_query(self, text: str) -> np.ndarray:
        if self.query_model is not None:
            return self.query_model.embed_query(text)
        return self._vector(text)
