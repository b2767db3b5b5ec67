"""The proximity signal measured and not kept (not used by the product): its score on
hand-made occurrence lists (pure logic), and its re-ranking on a real store."""

from __future__ import annotations

import math

import proximity  # research/proximity/ is on sys.path: pytest puts a test's own folder there
import variants


def test_adjacent_words_score_more_than_distant_ones_and_one_word_scores_nothing():
    weights = [2.0, 3.0]
    adjacent = proximity.score([(2, 0, 0), (2, 1, 1)], weights)
    apart = proximity.score([(2, 0, 0), (2, 4, 1)], weights)
    assert adjacent > apart > 0
    assert proximity.score([(2, 0, 0), (2, 1, 0), (2, 2, 0)], weights) == 0.0  # one query word only
    assert proximity.score([(0, 0, 0), (2, 1, 1)], weights) == 0.0  # two columns: no pair
    # the accumulators by hand: acc0 = 3/1, acc1 = 2/1; min(1, idf) = 1; k1 = 1.2
    expected = 3 * 2.2 / (3 + 1.2) + 2 * 2.2 / (2 + 1.2)
    assert math.isclose(adjacent, expected)


def test_best_window_counts_distinct_words_inside_the_width():
    occ = [(2, 0, 0), (2, 1, 1), (2, 9, 2), (2, 10, 1)]
    assert variants.best_window(occ, [1.0, 2.0, 4.0], 2) == (6.0, 2)  # words 2 and 1 at 9-10
    assert variants.best_window(occ, [1.0, 2.0, 4.0], 11) == (7.0, 3)
    assert variants.best_window([(2, 0, 0)], [1.0], 5) == (0.0, 0)


def test_rerank_lifts_the_passage_that_says_the_words_together(tmp_path):
    from pms_tui.core.kb import KnowledgeBase
    from pms_tui.core.search import query as fts_query

    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "together.md").write_text("# Sync job\n\nThe vendor API may rate limit us at night.\n")
    (notes / "apart.md").write_text(
        "# Limits\n\nThe API of the mirror has a quota.\n\nSet the transfer rate of the copy.\n\n"
        "Raise the open file limit. The API answers slowly and the rate varies a lot.\n")
    for i in range(12):  # notes without the query's words, so that the words are rare (idf)
        (notes / f"other-{i}.md").write_text(f"# Other {i}\n\nBread, onions and garden tools number {i}.\n")
    kb = KnowledgeBase(home=tmp_path / "home")
    try:
        kb.collections.create(notes, name="notes")
        kb.sync(embed=False)
        r = kb.retrieval
        query = "api rate limit"
        ranked = r.bm25.ranked(query, 10)
        assert len(ranked) == 2
        paths = dict(r.store.conn.execute(
            "SELECT c.id, d.path FROM chunks c JOIN documents d ON d.id = c.document_id"))
        assert [paths[c] for c, _ in ranked] == ["apart.md", "together.md"]  # BM25: more occurrences win
        moved = proximity.rerank(r.store.conn, r.planner, fts_query.build_match(query), ranked, 2.0)
        assert [paths[c] for c, _ in moved] == ["together.md", "apart.md"]
        assert proximity.rerank(r.store.conn, r.planner, fts_query.build_match(query), ranked, 0.0) == ranked
    finally:
        kb.close()
