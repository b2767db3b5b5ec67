"""A search whose hits are huge chunks (a code fence of a big note, every line holding the
query word) shows marked snippets from the start of each chunk's body (FTS5's snippet() over
a whole 256 KB chunk took seconds per hit); a big chunk whose word comes after that start gets
the marked window around it instead."""

from __future__ import annotations

from pms_tui.core.results import SNIPPET_CLOSE, SNIPPET_OPEN
from pms_tui.core.store.fts import SNIPPET_BODY_CHARS


def test_huge_chunks_get_marked_snippets(kb, tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    lines = "x = compute(y) + 1\n" * 40_000  # 760 KB: chunks of a fence far past the snippet's reach
    (notes / "fence.md").write_text(f"# Code\n\n```\n{lines}```\n")
    late = "filler words here " * (SNIPPET_BODY_CHARS // 9)
    (notes / "late.md").write_text(f"# Late\n\n```\n{late}\nzebracorn appears late\n```\n")
    kb.collections.create(notes, name="n")
    kb.sync(embed=False)
    hits = kb.search("compute", k=5, mode="bm25").hits
    assert hits and all(len(h.text) > SNIPPET_BODY_CHARS for h in hits)
    assert all(f"{SNIPPET_OPEN}compute{SNIPPET_CLOSE}" in h.snippet for h in hits)
    late_hit = kb.search("zebracorn", k=1, mode="bm25").hits[0]
    assert "zebracorn" in late_hit.snippet.lower()
