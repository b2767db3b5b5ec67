"""Sorting the results by date keeps the notes that hold the query's words first: a passage the
model alone found (no BM25 rank) never rises above them for being newer."""

from __future__ import annotations

from pms_tui.core.results import Hit
from pms_tui.tui.result_rows import layout


def hit(rel: str, modified: float, bm25_rank: int | None, score: float) -> Hit:
    return Hit(1, "notes", f"/n/{rel}", rel, rel, [], 1, 1, "", "", score, score, bm25_rank=bm25_rank,
               vector_rank=1, modified=modified)


def test_newest_first_among_the_notes_holding_the_words_then_the_rest():
    hits = [hit("quokka-facts.md", 100.0, 1, 0.91), hit("old-quokka.md", 50.0, 2, 0.5),
            hit("impacket.md", 900.0, None, 0.03), hit("newer-unrelated.md", 800.0, None, 0.02)]
    for view in ("notes", "passages"):
        order = [row.hit.relpath for row in layout(hits, view, "modified")]
        assert order == ["quokka-facts.md", "old-quokka.md", "impacket.md", "newer-unrelated.md"], (view, order)
        assert [row.hit.relpath for row in layout(hits, view)][0] == "quokka-facts.md"
