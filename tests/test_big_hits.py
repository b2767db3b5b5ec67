"""Bounded work for a hit of a huge chunk: the reader's head of the passage
(``tui.passage.bounded``) and the marked window of a vector-only hit (``fusion.mark_words``)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pms_tui.core.markdown import scan
from pms_tui.core.results import SNIPPET_CLOSE, SNIPPET_OPEN
from pms_tui.core.search.fusion import MARK_SCAN_CHARS, mark_words
from pms_tui.tui.passage import MAX_CHARS, MAX_LINES, bounded


def test_a_short_passage_is_shown_whole():
    text = "# Title\n\nA paragraph.\n\n```\ncode\n```\n"
    assert bounded(text) is text


def test_a_huge_fence_is_cut_closed_and_says_what_follows():
    text = "```python\n" + "x = compute(y) + 1\n" * 13_000 + "```\n"
    shown = bounded(text)
    assert len(shown) < MAX_CHARS + 300
    head, _, note = shown.rpartition("\n\n")
    lines = head.split("\n")
    assert lines[:MAX_LINES] == text.split("\n")[:MAX_LINES]  # the head, line for line
    assert lines[-1] == "```"  # the fence left open is closed
    assert "12,802 more lines" in note and "copy the chunk" in note
    blocks = scan(shown).blocks
    assert blocks[0].kind == "fence" and blocks[-1].kind != "fence"  # the note is not code


def test_one_long_line_is_cut_at_a_space():
    text = "word " * 10_000
    shown = bounded(text)
    first = shown.split("\n")[0]
    assert len(first) <= MAX_CHARS and text.startswith(first) and not first.endswith("wor")
    assert "the rest of this line" in shown


def test_a_closed_fence_needs_no_closing_line():
    text = "```\nshort\n```\n" + "prose line\n" * 500
    head = bounded(text).rpartition("\n\n")[0]
    assert head.split("\n")[-1] == "prose line"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["```", "~~~", "````", "text", "", "  ```js", "x" * 900]), max_size=400))
def test_bounded_keeps_a_prefix_of_whole_lines(parts):
    text = "\n".join(parts)
    shown = bounded(text, max_lines=50, max_chars=5_000)
    if shown is text:
        return
    head, _, note = shown.rpartition("\n\n")
    kept, original = head.split("\n"), text.split("\n")
    assert (kept == original[: len(kept)]  # the first lines, whole
            or kept[:-1] == original[: len(kept) - 1] and kept[-1] in ("```", "~~~", "````")  # a fence closed
            or len(kept) == 1 and original[0].startswith(kept[0]))  # one long line, cut
    assert len(kept) <= 51 and len(head) <= 5_000 + 5
    assert scan(shown).blocks[-1].kind == "paragraph"  # what it says of the rest is never code


def test_mark_words_marks_a_word_far_into_a_huge_text():
    text = "lorem ipsum " * 50_000 + "the commit was undone " + "dolor " * 2_000
    window = mark_words(text, ["commit"])
    assert f"{SNIPPET_OPEN}commit{SNIPPET_CLOSE}" in window
    assert window.startswith("…") and window.endswith("…") and len(window) < 300
    # the same window as for the text around it alone
    near = text[len(text) - 12_100 - 200:]
    assert mark_words(near, ["commit"]).strip("…") == window.strip("…")


def test_mark_words_without_any_word_shows_the_head():
    text = "x = compute(y) + 1\n" * 20_000
    assert len(text) > MARK_SCAN_CHARS
    window = mark_words(text, ["sync", "status"])
    assert window.startswith("x = compute(y) + 1 x =") and SNIPPET_OPEN not in window
