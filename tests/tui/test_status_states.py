"""The status line says why the vector lane is out from the search's and the model's states
(enums), not from the wording of a sentence (pure logic: the line's parts, no terminal)."""

from __future__ import annotations

import pytest

from pms_tui.core.results import VECTORS_FILLING_IN, ModelState, VectorOut
from pms_tui.tui.widgets.status import Status, status_parts


def said(status: Status) -> str:
    return " | ".join(part[0].text for part in status_parts(status))


@pytest.mark.parametrize("state,words", [
    (VectorOut.FILLING_IN, "vector joins when more passages are embedded"),
    (VectorOut.UNREAD_SCRIPT, "the model cannot read this script"),
    (VectorOut.OTHER_MODEL, "vector off until reindex"),
])
def test_the_vector_lane_out_is_told_by_the_search_state(state, words):
    status = Status(model="ready", mode="hybrid", lanes=("bm25",), hits=3, vector_out=state,
                    notes=("any wording the engine chooses",))
    assert words in said(status)


def test_a_sentence_alone_is_display_text_not_a_state():
    """A note that reads like the filling-in sentence, with no state, says only what the
    model's state says (here: waiting for it)."""
    status = Status(model="loading", mode="hybrid", lanes=("bm25",), hits=3,
                    notes=(f"{VECTORS_FILLING_IN}: 12% of the passages have one",))
    assert "vector waiting for the model" in said(status) and "joins when" not in said(status)


def test_a_model_mismatch_is_a_state_whatever_the_model_part_says():
    status = Status(model="another model: reindex", model_state=ModelState.MISMATCH, mode="hybrid",
                    lanes=("bm25",), hits=3)
    assert "vector off until reindex" in said(status)
    assert "vector off until reindex" not in said(Status(model="mismatch", mode="hybrid", lanes=("bm25",)))
