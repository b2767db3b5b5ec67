"""The fast paths of search give the same answers as the plain ones.

BM25 planning (split / conjunction), the vector mirror loaded from vec0's shadow tables, and
snippets made on a small temporary table are all checked against the straightforward
queries on a real index. Vectors here come from a tiny deterministic stand-in for the model
(the real model is not what these tests are about); no test looks at wall-clock time.
"""

from __future__ import annotations

import hashlib
import random

import numpy as np
import pytest

from tests.kb_helpers import write
from pms_tui.core.search import bm25_planner as rt
from pms_tui.core.search.bm25 import SNIPPET_TOKENS
from pms_tui.core.config import DEFAULT_MODEL
from pms_tui.core.kb import KnowledgeBase
from pms_tui.core.search.vector_index import VectorIndex


class HashEmbedder:
    """Deterministic unit vectors per text, under the default model's name and size."""

    model_name = DEFAULT_MODEL
    dim = 384
    ready = True
    state = "ready"

    def load(self) -> None:
        pass

    def _one(self, text: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
        v = np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)
        return v / np.linalg.norm(v)

    def embed_documents(self, texts, progress=None):
        return np.stack([self._one(t) for t in texts]) if texts else np.zeros((0, self.dim), np.float32)

    def embed_query(self, text):
        return self._one(text)


COMMON = ["file", "command", "value", "system", "output", "name", "path", "line"]
RARE = ["zoxide", "quokka", "fjord", "sextant", "marimba", "obsidian", "tarragon", "yodel"]


@pytest.fixture(scope="module")
def big_kb(tmp_path_factory):
    """~400 notes where common words are in most chunks and rare ones in a few."""
    root = tmp_path_factory.mktemp("perf")
    rng = random.Random(3)
    folder = root / "notes"
    for i in range(400):
        words = [rng.choice(COMMON) for _ in range(rng.randint(20, 60))]
        if i % 9 == 0:
            words += [rng.choice(RARE) for _ in range(rng.randint(1, 4))]
        rng.shuffle(words)
        write(folder, f"n{i:03}.md", f"# Note {i} {rng.choice(COMMON)}\n\n" + " ".join(words) + "\n")
    kb = KnowledgeBase(root / "home", embedder=HashEmbedder())
    kb.collections.create(folder, name="notes")
    kb.sync()
    yield kb
    kb.close()


QUERIES = [
    "zoxide file", "quokka command value", "fjord file command line", "the file",
    "file command value system", "sextant marimba output path name", "obsidian file command value system output",
    "tarragon yodel fjord quokka file command value system output name path line",
]


@pytest.mark.parametrize("budget", [5, 40, 400])
def test_planned_bm25_matches_plain_when_exact(big_kb, monkeypatch, budget):
    monkeypatch.setattr(rt, "PLAN_MIN_POSTINGS", 0)
    monkeypatch.setattr(rt, "PLAN_BUDGET", budget)
    monkeypatch.setattr(rt, "PLAN_MAX_BUDGET", 10 * budget)
    monkeypatch.setattr(rt, "PLAN_APPROX_POSTINGS", 0)  # every query counts as costly ...
    monkeypatch.setattr(rt, "LONG_QUERY_GROUPS", 1000)  # ... but none as a long text
    r = big_kb.retrieval
    modes = set()
    for query in QUERIES:
        r.planner.clear_caches()
        r.plan_bm25 = True
        planned = r.bm25_ranked(query, 20)
        info = r.planner.last
        modes.add(info.mode)
        r.plan_bm25 = False
        plain = r.bm25_ranked(query, 20)
        r.plan_bm25 = True
        if info.mode == "conjunction":  # the one approximation left: all words common
            continue
        assert info.exact
        assert [c for c, _ in planned] == [c for c, _ in plain], query
        assert np.allclose([s for _, s in planned], [s for _, s in plain], rtol=1e-9, atol=1e-9)
    if budget >= 40:
        assert "split" in modes


