"""``explain`` and search agree on every rank: in a home where the bundled guide stepped aside,
the note's rank in each lane is the one its hits carry (the guide's passages, which search
leaves out, never push it down), with the real model and real SQLite."""

from __future__ import annotations

import pytest

from pms_tui.core.kb import KnowledgeBase
from tests.kb_helpers import NOTES, write

# Several of these are about what the guide explains too (search, tags, links, the guide's
# sourdough example), so its passages would be ahead of the user's notes in a lane ranking all.
QUERIES = [
    "sourdough starter feeding schedule",
    "how do I search my notes with tags",
    "undo the last commit",
    "follow a link to another note",
    "bread dough rise overnight",
    "async python event loop",
]


@pytest.fixture(scope="module")
def aside_home(tmp_path_factory):
    base = tmp_path_factory.mktemp("explain-agrees")
    folder = base / "notes"
    for rel, text in NOTES.items():
        write(folder, rel, text)
    write(folder, "kitchen/starter.md", "# Sourdough starter\n\nFeed the starter flour and water on a schedule, "
                                        "twice a day, and keep it warm.\n")
    write(folder, "notes/searching.md", "# Searching notes\n\nSearch my notes by words and filter by tags; "
                                        "a link leads to another note.\n")
    with KnowledgeBase(base / "home") as kb:
        kb.scope.add_guide()
        kb.collections.create(folder, name="notes")
        kb.sync()
        assert kb.scope.guide_aside() is not None
    with KnowledgeBase(base / "home") as kb:
        kb.model.load()
        yield kb


@pytest.mark.parametrize("query", QUERIES)
def test_explain_gives_the_ranks_search_shows(aside_home, query):
    kb = aside_home
    result = kb.search(query, k=kb.settings.lane_depth)
    assert result.lanes == ("bm25", "vector") or set(result.lanes) == {"bm25", "vector"}
    assert {h.collection for h in result} == {"notes"}  # the guide stepped aside
    best: dict[str, dict[str, int | None]] = {}
    for hit in result:
        ranks = best.setdefault(f"{hit.collection}/{hit.relpath}", {"bm25": None, "vector": None})
        for lane, rank in (("bm25", hit.bm25_rank), ("vector", hit.vector_rank)):
            if rank is not None and (ranks[lane] is None or rank < ranks[lane]):
                ranks[lane] = rank
    fused = {}
    for i, hit in enumerate(result, 1):
        fused.setdefault(f"{hit.collection}/{hit.relpath}", i)
    assert best
    for note, ranks in best.items():
        explained = kb.searcher.explain(query, note)
        assert (explained.bm25_rank, explained.vector_rank, explained.fused_rank) == (
            ranks["bm25"], ranks["vector"], fused[note]), note


def test_a_guide_note_asked_about_is_still_explained(aside_home):
    explained = aside_home.searcher.explain("sourdough starter feeding schedule", "guide/examples/sourdough.md")
    assert explained.bm25_rank is not None and explained.vector_rank is not None
