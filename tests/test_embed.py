"""The bundled offline model: loads without network, 256-token limit, dynamic padding."""

from __future__ import annotations

import numpy as np

from pms_tui.core.indexing.embed import Embedder, length_batches


def test_offline_model_embeds_meaningfully():
    e = Embedder()
    a, b, c = (e.embed_query(t) for t in ("undo the last git commit", "revert my most recent commit", "a cake recipe"))
    assert a.shape == (384,)
    assert np.linalg.norm(a) == np.float32(1.0) or abs(np.linalg.norm(a) - 1) < 1e-4
    assert a @ b > a @ c + 0.3


def test_token_limit_is_256_with_dynamic_padding():
    e = Embedder()
    e.load()
    tokenizer = e._model.model.tokenizer
    long_text = "word " * 1000
    assert len(tokenizer.encode(long_text).ids) == 256
    short = tokenizer.encode_batch(["tiny text", "a slightly longer text here"])
    assert len(short[0].ids) == len(short[1].ids) < 20  # padded to the longest, not to a fixed length
    # text past 128 tokens changes the vector (the shipped tokenizer cut at 128)
    base = "alpha " * 150
    assert not np.allclose(e.embed_query(base + "beta " * 60), e.embed_query(base + "gamma " * 60))


def test_documents_come_back_in_input_order():
    e = Embedder()
    texts = ["long " * 200, "short", "medium text " * 10]
    together = e.embed_documents(texts)
    for text, row in zip(texts, together):
        assert np.allclose(row, e.embed_documents([text])[0], atol=1e-4)


def test_length_batches_bound_size_and_group_lengths():
    texts = ["x" * n for n in [5, 900, 10, 800, 15, 4000, 20]]
    batches = length_batches(texts, batch_size=3, token_budget=600)
    assert sorted(i for b in batches for i in b) == list(range(len(texts)))
    assert all(len(b) <= 3 for b in batches)
    flat = [len(texts[i]) for b in batches for i in b]
    assert flat == sorted(flat)


def test_the_model_folder_link_is_replaced_atomically(tmp_path):
    """Two processes assemble the model folder at once: nobody may see the link missing."""
    import threading

    from pms_tui.core.indexing.embed import _link_or_copy

    sources = [tmp_path / "a.onnx", tmp_path / "b.onnx"]
    for src in sources:
        src.write_bytes(src.name.encode())
    dst = tmp_path / "model.onnx"
    errors: list[BaseException] = []

    def hammer(offset: int) -> None:
        try:
            for i in range(300):
                _link_or_copy(sources[(i + offset) % 2], dst)
                dst.read_bytes()  # always readable, never half-made
        except BaseException as exc:  # noqa: BLE001 - the test reports any failure
            errors.append(exc)

    threads = [threading.Thread(target=hammer, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert dst.read_bytes() in (b"a.onnx", b"b.onnx")
    assert not list(tmp_path.glob(".*.tmp"))
