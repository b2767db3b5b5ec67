"""A reindex rebuilds in place: every note stays searchable by its words while the notes are
read again, and vectors of the old model are never found meanwhile (a real store, the real
model). The kill -9 case is in tests/faults/test_reindex_kill.py."""

from __future__ import annotations

from pms_tui.core.kb import KnowledgeBase

# one word of each note of tests/kb_helpers.NOTES, and the note it must find
KNOWN = {"sourdough": "cooking/bread.md", "coroutines": "python/asyncio.md", "soft reset": "git/undo-commit.md"}


def found(kb: KnowledgeBase) -> dict[str, str | None]:
    out = {}
    for words in KNOWN:
        hits = kb.search(words, k=3, mode="bm25").hits
        out[words] = hits[0].relpath if hits else None
    return out


def test_a_search_during_a_reindex_finds_every_note_by_its_words(synced_kb, tmp_path):
    reader = KnowledgeBase(home=tmp_path / "home")  # another connection, as the app's search has
    seen: list[tuple[str, dict]] = []

    def progress(done, total, phase):
        if phase in ("scanning", "reading"):  # after the reindex began, before it ended
            seen.append((phase, found(reader)))

    try:
        report = synced_kb.reindex(progress=progress)
        assert report.reindexed and not report.cancelled
        assert {phase for phase, _ in seen} == {"scanning", "reading"}
        for phase, result in seen:
            assert result == KNOWN, phase
        assert found(reader) == KNOWN
        # afterwards: every note once, every text embedded by the configured model
        assert synced_kb.index.vectors_pending == 0
        hits = synced_kb.search("bread dough rise overnight", k=3, mode="vector").hits
        assert hits[0].relpath == "cooking/bread.md"
        assert sorted({h.relpath for h in synced_kb.search("the", k=50, mode="bm25").hits}) <= sorted(KNOWN.values())
    finally:
        reader.close()


def test_a_reindex_leaves_no_vector_of_before_and_says_how_many_notes_it_read(synced_kb):
    conn = synced_kb._store.conn
    before = {r[0] for r in conn.execute("SELECT id FROM vectors")}
    report = synced_kb.reindex()
    assert report.summary.startswith("Reindexed: 3 notes, 0 skipped;")
    after = {r[0] for r in conn.execute("SELECT id FROM vectors")}
    assert after and not after & before  # every text embedded anew, the retired rows dropped
    assert conn.execute("SELECT count(*) FROM vec_vectors").fetchone()[0] == len(after)
    assert conn.execute("SELECT count(*) FROM documents").fetchone()[0] == 3
    assert conn.execute("SELECT count(*) FROM documents WHERE sha256 = ''").fetchone()[0] == 0
