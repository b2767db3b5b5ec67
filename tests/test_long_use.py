"""Long use: the caches on the search path at and past their capacity, and connections that
must not pile up when every search runs on a new thread (as the app's workers do).

The failing pattern: a query whose words were cached by earlier queries, sent after
the cache has filled, with enough new words to evict its own cached ones. The stem cache read
every word back after inserting the new ones and raised KeyError. The soak suite
(``tests/soak``, marked slow) keeps one knowledge base busy for thousands of queries.
"""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest

from tests.kb_helpers import write
from pms_tui.core.kb import KnowledgeBase
from pms_tui.core.search import bm25_planner
from pms_tui.core.indexing import embed as embed_module


def _words(prefix: str, n: int) -> list[str]:
    return [f"{prefix}{i}word" for i in range(n)]


@pytest.fixture
def text_kb(tmp_path):
    folder = tmp_path / "notes"
    for i in range(20):
        write(folder, f"n{i}.md", f"# Note {i}\n\nDatabases need indexes; people use search {i} times.\n")
    kb = KnowledgeBase(home=tmp_path / "home")
    kb.collections.create(folder, name="notes")
    kb.sync(embed=False)
    yield kb
    kb.close()


def test_stem_cache_past_capacity_keeps_a_requests_own_words(text_kb):
    """Fill the cache to capacity, then ask for words cached first together with enough new
    ones to evict them: every word comes back with its stems, as a fresh planner gives them."""
    planner, conn = text_kb.retrieval.planner, text_kb._store.conn
    size = bm25_planner.STEM_CACHE_SIZE
    early = ["need", "people", "use", "found"]
    planner.stems(conn, early)
    planner.stems(conn, _words("fill", size - len(early)))  # the cache is now exactly full
    state = planner._state(conn)
    assert len(state.tokens) == size
    request = early + _words("new", 300)  # inserting 300 evicts the oldest 300: the early words
    got = planner.stems(conn, request)
    assert set(got) == set(request)
    assert got["people"] == ["peopl"] and got["need"] == ["need"]
    fresh = bm25_planner.Bm25Planner().stems(conn, request)
    assert got == fresh
    assert len(state.tokens) == size


def test_stem_cache_is_least_recently_used(text_kb):
    """A word asked for again moves to the back: a steady stream of new words does not evict
    the words every query repeats."""
    planner, conn = text_kb.retrieval.planner, text_kb._store.conn
    size = bm25_planner.STEM_CACHE_SIZE
    for round_ in range(3):
        planner.stems(conn, ["databases"] + _words(f"r{round_}x", size // 2))
    assert "databases" in planner._state(conn).tokens


def test_frequencies_past_capacity(text_kb, monkeypatch):
    """The document-frequency cache, dropped whole when full, still answers every term of the
    request that filled it, and the plan matches a cold planner's."""
    monkeypatch.setattr(bm25_planner, "DF_CACHE_SIZE", 40)
    planner, conn = text_kb.retrieval.planner, text_kb._store.conn
    common = ['"databases"', '"indexes"', '"people"', '"search"']
    for i in range(5):  # 5 x 30 distinct words, past the cap of 40 several times
        planner.groups(conn, " OR ".join(common + [f'"{w}"' for w in _words(f"q{i}x", 30)]))
    match = " OR ".join(common + [f'"{w}"' for w in _words("last", 60)])
    rows, groups = planner.groups(conn, match)
    rows_cold, groups_cold = bm25_planner.Bm25Planner().groups(conn, match)
    assert rows == rows_cold == 20
    assert [(g.text, g.df, g.cost) for g in groups] == [(g.text, g.df, g.cost) for g in groups_cold]
    assert {g.text: g.df for g in groups}['"databases"'] == 20
    assert len(planner._state(conn).df) <= 40 + 64


def test_paragraph_queries_past_the_stem_cache(text_kb, monkeypatch):
    """The pattern end to end: paragraph-long hybrid searches that share common words
    run past a small stem cache without an error, and rank as a cold engine ranks them."""
    monkeypatch.setattr(bm25_planner, "STEM_CACHE_SIZE", 64)
    text_kb.model.load()
    common = "we need people to use what they found in databases and indexes".split()
    failures = []
    for i in range(40):
        query = " ".join(common[: 4 + i % 8] + _words(f"p{i}x", 25))
        try:
            text_kb.search(query, k=5, mode="hybrid")
        except KeyError as exc:  # the bug: a word of this request evicted by its own insertions
            failures.append(repr(exc))
    assert failures == []
    warm = [h.chunk_id for h in text_kb.search("people need databases", k=5, mode="bm25")]
    text_kb.retrieval.planner.clear_caches()
    cold = [h.chunk_id for h in text_kb.search("people need databases", k=5, mode="bm25")]
    assert warm == cold and warm


def test_query_vector_cache_past_capacity(text_kb, monkeypatch):
    """Query vectors: bounded, least recently used out, and the same vector as a cold embed
    after the cache has turned over; threads sharing it never see an entry vanish mid-read."""
    monkeypatch.setattr(embed_module, "QUERY_CACHE_SIZE", 8)
    text_kb.model.load()
    embedder = text_kb._embedder
    first = embedder.embed_query("undo the last commit").copy()
    for i in range(30):
        embedder.embed_query(f"query number {i}")
        embedder.embed_query("undo the last commit")  # kept: used again each time
    assert len(embedder._query_cache) == 8
    assert "undo the last commit" in embedder._query_cache
    embedder.clear_query_cache()
    assert np.allclose(embedder.embed_query("undo the last commit"), first)

    errors: list[BaseException] = []

    def hammer(seed: int) -> None:
        try:
            for i in range(40):
                embedder.embed_query(f"shared {(seed + i) % 12}")
        except BaseException as exc:  # noqa: BLE001 - any error fails the test below
            errors.append(exc)

    threads = [threading.Thread(target=hammer, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(embedder._query_cache) <= 8


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc to count file descriptors")
def test_a_thread_per_search_does_not_leak_connections(text_kb):
    """The app searches from a new worker thread each time: 300 such searches leave the open
    file descriptors and the store's connections where they were after the first few (each
    search kept its own connection, two descriptors, until the process ran out)."""
    def search_on_a_new_thread(i: int) -> None:
        t = threading.Thread(target=lambda: text_kb.search(f"databases people {i}", k=3, mode="bm25"))
        t.start()
        t.join()

    for i in range(10):
        search_on_a_new_thread(i)
    before = _open_fds()
    for i in range(300):
        search_on_a_new_thread(i)
    assert _open_fds() <= before + 2
    assert text_kb._store.connection_count() <= 3  # the writer, the main thread's reader, the last thread's
    hits = text_kb.search("databases", k=3, mode="bm25")  # the main thread's own connection still works
    assert len(hits) == 3
