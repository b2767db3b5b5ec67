"""An ignored filter's reason on the status line is shortened to whole words at every width,
never cut mid-word (pure logic: the line's parts and their fitting, no terminal)."""

from __future__ import annotations

import pytest

from pms_tui.tui.status_fit import ELLIPSIS, fit, shorter_in_words
from pms_tui.core.results import ModelState
from pms_tui.tui.widgets.status import SEPARATOR, Answer, Counts, Status, status_parts

NOT_A_DATE = "after:notadate is not a date (2024, 2024-05, 2024-05-17, today, 7d, 2w, 3m, 1y)"
NO_COLLECTION = "in:nope names no collection; the collections are notes, work and guide"


@pytest.mark.parametrize("item", [NOT_A_DATE, NO_COLLECTION])
@pytest.mark.parametrize("width", range(40, 201, 4))
def test_an_ignored_filter_is_shortened_in_whole_words(item, width):
    status = Status(counts=Counts(1234, 5678), model=ModelState.READY,
                    answer=Answer(lanes=("bm25", "vector"), hits=7, weak=True, ignored=(item,)))
    shown = [form.text for form in fit(status_parts(status), width, len(SEPARATOR))]
    ignored = [text.removeprefix("ignored ") for text in shown if text.startswith("ignored ")]
    if not ignored:  # "No note matches well" is kept first; the filter alone needs ~50 columns beside it
        assert width < 50, f"the ignored filter is gone at {width} columns: {shown}"
        return
    words = ignored[0].removesuffix(ELLIPSIS).split(" ")
    assert item.split(" ")[: len(words) - 1] == words[:-1]
    assert words[-1] in item.split(" ") or words[-1] == item.split(" (")[0].split(" ")[-1], ignored[0]
    assert ignored[0].split(" ")[0] == item.split(" ")[0]  # the filter itself, whole


def test_the_short_forms():
    assert shorter_in_words(NOT_A_DATE, 30) == ["after:notadate is not a date", "after:notadate"]
    assert shorter_in_words(NO_COLLECTION, 24) == ["in:nope names no…", "in:nope"]
    assert shorter_in_words("tag: is empty", 30) == ["tag:"]
