"""The text phase of a big note works in pieces so the app's event loop runs between them
(``markdown.split_lines``/``join_lines``, a huge span cut by lines without being joined and
split again, markdown-it's normalize without its regex passes) and produces exactly what the
one-call versions did: those versions are kept here as the reference."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pms_tui.core import markdown
from pms_tui.core.indexing import chunk
from pms_tui.core.indexing.facets import inline_tags

sys.path.insert(0, str(Path(__file__).parent / "faults"))
from big_note_shapes import SHAPES, shape  # noqa: E402


def _old_cut_by_lines(start: int, text: str, block_limit: int, limit: int):
    first, size, lines = start, 0, []
    for line_no, line in enumerate(text.split("\n"), start):
        if lines and (size + 1 + len(line) > block_limit or len(line) > limit):
            yield first, line_no - 1, "\n".join(lines)
            lines, size = [], 0
        if len(line) > limit:
            for part in chunk._cut_by_size(line, limit):
                yield line_no, line_no, part
            continue
        if not lines:
            first = line_no
        lines.append(line)
        size += len(line) + (1 if len(lines) > 1 else 0)
    if lines:
        yield first, first + len(lines) - 1, "\n".join(lines)


def _old_bounded(lines, first, last, size, limit, block_limit):
    text = "\n".join(lines[first:last + 1])
    if first == last and len(text) > limit:
        for part in chunk._cut_by_size(text, limit):
            yield first, last, part
    elif len(text) > block_limit and text.count("\n") == last - first:
        yield from _old_cut_by_lines(first, text, block_limit, limit)
    else:
        yield first, last, text


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab \n\r#`")), max_size=400), st.integers(1, 40))
def test_split_and_join_in_pieces_are_split_and_join(text, piece):
    old = markdown.SPLIT_PIECE_CHARS
    markdown.SPLIT_PIECE_CHARS = piece
    try:
        lines = markdown.split_lines(text)
    finally:
        markdown.SPLIT_PIECE_CHARS = old
    assert lines == text.split("\n")
    assert markdown.join_lines(lines) == text
    assert markdown.join_lines(lines * 3000, 5, 9000) == "\n".join((lines * 3000)[5:9000])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 60), min_size=1, max_size=60), st.integers(1, 80), st.integers(1, 200))
def test_cut_by_lines_cuts_where_the_text_version_did(lengths, limit, block_limit):
    lines = ["x" * n for n in lengths]
    first, last = 0, len(lines) - 1
    size = len("\n".join(lines))
    new = list(chunk._bounded(lines, first, last, size, limit, block_limit))
    assert new == list(_old_bounded(lines, first, last, size, limit, block_limit))


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_the_big_shapes_chunk_as_before(name, monkeypatch):
    """Each shape at 300 KB with the caps scaled down, so that every path (huge spans, lines cut
    by size, windows, pieces of the split) runs: the chunks of the one-call versions."""
    text = shape(name, 300_000).decode()
    monkeypatch.setattr(chunk, "MIN_BLOCK_CAP", 20_000)
    monkeypatch.setattr(chunk, "MIN_CHUNK_CAP", 3_000)
    monkeypatch.setattr(markdown, "SPLIT_PIECE_CHARS", 1_000)
    try:
        new = chunk.parse_note(text, f"{name}.md", target_chars=200).chunks
        new_tags = inline_tags(text)
    except chunk.SkipFile:
        return  # the same limits as before (bare headings, list items): nothing to compare
    monkeypatch.setattr(chunk, "split_lines", lambda t: t.split("\n"))
    monkeypatch.setattr(chunk, "_bounded", _old_bounded)
    monkeypatch.setattr(markdown, "SPLIT_PIECE_CHARS", 1 << 40)
    markdown._parser.cache_clear()
    monkeypatch.setattr(markdown, "_normalize", _markdown_it_normalize())
    try:
        old = chunk.parse_note(text, f"{name}.md", target_chars=200).chunks
    finally:
        markdown._parser.cache_clear()
    assert new == old and new
    assert new_tags == inline_tags(text)


def _markdown_it_normalize():
    from markdown_it.rules_core.normalize import normalize

    return normalize


def test_normalize_gives_markdown_it_the_text_its_own_rule_did():
    from markdown_it import MarkdownIt

    text = "a\r\nb\rc\n\0d\r\n\r\n```\r\ncode\0\r\n```\n"
    theirs = MarkdownIt("commonmark").parse(text)
    ours = markdown._parser(False).parse(text)
    assert [(t.type, t.map, t.content) for t in ours] == [(t.type, t.map, t.content) for t in theirs]
