"""The writer keeps each full-text term's document frequency (store.term_counts, schema 10):
checked against FTS5's own vocabulary on real indexes after syncs, edits, deletions and
writes outside a transaction, and an index from schema 9 upgrades in place and ranks the same."""

from __future__ import annotations

import random

import pytest

from tests.kb_helpers import text_only_kb, write
from pms_tui.core.kb import KnowledgeBase
from pms_tui.core.store import SCHEMA_VERSION, fts, health, term_counts
from pms_tui.core.store.migrate_cjk import TRIGGERS_V5

WORDS = ["file", "command", "value", "system", "output", "running", "runs", "zoxide", "quokka",
         "fjord", "Größe", "naïve", "数据库", "索引"]


def vocabulary(conn) -> dict[str, int]:
    """FTS5's own rows-per-term of the index (the truth the counts must equal)."""
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.check_vocab USING fts5vocab(main, chunks_fts, 'row')")
    return dict(conn.execute("SELECT term, doc FROM temp.check_vocab"))


def kept(conn, terms) -> dict[str, int]:
    return {t: n for t, n in term_counts.document_frequencies(conn, list(terms)).items() if n}


def delta_rows(conn) -> int:
    return sum(conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("fts_df_added_v", "fts_df_removed_v"))


def notes(folder, rng, n, offset=0):
    for i in range(n):
        words = [rng.choice(WORDS) for _ in range(rng.randint(3, 30))]
        write(folder, f"d{i % 4}/n{i + offset:03}.md", f"# Note {i + offset} {rng.choice(WORDS)}\n\n## {rng.choice(WORDS)}\n\n"
              + " ".join(words) + "\n")


@pytest.fixture
def kb(tmp_path):
    folder = tmp_path / "notes"
    notes(folder, random.Random(3), 60)
    kb = text_only_kb(tmp_path / "home", folder)
    yield kb
    kb.close()


def test_counts_equal_the_vocabulary_after_a_sync(kb):
    conn = kb._store.conn
    truth = vocabulary(conn)
    assert len(truth) > 20
    assert kept(conn, truth) == truth
    assert delta_rows(conn) == 0  # folded when the sync's transactions committed
    assert fts.document_frequencies(conn, ["file", "nosuchterm"]) == {"file": truth["file"], "nosuchterm": 0}


def test_counts_follow_edits_deletions_and_a_removed_collection(kb, tmp_path):
    conn = kb._store.conn
    folder = tmp_path / "notes"
    rng = random.Random(9)
    notes(folder, rng, 20, offset=100)  # new notes
    for path in sorted(folder.rglob("n00*.md")):  # edits
        path.write_text("# Edited\n\nquokka quokka fjord\n", encoding="utf-8")
    for path in sorted(folder.rglob("n01*.md")):  # deletions
        path.unlink()
    kb.sync(embed=False)
    truth = vocabulary(conn)
    assert kept(conn, set(truth) | set(kept(conn, WORDS))) == truth
    other = tmp_path / "other"
    notes(other, rng, 10, offset=500)
    kb.collections.create(other, name="other")
    kb.sync(embed=False)
    assert kept(conn, vocabulary(conn)) == vocabulary(conn)
    kb.collections.delete("other")
    truth = vocabulary(conn)
    assert kept(conn, set(truth) | {"fjord", "quokka"}) == truth


def test_writes_outside_a_transaction_are_counted_before_any_fold(kb):
    """The counts are exact at every commit, whoever writes: a write the transaction helper
    did not wrap leaves its delta unfolded, and the delta is read with the folded counts."""
    conn = kb._store.conn
    row = conn.execute("SELECT id, document_id, seq, start_line, end_line, title, heading, body, vector_id, cjk "
                       "FROM chunks LIMIT 1").fetchone()
    conn.execute("UPDATE chunks SET body = 'sextant sextant astrolabe' WHERE id = ?", (row[0],))
    conn.execute("DELETE FROM chunks WHERE id = (SELECT max(id) FROM chunks)")
    assert delta_rows(conn) > 0
    truth = vocabulary(conn)
    assert truth["sextant"] == 1
    assert kept(conn, set(truth) | set(WORDS)) == truth
    assert fts.prefix_frequency(conn, "sext") == (1, 1)
    with kb._store.transaction() as writer:
        pass
    assert delta_rows(conn) == 0
    assert kept(conn, set(truth) | set(WORDS)) == truth


