"""The one-shot search's query vector made without fastembed (``core.query_vectors.model``)
is fastembed's vector, bit for bit, for the bundled model: short, empty, non-Latin, filtered
and over-long queries (truncated at the window); its optimised copy of the model is written
once and reused, and a cache that cannot be written still gives the same vector."""

from __future__ import annotations

import numpy as np
import pytest

from pms_tui.core.query_vectors import model as query_model
from pms_tui.core.indexing.embed import Embedder, bundled_model_dir
from pms_tui.core.query_vectors.embedding import query_vector

QUERIES = ["resize an image", "", "naïve café 日本語のテキスト 🎉", "word " * 600, "git stash changes",
           "How do I extract a tar archive with gzip compression on linux?", "\ufffd lone surrogate"]


@pytest.fixture(scope="module")
def fastembed_model():
    return Embedder(max_tokens=128)  # a window other than the default: its own folder and copy


def test_the_vectors_are_fastembeds(fastembed_model):
    folder = bundled_model_dir(128)
    for query in QUERIES:
        ours, theirs = query_model.embed_query(query, folder), fastembed_model.embed_query(query)
        assert ours.dtype == np.float32 and ours.shape == (fastembed_model.dim,)
        assert np.array_equal(ours, theirs), query[:40]
    assert query_model._optimized_path(folder).is_file()


def test_an_unwritable_cache_opens_the_model_as_fastembed_does(fastembed_model, monkeypatch, tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the optimised copy's folder would be")
    monkeypatch.setattr(query_model, "_optimized_path", lambda folder: blocker / "model.onnx")
    vector = query_model.embed_query("undo the last commit", bundled_model_dir(128))
    assert np.array_equal(vector, fastembed_model.embed_query("undo the last commit"))


def test_query_vector_embeds_the_words_without_the_filters(tmp_path):
    text, vector = query_vector("soft reset tag:git", tmp_path)
    assert text == "soft reset"
    assert np.array_equal(vector, Embedder().embed_query("soft reset"))


def test_a_damaged_optimised_copy_is_written_again(fastembed_model):
    folder = bundled_model_dir(128)
    query_model.embed_query("warm", folder)
    copy = query_model._optimized_path(folder)
    copy.write_bytes(b"not an onnx model")
    vector = query_model.embed_query("compress a folder", folder)
    assert np.array_equal(vector, fastembed_model.embed_query("compress a folder"))
    assert copy.stat().st_size > 1_000_000  # a real model again


def test_copies_for_older_keys_go_once_a_week_old(tmp_path):
    import os

    keep = tmp_path / "minilm-int8-256-3-4-ort1.onnx"
    old = tmp_path / "minilm-int8-256-1-2-ort1.onnx"
    recent = tmp_path / "minilm-int8-256-5-6-ort1.onnx"
    other_folder = tmp_path / "minilm-int8-256-other-1-2-ort1.onnx"
    for path in (keep, old, recent, other_folder):
        path.write_bytes(b"x")
    week_ago = os.path.getmtime(keep) - query_model.STALE_SECONDS - 60
    for path in (keep, old, other_folder):
        os.utime(path, (week_ago, week_ago))
    query_model.drop_stale_copies(tmp_path, "minilm-int8-256-", keep)
    assert keep.exists() and recent.exists() and other_folder.exists()  # in use, too new, another folder's
    assert not old.exists()
