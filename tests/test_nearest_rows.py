"""The vector lane's top-k selection (block maxima, then an exact sort of the few rows above
the threshold) against a full sort: the same rows in the same order, ties broken by id."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from pms_tui.core.search.vector_index import nearest_rows


def reference(scores: np.ndarray, ids: np.ndarray, k: int) -> np.ndarray:
    order = sorted(range(len(scores)), key=lambda r: (-scores[r], ids[r]))
    return np.array(order[:k], dtype=np.int64)


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(1, 3000),
    k=st.integers(1, 80),
    levels=st.integers(1, 50),  # few distinct scores: many ties, also at the k-th place
    seed=st.integers(0, 2**32 - 1),
)
def test_equals_a_full_sort(n, k, levels, seed):
    rng = np.random.default_rng(seed)
    scores = (rng.integers(0, levels, n) / levels).astype(np.float32)
    ids = rng.permutation(n * 3)[:n].astype(np.int64)
    assert nearest_rows(scores, ids, k).tolist() == reference(scores, ids, k).tolist()


def test_large_continuous_scores_take_the_block_path():
    rng = np.random.default_rng(7)
    scores = rng.standard_normal(100_003).astype(np.float32)  # a tail block shorter than the rest
    ids = np.arange(100_003, dtype=np.int64) * 2
    for k in (1, 10, 50, 500):
        assert nearest_rows(scores, ids, k).tolist() == reference(scores, ids, k).tolist()


def test_the_best_row_in_the_short_tail_block_is_found():
    scores = np.zeros(10_007, dtype=np.float32)
    scores[-1] = 1.0  # only the last, partial block holds it
    ids = np.arange(10_007, dtype=np.int64)
    assert nearest_rows(scores, ids, 5).tolist()[0] == 10_006


def test_nothing_asked_nothing_returned():
    assert nearest_rows(np.ones(10, dtype=np.float32), np.arange(10), 0).tolist() == []
