"""The bundled model with its attention NaN guards pruned (``core.indexing.model_graph``) gives
fastembed's vectors of the shipped model bit for bit, on real notes and on odd texts, batched
with padding as the embedding queue batches them; the edit finds all six guards, leaves every
other byte's meaning alone, and a file it cannot edit is used as shipped."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pms_tui.core.config import DEFAULT_MODEL
from pms_tui.core.indexing import embed as embed_module
from pms_tui.core.indexing.embed import Embedder, _bundled_files, _register_bundled_model, bundled_model_dir
from pms_tui.core.indexing.model_graph import prune_nan_guards

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "markdown" / "jbranchaud-til"
ODD = ["", "x", "word " * 600, "naïve café 日本語のテキスト 🎉", "```\ncode\n```", "\ufffd lone surrogate",
       "a " * 127, "tiny", "Title › Heading\n\n" + "A longer paragraph of prose. " * 30]


def _texts() -> list[str]:
    texts = list(ODD)
    if CORPUS.is_dir():  # real notes, whole (the queue embeds their chunks; here the first window)
        texts += [p.read_text(encoding="utf-8") for p in sorted(CORPUS.rglob("*.md"))[:60]]
    return texts


@pytest.fixture(scope="module")
def shipped():
    from fastembed import TextEmbedding

    _register_bundled_model()
    return TextEmbedding(model_name=DEFAULT_MODEL, specific_model_path=str(bundled_model_dir(256, as_shipped=True)),
                         threads=1)


def test_the_six_guards_go_and_nothing_else():
    shipped_bytes = _bundled_files()[0].read_bytes()
    pruned = prune_nan_guards(shipped_bytes)
    assert pruned is not None
    # two nodes a layer (IsNaN and Where); their consumers read the softmax instead
    assert b"IsNaN" in shipped_bytes and b"IsNaN" not in pruned
    assert 0 < len(shipped_bytes) - len(pruned) < 2_000
    assert prune_nan_guards(pruned) is None  # nothing left to prune
    assert prune_nan_guards(b"") is None


def test_pruned_vectors_are_the_shipped_models_bit_for_bit(shipped):
    folder = bundled_model_dir(256)
    assert (folder / "model.onnx").resolve().parent.name == "pruned"
    ours = Embedder()  # the product's embedder: the pruned file, fastembed's session
    ours.load()
    texts = [ours.model_text(t) for t in _texts()]
    for size in (1, 8):  # the same batches (with padding) through both files
        theirs = np.asarray(list(shipped.embed(texts, batch_size=size)), dtype=np.float32)
        assert np.array_equal(np.asarray(list(ours._model.embed(texts, batch_size=size))), theirs)
    # the queue's way (length-sorted runs, two at once): other batches, the same vectors
    assert np.abs(ours.embed_documents(texts) - theirs).max() <= 1e-6
    for text in ("undo the last commit", "resize an image"):
        assert np.array_equal(ours.embed_query(text), next(iter(shipped.embed([text], batch_size=1))))


def test_a_graph_that_cannot_be_edited_is_used_as_shipped(monkeypatch, tmp_path):
    model = tmp_path / "model.onnx"
    model.write_bytes(b"\x08\x07")  # a ModelProto with an ir_version and no graph
    assert embed_module._pruned_model(model, tmp_path) == model
    model.write_bytes(b"\xff\xff\xff")  # not protobuf at all
    assert embed_module._pruned_model(model, tmp_path) == model
    assert not (tmp_path / "pruned").exists() or not any((tmp_path / "pruned").iterdir())
