"""The status line says why the vector lane is out from the search's and the model's states
(enums), not from the wording of a sentence (pure logic: the line's parts, no terminal)."""

from __future__ import annotations

import pytest

from pms_tui.core.results import VECTORS_FILLING_IN, ModelState, VectorOut
from pms_tui.tui.widgets.status import Answer, Clipping, Progress, Status, status_parts, sync_forms


def said(status: Status) -> str:
    return " | ".join(part[0].text for part in status_parts(status))


@pytest.mark.parametrize("state,words", [
    (VectorOut.FILLING_IN, "vector joins when more passages are embedded"),
    (VectorOut.UNREAD_SCRIPT, "the model cannot read this script"),
    (VectorOut.OTHER_MODEL, "vector off until reindex"),
])
def test_the_vector_lane_out_is_told_by_the_search_state(state, words):
    status = Status(model=ModelState.READY, answer=Answer(lanes=("bm25",), hits=3, vector_out=state,
                                                          notes=("any wording the engine chooses",)))
    assert words in said(status)


def test_a_sentence_alone_is_display_text_not_a_state():
    """A note that reads like the filling-in sentence, with no state, says only what the
    model's state says (here: waiting for it)."""
    status = Status(model=ModelState.LOADING, answer=Answer(
        lanes=("bm25",), hits=3, notes=(f"{VECTORS_FILLING_IN}: 12% of the passages have one",)))
    assert "vector waiting for the model" in said(status) and "joins when" not in said(status)


def test_a_model_mismatch_is_a_state():
    status = Status(model=ModelState.MISMATCH, answer=Answer(lanes=("bm25",), hits=3))
    assert "vector off until reindex" in said(status)
    assert "vector off until reindex" not in said(Status(model=ModelState.READY, answer=Answer(lanes=("bm25",))))


def test_a_query_of_filters_alone_never_blames_the_model():
    """``title:callouts``: no words for the vector lane; the model is ready and the line says both
    truly (the search's own reason, never "no model")."""
    status = Status(model=ModelState.READY, answer=Answer(lanes=("bm25",), hits=1, words=False))
    text = said(status)
    assert "model ready" in text and "no model" not in text and "only filters" in text


def test_a_sync_s_words_come_from_its_numbers():
    sync = Progress("embedding", 1204, 3410, rate=21.4, eta=105)
    forms = sync_forms(sync, None)
    assert forms[0] == "syncing: embedding 1,204/3,410 · 21/s · 1m45s left"
    assert forms[-1] == "embedding" and "syncing: embedding 1,204/3,410" in forms
    assert sync_forms(Progress(), None) == ["syncing"]
    assert sync_forms(Progress("reading", 3, 9, stopping=True), None) == ["stopping…"]
    beside = sync_forms(sync, Progress("reading", 2, 5, of="'work'"))
    assert beside[0].endswith(" · text of 'work': reading 2/5")
    assert sync_forms(None, Progress("reading", 2, 5, of="'work'")) == ["text of 'work': reading 2/5"]


def test_a_clip_says_where_and_how_long():
    assert "clipping example.com · 12 s" in said(Status(clip=Clipping("example.com", seconds=12)))
    assert "clipping example.com: extracting · 3 s" in said(Status(clip=Clipping("example.com", "extracting", 3)))
