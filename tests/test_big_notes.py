"""Big notes stay bounded: a fence longer than any window is closed by its closing line (not
parsed whole), a paragraph of a million lines is cut at a window's end, a block of lines past
MAX_BLOCK_FACTOR x the target is cut between lines with exact line numbers, and the size limit
is a setting. (Memory at 20 MB: tests/faults/test_memory.py with -m slow.)"""

from __future__ import annotations

from pms_tui.core import markdown
from pms_tui.core.kb import KnowledgeBase, chunk_markdown

from tests.kb_helpers import write


def test_a_fence_longer_than_the_window_has_the_blocks_of_a_whole_parse():
    text = "# Code\n\nintro\n\n```python\n" + "x = compute(y) + 1\n" * 20_000 + "```\n\n## After\n\ntext\n"
    whole = markdown._scan_window(text, 0)[0]
    assert len(text) > 4 * markdown.WINDOW_CHARS
    assert markdown.scan(text) == whole
    unclosed = "para\n\n~~~\n" + "still code\n" * 20_000
    assert markdown.scan(unclosed) == markdown._scan_window(unclosed, 0)[0]


def test_a_paragraph_past_the_largest_window_is_cut_at_its_end():
    text = "# Lines\n\n" + "a short line of text\n" * 60_000  # one paragraph of 1.26 MB
    blocks = [b for b in markdown.scan(text).blocks if b.kind == "paragraph"]
    assert len(blocks) == 2 and blocks[0].end == blocks[1].start and blocks[1].end == 60_002


def test_a_huge_fence_is_cut_between_lines_into_chunks_of_exact_lines():
    lines = ["# Dump", "", "```"] + [f"row {i} = value {i * 7}" for i in range(40_000)] + ["```", "", "after"]
    text = "\n".join(lines) + "\n"
    chunks = chunk_markdown(text, target_chars=1000)
    assert max(len(c.text) for c in chunks) <= 256_000 and len(chunks) >= 4
    for c in chunks:
        assert c.text == "\n".join(lines[c.start_line - 1 : c.end_line])
    covered = sorted({n for c in chunks for n in range(c.start_line, c.end_line + 1)})
    assert covered[-1] == len(lines) and len(covered) >= len(lines) - 2  # the blank lines aside


def test_the_note_size_limit_is_a_setting_and_a_larger_note_is_skipped_with_the_reason(tmp_path):
    home, notes = tmp_path / "home", tmp_path / "notes"
    write(notes, "small.md", "# Small\n\nwombat\n")
    write(notes, "big.md", "# Big\n\n" + "lorem ipsum dolor sit amet\n" * 50_000)  # 1.35 MB
    home.mkdir()
    (home / "config.toml").write_text("max_note_mb = 1\n")
    with KnowledgeBase(home=home) as kb:
        kb.collections.create(notes, name="notes")
        report = kb.sync(embed=False)
    assert [p for p, _ in report.skipped] == ["notes/big.md"]
    assert "too large (1.4 MB; notes up to 1 MB are indexed: max_note_mb in config.toml)" == report.skipped[0][1]
    (home / "config.toml").write_text("max_note_mb = 2\n")
    with KnowledgeBase(home=home) as kb:
        assert "notes/big.md" in kb.sync(embed=False).added


def test_a_note_of_too_many_lines_or_blocks_is_skipped_with_the_reason(kb, tmp_path, monkeypatch):
    from pms_tui.core.indexing import chunk

    notes = tmp_path / "dense"
    write(notes, "lines.md", "- x\n" * 30_000)
    write(notes, "blocks.md", "".join(f"## h {i}\n\n" for i in range(800)) + "- a\n  - b\n" * 12_000)  # windowed
    write(notes, "fine.md", "# Fine\n\nwombat\n")
    monkeypatch.setattr(chunk, "MAX_NOTE_LINES", 30_000)
    monkeypatch.setattr(chunk, "MAX_NOTE_BLOCKS", 10_000)
    kb.collections.create(notes, name="dense")
    report = kb.sync(embed=False)
    reasons = dict(report.skipped)
    assert report.added == ["dense/fine.md"]
    assert reasons["dense/lines.md"].startswith("too many lines (30,001; notes of up to 30,000 lines")
    assert reasons["dense/blocks.md"].startswith("too many Markdown blocks (over 10,000")
