"""An over-long prose line stays one passage (BM25, the reader) and the model reads it by
windows cut at sentence ends (the embed text: the passage whole, then its windows, joined by
WINDOW_SEP)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pms_tui.core.indexing.chunk import chunk_markdown
from pms_tui.core.indexing.sentences import split_long_line
from pms_tui.core.indexing.windows import WINDOW_SEP

SENTENCE = "The quick brown fox jumps over the lazy dog near the river bank."  # 64 chars


def windows(chunk) -> list[str]:
    whole, *parts = chunk.embed_text.split(WINDOW_SEP)
    assert whole == chunk.embed_text.split("\n\n")[0] + "\n\n" + chunk.text  # the passage whole comes first
    return parts


def test_a_5000_char_line_is_one_passage_read_in_windows_cut_at_sentence_ends():
    line = " ".join([SENTENCE] * 78)  # 5,069 chars, one line
    (chunk,) = chunk_markdown(f"# Title\n\n{line}\n", "Title", target_chars=1000)
    assert chunk.text == f"# Title\n\n{line}" and (chunk.start_line, chunk.end_line) == (1, 3)
    parts = windows(chunk)
    assert len(parts) >= 5
    assert all(p.startswith("Title\n\n") for p in parts)  # every window with the title
    bodies = [p.split("\n")[-1] for p in parts]
    assert all(len(b) <= 1000 for b in bodies)
    assert all(b.startswith("The quick") and b.endswith("river bank.") for b in bodies)
    # every word of the line is in exactly one window, in order
    assert " ".join(bodies).split() == line.split()


def test_windows_are_balanced_and_keep_the_heading_with_the_first():
    line = " ".join([SENTENCE] * 20)  # 1,299 chars
    (chunk,) = chunk_markdown(f"# T\n\n{line}\n", "T", target_chars=1000)
    parts = windows(chunk)
    assert len(parts) == 2
    assert parts[0] == "T\n\n# T\n\n" + parts[0].split("\n")[-1]
    sizes = [len(p.split("\n")[-1]) for p in parts]
    assert abs(sizes[0] - sizes[1]) <= len(SENTENCE) + 1


def test_paragraphs_that_fit_have_one_window():
    md = "# T\n\n" + " ".join([SENTENCE] * 5) + "\n"
    (chunk,) = chunk_markdown(md, "T", target_chars=1000)
    assert WINDOW_SEP not in chunk.embed_text and chunk.embed_text == "T\n\n" + md.strip()


def test_each_long_paragraph_is_its_own_passage():
    para = " ".join([SENTENCE] * 30)
    md = f"# T\n\n{para}\n\n{para.upper()}\n\n## Next\n\nshort.\n"
    chunks = chunk_markdown(md, "T", target_chars=1000)
    assert [c.text.split("\n")[-1] for c in chunks[:2]] == [para, para.upper()]
    assert all(len(windows(c)) == 2 for c in chunks[:2])
    assert chunks[2].text.endswith("short.") and WINDOW_SEP not in chunks[2].embed_text


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
