"""core.markdown.scan parses a long note a window at a time (bounded memory): the structure
the chunker relies on (fences, top-level headings, block starts at the top level) must be the
same as one parse of the whole text."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pms_tui.core import markdown

PIECES = [
    "# Title {i}\n\n",
    "## Section {i}\n\nSome text about item {i}.\n\n",
    "Setext heading {i}\n---\n\n",
    "A paragraph line {i}\nthat goes on {i}\n\n",
    "```python\nx = {i}\n\n# not a heading\n\ny = x\n```\n\n",
    "~~~\nunclosed-looking ``` inside {i}\n~~~\n\n",
    "- item {i}\n- item {i} b\n  continued\n\n  # not top-level\n- item {i} c\n\n",
    "1. first {i}\n2. second {i}\n\n",
    "> quoted {i}\n> # quoted heading\n\n",
    "    indented code {i}\n    # not a heading\n\n",
    "<div>\nhtml {i}\n\n",
]


def document(choices: list[int]) -> str:
    return "".join(PIECES[c].format(i=i) for i, c in enumerate(choices))


def outline(structure: markdown.Structure):
    return structure.fences, structure.headings


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.integers(0, len(PIECES) - 1), min_size=1, max_size=60), st.integers(40, 400))
def test_windowed_scan_finds_the_same_fences_and_headings(monkeypatch_window, choices, window):
    text = document(choices)
    whole = markdown._scan_window(text, 0)[0]
    monkeypatch_window(window)  # set for every example (the fixture restores it once, after)
    assert outline(markdown.scan(text)) == outline(whole)


def test_a_long_list_is_scanned_in_windows_and_keeps_every_item(monkeypatch_window):
    text = "# List\n\n" + "".join(f"- item {i}\n" for i in range(2000)) + "\n## After\n\nend\n"
    monkeypatch_window(500)
    structure = markdown.scan(text)
    assert [h.text for h in structure.headings] == ["List", "After"]
    assert sum(1 for b in structure.blocks if b.kind == "list_item") == 2000
    lists = [b for b in structure.blocks if b.kind == "bullet_list"]
    assert len(lists) > 1 and all(a.end <= b.start for a, b in zip(lists, lists[1:]))  # parts, in order
    whole = [b for b in markdown._scan_window(text, 0)[0].blocks if b.kind == "bullet_list"]
    assert (lists[0].start, lists[-1].end) == (whole[0].start, whole[0].end)  # together, the one list


def test_one_fence_longer_than_a_window_stays_one_fence(monkeypatch_window):
    body = "".join(f"line {i}\n\n# not a heading {i}\n" for i in range(500))
    text = f"# Code\n\n```\n{body}```\n\n## Next\n"
    monkeypatch_window(300)
    structure = markdown.scan(text)
    assert structure.fences == [(2, 2 + body.count("\n") + 2)]
    assert [h.text for h in structure.headings] == ["Code", "Next"]



@pytest.fixture
def monkeypatch_window():
    saved = markdown.WINDOW_CHARS

    def set_window(chars: int) -> None:
        markdown.WINDOW_CHARS = chars

    yield set_window
    markdown.WINDOW_CHARS = saved
