"""The reader reads every note the engine indexes (up to ``max_note_mb``), a window of it,
and says which limit applies when a note is larger."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

from tests.tui.tui_helpers import write_note

from pms_tui.tui.note_window import read_window


def _big_note(folder: Path, megabytes: float) -> Path:
    section = "## Part {i}\n\nThe reader keeps line {i} of the big note, with words enough to be a paragraph.\n\n"
    parts, size, i = [], 0, 0
    while size < megabytes * 1_000_000:
        part = section.format(i=i)
        parts.append(part)
        size += len(part)
        i += 1
    parts.append("## The end\n\nThe zanzibar marker is in the last part.\n")
    return write_note(folder, "big.md", "# Big\n\n" + "".join(parts))


def test_a_note_larger_than_two_mb_is_read_as_a_window_and_the_limit_named_is_the_settings(tmp_path: Path):
    from pms_tui.core.kb import KnowledgeBase

    folder = tmp_path / "notes"
    _big_note(folder, 2.6)
    home = tmp_path / "home"
    with KnowledgeBase(home=home) as kb:
        kb.collections.create(folder, name="notes")
        kb.sync(embed=False)
        assert kb.settings.max_note_mb == 20
        hits = kb.chunks_of("notes", "big.md")
        last = max(hits, key=lambda h: h.start_line)
        started = time.perf_counter()
        window = read_window(last, kb)
        print(f"a 2.6 MB note's window read in {time.perf_counter() - started:.2f} s")
        assert "cannot be read" not in window.markdown and "too large" not in window.markdown
        assert "zanzibar marker" in window.markdown and window.clipped
        assert window.markdown.count("\n") < 1_000 and window.total_lines > 20_000

    # a reader whose engine indexes notes up to 1 MB says so (not a limit of its own)
    smaller = dataclasses.replace(kb.settings, max_note_mb=1)
    with KnowledgeBase(home=home, settings=smaller) as kb:
        window = read_window(last, kb)
        assert "cannot be read" in window.markdown
        assert "up to 1 MB are indexed" in window.markdown and "2 MB" not in window.markdown
