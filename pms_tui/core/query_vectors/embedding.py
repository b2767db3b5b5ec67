"""A search's query vector made without opening the index: what the CLI's helper process
computes beside a one-shot search (``helper``, ``KnowledgeBase.model.expect_query_vector``).

It imports only the configuration and the query syntax, not the engine: the helper starts
before the search imports anything and runs on the other core meanwhile. The bundled model's
vector comes from ``model`` (its ONNX file run without importing fastembed, the
same vector); any other model, or any failure there, embeds with fastembed as the app does.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from ..config import DEFAULT_MODEL, default_home, load_settings
from ..search.query_syntax import as_text, parse

if TYPE_CHECKING:
    import numpy as np


def query_vector(query: str, home: str | os.PathLike | None = None) -> tuple[str, np.ndarray]:
    """``(text, vector)``: the vector a search for ``query`` embeds (its words without the
    filters), made with the home's configured model."""
    home_path = Path(home).expanduser() if home else default_home()
    settings = load_settings(home_path)
    text = parse(as_text(query)).text
    if settings.model == DEFAULT_MODEL:
        try:
            from ..indexing.embed import bundled_model_dir
            from .model import embed_query

            return text, embed_query(text, bundled_model_dir(settings.max_tokens))
        except Exception:  # noqa: BLE001 - embedded by fastembed below, which says what is wrong
            pass
    from ..indexing.embed import Embedder

    embedder = Embedder(settings.model, settings.embed_batch_size, settings.max_tokens)
    return text, embedder.embed_query(text)
