"""A long text (more distinct phrases than ``MAX_PHRASES``) is ranked by its strongest
phrases: checked on a real index against FTS5's own ranking of the expected phrases."""

from __future__ import annotations

import pytest

from tests.kb_helpers import text_only_kb, write
from pms_tui.core.search import bm25_planner
from pms_tui.core.search.bm25_planner import MAX_PHRASES

# 30 made-up words (porter leaves them alone); word i is in every (i + 2)-th note, so a later
# word is rarer (a larger idf)
WORDS = [f"zqk{chr(ord('b') + i // 20)}{chr(ord('b') + i % 20)}" for i in range(30)]


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    root = tmp_path_factory.mktemp("longq")
    folder = root / "notes"
    for n in range(240):
        words = [w for i, w in enumerate(WORDS) if n % (i + 2) == 0] or ["plain"]
        write(folder, f"n{n:03}.md", f"# Note {n}\n\n" + " ".join(words) + " filler text\n")
    kb = text_only_kb(root / "home", folder)
    yield kb
    kb.close()


def plain(kb, expression: str, depth: int):
    conn = kb._store.conn
    return [(int(r[0]), float(r[1])) for r in conn.execute(
        "SELECT rowid, bm25(chunks_fts, 2.0, 1.5, 1.0, 1.0) AS s FROM chunks_fts WHERE chunks_fts MATCH ? "
        "ORDER BY s LIMIT ?", (expression, depth))]


def test_a_long_text_ranks_by_its_strongest_phrases(kb):
    assert len(WORDS) > MAX_PHRASES
    absent = [f"zqkabsent{c}" for c in "bcd"]  # no row holds them: they are the first to go
    query = " ".join(absent + WORDS) + " "
    ranked = kb.retrieval.bm25_ranked(query, 50)
    info = kb.retrieval.planner.last
    assert info.dropped == len(absent) + len(WORDS) - MAX_PHRASES
    kept = WORDS[-MAX_PHRASES:]  # the rarest
    expected = plain(kb, " OR ".join(f'"{w}"' for w in kept), 50)
    assert [c for c, _ in ranked] == [c for c, _ in expected]
    assert [s for _, s in ranked] == pytest.approx([s for _, s in expected], rel=1e-9)
    # and it is not the whole text's ranking (rows holding only the common words are gone)
    whole = plain(kb, " OR ".join(f'"{w}"' for w in absent + WORDS), 1000)
    assert len(whole) > len(plain(kb, " OR ".join(f'"{w}"' for w in kept), 1000))


def test_a_text_within_the_limit_is_ranked_whole(kb, monkeypatch):
    monkeypatch.setattr(bm25_planner, "MAX_PHRASES", len(WORDS))
    ranked = kb.retrieval.bm25_ranked(" ".join(WORDS) + " ", 50)
    assert kb.retrieval.planner.last.dropped == 0
    expected = plain(kb, " OR ".join(f'"{w}"' for w in WORDS), 50)
    assert [c for c, _ in ranked] == [c for c, _ in expected]


def test_strongest_keeps_the_query_order_and_puts_unmatched_last():
    g = bm25_planner._Group
    groups = [g('"a"', 1, ["a"], False, 5, 5, 1.0), g('"b"', 1, ["b"], False, 0, 0, 9.0),
              g('"c"', 1, ["c"], False, 1, 1, 3.0), g('"d"', 2, ["d"], False, 50, 50, 2.0)]
    assert [x.text for x in bm25_planner.strongest(groups, 2)] == ['"c"', '"d"']
    assert [x.text for x in bm25_planner.strongest(groups, 3)] == ['"a"', '"c"', '"d"']


def test_an_explanation_ranks_a_long_text_as_the_lane_does(kb):
    """`explain` scores the phrases the lane ranked by: the rank it gives a note is the rank the
    search showed (scored with all 30 phrases, notes holding the dropped common ones moved)."""
    query = " ".join(WORDS) + " "
    hits = kb.search(query, k=10, mode="bm25").hits
    assert len(hits) == 10
    ranks = [(h.bm25_rank, kb.searcher.explain(query, h.path, vector=False).bm25_rank) for h in hits]
    assert all(shown == explained for shown, explained in ranks), str(ranks)


def test_a_long_text_s_words_past_its_opening_are_ranked_too(kb):
    """A pasted paragraph whose distinctive words come late: the planner chooses from every
    word, not from the first ``query.MAX_TERMS`` (which here are one common word said 60 times)."""
    from pms_tui.core.search.query import MAX_TERMS

    rare = WORDS[-5:]
    query = "filler " * (MAX_TERMS + 12) + " ".join(rare) + " "
    ranked = kb.retrieval.bm25_ranked(query, 50)
    expected = plain(kb, " OR ".join(['"filler"'] * (MAX_TERMS + 12) + [f'"{w}"' for w in rare]), 50)
    assert [c for c, _ in ranked] == [c for c, _ in expected]
    assert kb.retrieval.planner.last.dropped == 0
