"""The default model: the shipped MiniLM derived once into a file with integer matrix products
(indexing/model_int8.py), with the real ONNX model and the real installed weights."""

from __future__ import annotations

import numpy as np
import pytest

from pms_tui.core.config import DEFAULT_MODEL
from pms_tui.core.errors import EmbeddingModelError
from pms_tui.core.indexing import model_int8
from pms_tui.core.indexing.embed import BUNDLED_MODELS, INTEGER_MODEL, SHIPPED_MODEL, Embedder, _bundled_files

SENTENCES = [
    "To undo the last commit but keep its changes, run git reset --soft HEAD~1.",
    "Sourdough bread rises overnight in a cool kitchen before it is baked.",
    "asyncio runs coroutines on one thread; await hands control back to the event loop.",
    "List the files of a directory sorted by modification time with ls -lt.",
    "Vitamin D deficiency was associated with a higher risk of respiratory infections.",
    "short",
    "The PostgreSQL EXPLAIN ANALYZE command shows the plan and the real time of each step " * 6,
]


def test_the_default_model_is_the_integer_one_and_the_shipped_one_keeps_its_name():
    assert DEFAULT_MODEL == INTEGER_MODEL
    assert SHIPPED_MODEL == "pms-tui/all-MiniLM-L6-v2-int8"  # the name older indexes recorded
    assert set(BUNDLED_MODELS) == {INTEGER_MODEL, SHIPPED_MODEL}


def test_the_derived_file_is_built_once_and_then_reused(tmp_path):
    source = _bundled_files()[0]
    first = model_int8.derived_model(source, tmp_path)
    stat = first.stat()
    again = model_int8.derived_model(source, tmp_path)
    assert again == first
    assert (again.stat().st_ino, again.stat().st_mtime_ns) == (stat.st_ino, stat.st_mtime_ns)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temp file left
    import onnx

    ops = {node.op_type for node in onnx.load(str(first)).graph.node}
    assert "MatMulInteger" in ops


def test_a_damaged_derived_file_is_built_again(tmp_path):
    source = _bundled_files()[0]
    target = model_int8.derived_model(source, tmp_path)
    size = target.stat().st_size
    with target.open("r+b") as handle:  # a copy cut short
        handle.truncate(size // 2)
    rebuilt = model_int8.derived_model(source, tmp_path)
    assert rebuilt == target and rebuilt.stat().st_size == size
    import onnxruntime

    onnxruntime.InferenceSession(str(rebuilt), providers=["CPUExecutionProvider"])  # loads


def test_a_source_that_cannot_be_derived_gives_one_sentence(tmp_path):
    broken = tmp_path / "model.onnx"
    broken.write_bytes(b"not an onnx file")
    with pytest.raises(EmbeddingModelError) as raised:
        model_int8.derived_model(broken, tmp_path / "cache")
    message = str(raised.value)
    assert "could not be built" in message and "search by words still works" in message
    assert "\n" not in message


def test_its_vectors_are_the_shipped_models_on_real_sentences():
    integer = Embedder(INTEGER_MODEL).embed_documents(SENTENCES)
    shipped = Embedder(SHIPPED_MODEL).embed_documents(SENTENCES)
    cosines = np.sum(integer * shipped, axis=1)
    assert cosines.min() > 0.99 and cosines.mean() > 0.997, cosines  # a one-word text: 0.993
    # and not the same numbers: the integer products really run
    assert not np.allclose(integer, shipped, atol=1e-4)


def test_a_texts_vector_does_not_depend_on_the_texts_embedded_with_it():
    embedder = Embedder(INTEGER_MODEL)
    together = embedder.embed_documents(SENTENCES)
    for text, row in zip(SENTENCES, together):
        assert np.allclose(row, embedder.embed_documents([text])[0], atol=1e-5)
        assert np.allclose(row, embedder.embed_query(text), atol=1e-5)


def test_a_file_derived_for_another_key_goes_once_a_week_old(tmp_path):
    import os
    import time

    old, recent = tmp_path / "minilm-matmulinteger-0ld.onnx", tmp_path / "minilm-matmulinteger-1ecent.onnx"
    for path in (old, recent):
        path.write_bytes(b"x")
    week_ago = time.time() - 8 * 86400
    os.utime(old, (week_ago, week_ago))
    model_int8.derived_model(_bundled_files()[0], tmp_path)
    assert not old.exists() and recent.exists()