def test_approximations_stay_close(big_kb, monkeypatch):
    monkeypatch.setattr(rt, "PLAN_MIN_POSTINGS", 0)
    monkeypatch.setattr(rt, "PLAN_BUDGET", 40)
    monkeypatch.setattr(rt, "PLAN_APPROX_POSTINGS", 0)
    r = big_kb.retrieval
    for query in QUERIES:
        planned = [c for c, _ in r.bm25_ranked(query, 10)]
        r.plan_bm25 = False
        plain = [c for c, _ in r.bm25_ranked(query, 10)]
        r.plan_bm25 = True
        assert planned and plain
        if r.planner.last.exact:
            assert planned == plain
        # every row the approximation returns really matches the query
        assert set(planned) <= {c for c, _ in r.bm25_ranked(query, 10_000)} | set(plain)


def test_hybrid_and_snippets_unchanged_by_planning(big_kb):
    r = big_kb.retrieval
    hits = r.search("zoxide file command", k=5).hits
    assert hits and any("«" in h.snippet for h in hits)
    # the snippet of a BM25 hit is FTS5's own, as on the big index
    conn = big_kb._store.conn
    for h in hits:
        if h.bm25_rank:
            (raw,) = conn.execute(
                "SELECT snippet(chunks_fts, 2, '«', '»', '…', ?) FROM chunks_fts "
                "WHERE chunks_fts MATCH ? AND rowid = ?",
                (SNIPPET_TOKENS, '"zoxide" OR "file" OR "command"*', h.chunk_id),
            ).fetchone()
            assert h.snippet == " ".join(raw.split())


def test_vector_mirror_shadow_tables_equal_vec0_scan(big_kb):
    fast = VectorIndex(big_kb._store, 384)
    fast.refresh()
    assert fast.use_shadow_tables
    slow = VectorIndex(big_kb._store, 384)
    slow.use_shadow_tables = False
    slow.refresh()
    assert np.array_equal(fast._ids, slow._ids)
    assert np.array_equal(fast._matrix, slow._matrix)
    count = big_kb._store.conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
    assert len(fast) == count
    q = big_kb._embedder.embed_query("anything")
    ids, dist = fast.search(q, 10)
    truth = [r[0] for r in big_kb._store.conn.execute(
        "SELECT rowid FROM vec_vectors WHERE embedding MATCH ? AND k = 10", (q.tobytes(),))]
    assert list(ids) == truth
    assert np.all(np.diff(dist) >= 0)


def test_vector_mirror_follows_deletes_and_adds(tmp_path):
    folder = tmp_path / "notes"
    for i in range(30):
        write(folder, f"n{i}.md", f"# Note {i}\n\nText number {i} about things.\n")
    kb = KnowledgeBase(tmp_path / "home", embedder=HashEmbedder())
    kb.collections.create(folder, name="notes")
    kb.sync()
    kb._vectors.refresh()
    assert len(kb._vectors) == 30
    for i in range(10):
        (folder / f"n{i}.md").unlink()
    write(folder, "new.md", "# New\n\nA new note.\n")
    kb.sync()
    kb._vectors.refresh()
    live = [r[0] for r in kb._store.conn.execute("SELECT id FROM vectors ORDER BY id")]
    assert list(kb._vectors._ids) == live
    for vid, row in zip(kb._vectors._ids, kb._vectors._matrix):
        (blob,) = kb._store.conn.execute("SELECT embedding FROM vec_vectors WHERE rowid = ?", (int(vid),)).fetchone()
        assert np.array_equal(np.frombuffer(blob, np.float32), row)
    kb.close()


def test_vector_hashes_are_stored_as_bytes(big_kb):
    (kind, size) = big_kb._store.conn.execute("SELECT typeof(hash), length(hash) FROM vectors LIMIT 1").fetchone()
    assert (kind, size) == ("blob", 16)