def test_prefix_frequency_matches_the_vocabulary(kb):
    conn = kb._store.conn
    truth = vocabulary(conn)
    for prefix in ("run", "f", "valu", "zz"):
        counts = [n for t, n in truth.items() if t.startswith(prefix)]
        assert fts.prefix_frequency(conn, prefix) == (max(counts, default=0), sum(counts))


def test_an_index_from_schema_9_is_upgraded_in_place_and_ranks_the_same(kb):
    conn = kb._store.conn
    lane = kb.retrieval.bm25
    queries = ["file command value", "running system output", "quokka fjord", "how to get the value of the file"]
    before = {q: lane.ranked(q, 20) for q in queries}
    with kb._store.transaction() as writer:  # back to schema 9: its triggers, no counts
        for table in ("fts_df_added_v", "fts_df_removed_v", "fts_df_added", "fts_df_removed", "fts_df"):
            writer.execute(f"DROP TABLE {table}")
        for trigger in ("chunks_ai", "chunks_ad", "chunks_au"):
            writer.execute(f"DROP TRIGGER {trigger}")
        for trigger in TRIGGERS_V5:
            writer.execute(trigger)
        writer.execute("UPDATE meta SET value = '9' WHERE key = 'schema_version'")
    home = kb.home
    kb.close()
    old = KnowledgeBase(home, embedder=None)
    try:
        conn = old._store.conn
        assert conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == str(SCHEMA_VERSION)
        truth = vocabulary(conn)
        assert kept(conn, truth) == truth
        old.retrieval.planner.clear_caches()
        assert {q: old.retrieval.bm25.ranked(q, 20) for q in queries} == before
        write(old.collections.get("notes").path, "late.md", "# Late\n\nquokka arrives\n")
        old.sync(embed=False)
        assert kept(conn, vocabulary(conn)) == vocabulary(conn)
    finally:
        old.close()


def test_without_the_counts_the_vocabulary_answers(kb):
    """An index without the tables (a scratch copy of an older schema) still plans."""
    conn = kb._store.conn
    truth = vocabulary(conn)
    kb.retrieval.planner.stems(conn, ["file"])  # makes the connection's temp tables
    with kb._store.transaction() as writer:
        writer.execute("DROP TABLE fts_df")
    assert fts.document_frequencies(conn, ["file", "quokka"]) == {"file": truth["file"], "quokka": truth.get("quokka", 0)}
    assert fts.prefix_frequency(conn, "run")[1] == sum(n for t, n in truth.items() if t.startswith("run"))


def test_repair_recounts_whatever_the_counts_held(kb):
    conn = kb._store.conn
    truth = vocabulary(conn)
    with kb._store.transaction() as writer:
        writer.execute("DROP TABLE vec_vectors")  # no model here: repair would forget notes without vectors
        writer.execute("UPDATE fts_df SET doc = doc + 7 WHERE term IN ('file', 'quokka')")
        writer.execute("DELETE FROM fts_df WHERE term = 'fjord'")
    assert kept(conn, truth) != truth
    health.repair_in_place(conn)
    assert kept(conn, truth) == vocabulary(conn) == truth
    assert delta_rows(conn) == 0


def test_an_index_from_schema_5_gets_its_counts_from_the_rebuilt_index(kb):
    """From schema 5 the full-text index is rebuilt (store.migrate_cjk) in the same upgrade
    transaction as the counts are taken: they must see the rebuilt index."""
    conn = kb._store.conn
    truth = vocabulary(conn)
    with kb._store.transaction() as writer:
        for table in ("fts_df_added_v", "fts_df_removed_v", "fts_df_added", "fts_df_removed", "fts_df"):
            writer.execute(f"DROP TABLE {table}")
        for trigger in ("chunks_ai", "chunks_ad", "chunks_au"):
            writer.execute(f"DROP TRIGGER {trigger}")
        writer.execute("DROP TABLE chunks_fts")
        writer.execute("ALTER TABLE chunks DROP COLUMN cjk")
        writer.execute("CREATE VIRTUAL TABLE chunks_fts USING fts5(title, heading, body, content='chunks', "
                     "content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')")
        writer.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild')")
        writer.execute("UPDATE meta SET value = '5' WHERE key = 'schema_version'")
    home = kb.home
    kb.close()
    old = KnowledgeBase(home, embedder=None)
    try:
        conn = old._store.conn
        assert vocabulary(conn) == truth
        assert kept(conn, truth) == truth
    finally:
        old.close()
