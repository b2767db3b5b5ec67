"""Retrieval: query building, fusion, and hybrid search over a real index."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from tests.kb_helpers import write
from pms_tui.core.search import query as fts_query
from pms_tui.core.results import SNIPPET_CLOSE, SNIPPET_OPEN, SearchResult
from pms_tui.core.errors import UsageError
from pms_tui.core.search.fusion import fuse, mark_words

HOSTILE = [
    '"', '""', "'", "*", "-", ":", "^", "(", ")", "()", "NEAR", "NEAR(a b)", "AND", "OR NOT",
    'title:git', "-git", "git*", '"unbalanced', "a AND OR b", "^start", "{col}: x", "\\", "%_",
    "日本語のクエリ", "émoji 🎉 test", "x" * 5000, "   ", "", "\x00", "NOT NOT NOT",
]


# -- query building (pure) ------------------------------------------------------------------
def test_terms_are_quoted_and_ored():
    assert fts_query.build_match("undo last commit", prefix=False) == '"undo" OR "last" OR "commit"'


def test_stopwords_dropped_unless_only_stopwords():
    assert fts_query.build_match("what is the context pollution", prefix=False) == '"context" OR "pollution"'
    assert fts_query.build_match("what is the", prefix=False) == '"what" OR "is" OR "the"'


def test_last_word_is_a_prefix_while_typing():
    assert fts_query.build_match("git reb") == '"git" OR "reb"*'
    assert fts_query.build_match("git reb ") == '"git" OR "reb"'
    assert fts_query.build_match("git rebase?") == '"git" OR "rebase"'
    assert fts_query.prefix_word("git reb") == "reb"
    assert fts_query.prefix_word("git reb ") is None and fts_query.prefix_word("git rebase?") is None
    assert fts_query.prefix_word("git a") is None  # one letter: not a prefix yet


def test_operators_become_plain_words():
    assert fts_query.build_match('NEAR("x" AND) title:git', prefix=False) == '"near" OR "x" OR "title" OR "git"'
    assert fts_query.build_match("* - ^ ( ) :") is None


def test_long_pasted_text_is_capped():
    match = fts_query.build_match(" ".join(f"word{i}" for i in range(200)))
    assert match.count(" OR ") == fts_query.MAX_TERMS - 1


def test_a_word_said_many_times_counts_as_said_a_few():
    """Each repeat is a phrase FTS5 scores on every row holding the word: "a a a ..." pasted
    is not a query that scores for seconds. The last occurrences are kept, the last word last."""
    capped = fts_query.MAX_REPEATS
    assert fts_query.build_match("a " * 300, prefix=False) == " OR ".join(['"a"'] * capped)
    assert fts_query.build_match("git commit " * 20 + "rebase git", prefix=False) == " OR ".join(
        ['"commit"', '"git"'] * (capped - 1) + ['"commit"', '"rebase"', '"git"'])
    assert fts_query.build_match("reb " * 20 + "git reb").endswith('"git" OR "reb"*')
    assert fts_query.build_match("git git commit", prefix=False) == '"git" OR "git" OR "commit"'  # said twice


# -- fusion (pure logic: ids stand in for chunks) -------------------------------------------
def test_rrf_fuses_and_normalises():
    fused = fuse({"bm25": [10, 20, 30], "vector": [20, 40]}, k=60)
    assert [f.chunk_id for f in fused] == [20, 10, 40, 30]
    top = fused[0]
    assert top.ranks == {"bm25": 2, "vector": 1}
    assert top.rrf == pytest.approx(1 / 62 + 1 / 61)
    assert top.score == pytest.approx(0.5 * 61 / 62 + 0.5 * 61 / 61)
    assert fuse({"bm25": [1], "vector": [1]}, k=60)[0].score == pytest.approx(1.0)


def test_the_score_follows_the_order_when_the_lanes_k_differ():
    # BM25 trusted (k 2), the vector lane at k 3: BM25's #3 (1/5) ranks above the vector
    # lane's #3 (1/6), and its shown score must say so (per-lane (k+1) factors would show
    # 0.30 against 0.33)
    fused = fuse({"bm25": [1, 2, 3], "vector": [4, 5, 6]}, k={"bm25": 2, "vector": 3})
    assert [f.chunk_id for f in fused][:2] == [1, 4]
    scores = [f.score for f in fused]
    assert scores == sorted(scores, reverse=True)
    assert fused[0].score == pytest.approx((1 / 3) / (1 / 3 + 1 / 4))
    assert fuse({"bm25": [1], "vector": [1]}, k={"bm25": 2, "vector": 3})[0].score == pytest.approx(1.0)


def test_rrf_weights_shift_the_order():
    fused = fuse({"bm25": [1, 2], "vector": [2, 1]}, k=1, weights={"bm25": 3.0, "vector": 1.0})
    assert [f.chunk_id for f in fused] == [1, 2]


@given(hs.lists(hs.integers(0, 50), unique=True, max_size=30), hs.lists(hs.integers(0, 50), unique=True, max_size=30))
@settings(max_examples=200, deadline=None)
def test_rrf_scores_stay_in_unit_interval(a, b):
    for k in (60, {"bm25": 2, "vector": 3}):
        fused = fuse({"bm25": a, "vector": b}, k=k, weights={"bm25": 0.25, "vector": 1.0})
        assert all(0 < f.score <= 1.0 + 1e-9 for f in fused)
        assert [f.score for f in fused] == sorted((f.score for f in fused), reverse=True)


def test_mark_words_highlights_query_words():
    text = "The event loop schedules callbacks and runs coroutines."
    assert f"{SNIPPET_OPEN}schedules{SNIPPET_CLOSE}" in mark_words(text, ["schedule"])


# -- search on a real index -----------------------------------------------------------------
def test_hybrid_hit_carries_all_evidence(synced_kb):
    hits = synced_kb.search("how do I undo the last commit", k=3)
    top = hits[0]
    assert top.relpath == "git/undo-commit.md"
    assert top.collection == "notes"
    assert top.title == "Undo the last commit"
    assert top.heading_path[0] == "Undo the last commit"
    assert top.bm25_rank is not None and top.vector_rank is not None
    assert top.bm25 is not None and 0 <= top.distance <= 2
    assert 0 < top.score <= 1 and top.rrf > 0
    assert SNIPPET_OPEN in top.snippet
    lines = open(top.path, encoding="utf-8").read().splitlines()
    assert "\n".join(lines[top.start_line - 1 : top.end_line]) == top.text


def test_meaning_is_found_without_shared_words(synced_kb):
    hits = synced_kb.retrieval.vector_search("baking a loaf in the oven", k=1)
    assert hits[0].relpath == "cooking/bread.md"
    assert hits[0].bm25_rank is None and hits[0].vector_rank == 1


def test_bm25_search_marks_words(synced_kb):
    hits = synced_kb.retrieval.bm25_search("soft reset", k=2)
    assert hits[0].relpath == "git/undo-commit.md"
    assert hits[0].vector_rank is None
    assert f"{SNIPPET_OPEN}soft{SNIPPET_CLOSE}" in hits[0].snippet


def test_candidates_are_id_lists(synced_kb):
    bm25_ids, vector_ids = synced_kb.retrieval.candidates("event loop", k=5)
    assert bm25_ids and vector_ids and all(isinstance(i, int) for i in bm25_ids + vector_ids)


@pytest.mark.parametrize("query", HOSTILE)
def test_hostile_queries_never_raise(synced_kb, query):
    for mode in ("hybrid", "bm25", "vector"):
        if not query.strip():  # nothing asked: the one sentence every front end shows
            with pytest.raises(UsageError, match="The query is empty"):
                synced_kb.search(query, k=5, mode=mode)
            continue
        hits = synced_kb.search(query, k=5, mode=mode)
        assert isinstance(hits, SearchResult)


def test_stopword_repetition_does_not_win(kb, tmp_path):
    folder = tmp_path / "sw"
    write(folder, "spam.md", "# Filler\n\n" + "what is it what is it what is this " * 20 + "\n")
    write(folder, "answer.md", "# Context pollution\n\nPrompt context pollution is when stale text crowds the window.\n")
    kb.collections.create(folder, name="sw")
    kb.sync()
    assert kb.search("what is prompt context pollution", k=1, mode="bm25")[0].relpath == "answer.md"


def test_collection_filter(kb, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    write(a, "x.md", "# Rust ownership\n\nBorrowing rules of the Rust compiler.\n")
    for i in range(30):
        write(b, f"r{i}.md", f"# Rust note {i}\n\nRust borrowing and ownership, variant {i}.\n")
    kb.collections.create(a, name="a")
    kb.collections.create(b, name="b")
    kb.sync()
    for mode in ("hybrid", "bm25", "vector"):
        hits = kb.search("rust borrowing ownership", k=5, mode=mode, collections=["a"])
        assert [h.relpath for h in hits] == ["x.md"], mode
    assert {h.collection for h in kb.search("rust", k=40, collections=["a", "b"])} == {"a", "b"}


def test_bm25_only_while_model_loads(synced_kb):
    result = synced_kb.retrieval.search("sourdough", k=3, vector=False)
    assert result.lanes == ("bm25",) and result.notes
    assert result.hits[0].vector_rank is None


def test_recent_lists_notes_for_an_empty_query(synced_kb):
    assert {h.relpath for h in synced_kb.recent(10)} == {"git/undo-commit.md", "cooking/bread.md", "python/asyncio.md"}
    with pytest.raises(UsageError, match="The query is empty"):
        synced_kb.search("", k=5)


@pytest.mark.parametrize("query", ["undo the last commit", "sourdough starter feeding", "git"])
def test_what_bm25_s_side_reads_while_the_vector_lane_runs_changes_no_answer(synced_kb, query):
    """While the vector lane runs on the other core, the BM25 thread reads the coverage signal
    and its first hits' rows and snippets (Retrieval._while_waiting). Held here until that
    read is done, the vector lane finishes last for certain; the same search without the early
    read must give the same hits, snippets, scores and fusion."""
    import threading

    retrieval = synced_kb.retrieval
    lane, early = retrieval.vector_ranked, retrieval._while_waiting
    gate = threading.Event()
    read_early = []

    def held_lane(*args, **kwargs):
        assert gate.wait(10)
        return lane(*args, **kwargs)

    def reading(lanes, *args):
        early(lanes, *args)
        read_early.append((lanes.coverage, dict(lanes.rows), dict(lanes.snippets)))
        gate.set()

    def shown(result):
        return [(h.path, h.start_line, h.snippet, h.score, h.bm25_rank, h.vector_rank) for h in result.hits], \
            result.fusion.to_json(), result.match.to_json()

    synced_kb._embedder.clear_query_cache()
    retrieval.vector_ranked, retrieval._while_waiting = held_lane, reading
    try:
        with_early = shown(synced_kb.search(query, k=5))
    finally:
        retrieval.vector_ranked, retrieval._while_waiting = lane, early
    assert len(read_early) == 1 and read_early[0][1]  # it did read rows ahead
    retrieval._while_waiting = lambda *args: None
    try:
        without = shown(synced_kb.search(query, k=5))
    finally:
        retrieval._while_waiting = early
    assert with_early == without
    assert with_early[0]
