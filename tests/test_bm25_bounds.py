"""The BM25 planner decides "few rows: run as written" from document frequencies when they
can tell (a phrase's rows bound the OR-query's from below, their sum from above), and reads
the index's row count from FTS5's own averages record. Checked on a real index against
FTS5's own counts."""

from __future__ import annotations

import random

import pytest

from tests.kb_helpers import text_only_kb, write
from pms_tui.core.kb import KnowledgeBase
from pms_tui.core.search import query as fts_query
from pms_tui.core.search.bm25_planner import Bm25Planner, _Group
from pms_tui.core.store import fts

COMMON = ["file", "command", "value", "system", "output"]
RARE = ["zoxide", "quokka", "fjord", "sextant"]


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    """300 notes (more than 127 rows: the row count's varint takes two bytes)."""
    root = tmp_path_factory.mktemp("bounds")
    rng = random.Random(5)
    folder = root / "notes"
    for i in range(300):
        words = [rng.choice(COMMON) for _ in range(rng.randint(5, 20))]
        if i % 7 == 0:
            words.append(rng.choice(RARE))
        write(folder, f"n{i:03}.md", f"# Note {i}\n\n" + " ".join(words) + "\n")
    kb = text_only_kb(root / "home", folder)
    yield kb
    kb.close()


def test_row_count_is_the_index_rows(kb):
    conn = kb._store.conn
    chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    assert chunks > 127
    assert fts.row_count(conn) == chunks


def test_row_count_of_an_empty_index(tmp_path):
    empty = KnowledgeBase(tmp_path / "home", embedder=None)
    try:
        assert fts.row_count(empty._store.conn) == 0
    finally:
        empty.close()


def test_varint_decodes_multi_byte_values():
    assert fts._varint(bytes([0x05])) == 5
    assert fts._varint(bytes([0x82, 0x2C, 0xFF])) == 300
    assert fts._varint(bytes([0x86, 0x8D, 0x2E])) == 100_014
    assert fts._varint(bytes([0xFF] * 8 + [0x01])) == (2**56 - 1) << 8 | 1


class FakeCounter:
    """Stands in for the index's counting query: returns a fixed number, records calls."""

    def __init__(self, n: int):
        self.n, self.calls = n, 0

    def __call__(self, part=None) -> int:
        self.calls += 1
        return self.n


class IndexCounter:
    """The index's own capped count of the OR of some phrases (None: the whole query's)."""

    def __init__(self, conn, match: str, cap: int):
        self.conn, self.match, self.cap, self.parts = conn, match, cap, []

    def __call__(self, part=None) -> int:
        self.parts.append(part)
        expression = self.match if part is None else " OR ".join(g.text for g in part)
        return self.conn.execute("SELECT count(*) FROM (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?)",
                                 (expression, self.cap)).fetchone()[0]


def g(df: int, cost: int, tokens=("w",), prefix=False) -> _Group:
    return _Group('"w"', 1, list(tokens), prefix, df, cost)


def test_bounds_decide_without_counting():
    many = FakeCounter(10**6)
    assert Bm25Planner._fewer_than([g(700, 700), g(5, 5)], 600, False, many) is False
    assert many.calls == 0  # one phrase alone holds more rows than the cap
    few = FakeCounter(0)
    assert Bm25Planner._fewer_than([g(300, 300), g(200, 200)], 600, False, few) is True
    assert few.calls == 0  # all phrases together hold fewer


def test_undecided_bounds_count():
    counter = FakeCounter(599)
    assert Bm25Planner._fewer_than([g(400, 400), g(300, 300)], 600, False, counter) is True
    assert counter.calls == 1
    # a filter narrows the rows: the whole index's frequency is no lower bound
    counter = FakeCounter(10)
    assert Bm25Planner._fewer_than([g(700, 700), g(5, 5)], 600, True, counter) is True
    assert counter.calls == 1
    # a phrase whose last token is a prefix: its cost is no upper bound
    counter = FakeCounter(900)
    phrase = g(0, 1, tokens=("a", "b"), prefix=True)
    assert Bm25Planner._fewer_than([phrase, g(100, 100)], 600, False, counter) is False
    assert counter.calls == 1


@pytest.mark.parametrize("query", ["zoxide file", "quokka fjord", "file command value", "zoxide quokka fjord sextant",
                                   "command outp", "fjord sextant system"])
@pytest.mark.parametrize("cap", [1, 10, 50, 150, 299, 1000])
def test_bound_decisions_agree_with_fts5_counts(kb, query, cap):
    conn = kb._store.conn
    match = fts_query.build_match(query)
    planner = Bm25Planner()
    rows, groups = planner.groups(conn, match)
    true_count = conn.execute(
        "SELECT count(*) FROM (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?)", (match, cap)
    ).fetchone()[0]
    counter = IndexCounter(conn, match, cap)
    assert Bm25Planner._fewer_than(groups, cap, False, counter) is (true_count < cap)


def test_the_most_frequent_phrases_decide_a_long_query_alone(kb):
    """When a long query's most frequent phrases already reach the cap, the whole OR is not
    counted (theirs is a subset of its rows); when they do not, it is, and the answer is the
    whole query's either way."""
    conn = kb._store.conn
    match = fts_query.build_match(" ".join(COMMON + RARE))
    rows, groups = Bm25Planner().groups(conn, match)
    assert len(groups) == len(COMMON) + len(RARE)
    top = sorted(groups, key=lambda g: -g.df)
    union2 = IndexCounter(conn, match, 10**6)(top[:2])
    cap = min(union2, int((top[0].df + top[1].df) / 1.5))  # reached by the two most frequent
    assert top[0].df < cap
    counter = IndexCounter(conn, match, cap)
    assert Bm25Planner._fewer_than(groups, cap, False, counter) is False
    assert counter.parts == [top[:2]]
    # a cap the frequent phrases cannot reach: the whole OR is counted too
    total = IndexCounter(conn, match, 10**6)(None)
    counter = IndexCounter(conn, match, total + 1)
    assert Bm25Planner._fewer_than(groups, total + 1, False, counter) is True
    assert counter.parts[-1] is None
