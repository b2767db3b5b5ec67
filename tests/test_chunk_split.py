"""Over-long prose lines are cut at sentence ends so the model sees every part of a note."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pms_tui.core.indexing.chunk import chunk_markdown, split_long_line

SENTENCE = "The quick brown fox jumps over the lazy dog near the river bank."  # 64 chars


def test_a_5000_char_line_is_cut_at_sentence_ends():
    line = " ".join([SENTENCE] * 78)  # 5,069 chars, one line
    chunks = chunk_markdown(f"# Title\n\n{line}\n", "Title", target_chars=1000)
    assert len(chunks) >= 5
    assert all(len(c.text) <= 1000 + len("# Title\n\n") for c in chunks)
    for c in chunks:
        body = c.text.split("\n")[-1]
        assert body.startswith("The quick") and body.endswith("river bank.")
    # every word of the line is in exactly one chunk, in order
    words = " ".join(c.text.split("\n")[-1] for c in chunks).split()
    assert words == line.split()
    assert {(c.start_line, c.end_line) for c in chunks[1:]} == {(3, 3)}
    assert chunks[0].start_line == 1


def test_parts_are_balanced_and_keep_the_heading_with_the_first():
    line = " ".join([SENTENCE] * 20)  # 1,299 chars
    chunks = chunk_markdown(f"# T\n\n{line}\n", "T", target_chars=1000)
    assert len(chunks) == 2
    assert chunks[0].text.startswith("# T\n\nThe quick")
    sizes = [len(c.text.split("\n")[-1]) for c in chunks]
    assert abs(sizes[0] - sizes[1]) <= len(SENTENCE) + 1


def test_every_part_is_embedded_with_the_title():
    line = " ".join([SENTENCE] * 40)
    chunks = chunk_markdown(f"# Title\n\n{line}\n", "Title", target_chars=1000)
    assert all(c.embed_text.startswith("Title\n\n") for c in chunks)


def test_fences_are_never_cut():
    code = "x = 1; y = 2. " * 300  # a long line inside a fence stays whole
    md = f"intro\n\n```python\n{code}\n```\n\nafter\n"
    chunks = chunk_markdown(md, target_chars=1000)
    assert any(code in c.text for c in chunks)
    assert all("```python" not in c.text or code in c.text for c in chunks)


def test_indented_code_is_never_cut():
    code = "    " + "call(); " * 200
    chunks = chunk_markdown(f"text\n\n{code}\n", target_chars=1000)
    assert any(code in c.text for c in chunks)


def test_a_line_without_sentence_ends_is_cut_at_spaces_then_hard():
    words = "alpha " * 400
    parts = split_long_line(words, 1000)
    assert all(len(p) <= 1000 for p in parts) and " ".join(parts).split() == words.split()
    solid = "a" * 2500
    parts = split_long_line(solid, 1000)
    assert "".join(parts) == solid and all(len(p) <= 1000 for p in parts)


def test_short_lines_are_untouched():
    md = "# T\n\n" + "\n".join(["short line."] * 5) + "\n"
    (chunk,) = chunk_markdown(md, target_chars=1000)
    assert chunk.text == md.strip()


sentences = st.lists(
    st.text(alphabet="abcdefghij ", min_size=1, max_size=120).map(lambda s: s.strip() or "x"), min_size=1, max_size=60
).map(lambda parts: " ".join(p + "." for p in parts))


@settings(max_examples=200, deadline=None)
@given(sentences, st.integers(50, 1200))
def test_split_long_line_property(line, limit):
    parts = split_long_line(line, limit)
    assert all(0 < len(p) <= limit for p in parts)
    assert " ".join(parts).split() == line.split() or "".join(parts).replace(" ", "") == line.replace(" ", "")
