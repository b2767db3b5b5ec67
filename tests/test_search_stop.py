"""A search told to stop (the app's search for a query typed over) ends at its next step in
SQLite, says so with SearchStopped, and leaves its connection as it was (real SQLite)."""

from __future__ import annotations

import pytest
from tests.kb_helpers import NOTES, text_only_kb, write

from pms_tui.core.errors import describe
from pms_tui.core.errors import SearchStopped

QUERY = "undo the last commit"


@pytest.fixture
def kb(tmp_path):
    folder = tmp_path / "notes"
    for rel, text in NOTES.items():
        write(folder, rel, text)
    kb = text_only_kb(tmp_path / "home", folder)
    yield kb
    kb.close()


def ids(result) -> list[int]:
    return [h.chunk_id for h in result]


def test_a_search_whose_stop_turns_true_midway_ends_with_search_stopped(kb):
    expected = ids(kb.search(QUERY, k=10))
    assert expected
    asked = []

    def stop() -> bool:  # the newer query arrives after the search's first steps in SQLite
        asked.append(True)
        return len(asked) > 1

    with pytest.raises(SearchStopped) as stopped:
        kb.search(QUERY, k=10, stop=stop)
    assert len(asked) >= 2
    assert "newer query" in describe(stopped.value)  # a sentence, should it ever be shown
    # the connection is usable after, with no stop check left on it
    assert ids(kb.search(QUERY, k=10)) == expected


def test_a_stop_that_stays_false_changes_nothing(kb):
    asked = []

    def stop() -> bool:
        asked.append(True)
        return False

    for query in (QUERY, "sourdough bread", "asyncio tasks", "tag:git reset"):
        assert ids(kb.search(query, k=10, stop=stop)) == ids(kb.search(query, k=10))
    assert asked, "the stop check was never asked"


def test_a_stopped_search_changes_nothing_in_the_index(kb):
    before = kb.stats()
    with pytest.raises(SearchStopped):
        kb.search(QUERY, k=10, stop=lambda: True)
    assert kb.stats() == before
    assert kb._store.conn.in_transaction is False


def test_a_search_stopped_at_any_step_leaves_the_next_search_whole(kb):
    # the search writes its snippets' rows to a scratch table and clears it after: a stop at
    # that moment left rows behind, and the next search failed on them ("constraint failed")
    expected = [(h.chunk_id, h.snippet) for h in kb.search(QUERY, k=10)]
    steps = 0
    while True:
        steps += 1
        asked = []

        def stop() -> bool:
            asked.append(True)
            return len(asked) > steps

        try:
            kb.search(QUERY, k=10, stop=stop)
        except SearchStopped:
            assert [(h.chunk_id, h.snippet) for h in kb.search(QUERY, k=10)] == expected, steps
            continue
        break  # the search now finishes before its stop: every step was tried
    assert steps > 3
