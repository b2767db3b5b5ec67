"""Sync scenarios on real SQLite (FTS5 + sqlite-vec) with the real offline model."""

from __future__ import annotations

import os
import shutil

import pytest

from tests.kb_helpers import write
from pms_tui.core import store as st
from pms_tui.core.errors import CollectionError
from pms_tui.core.errors import ModelMismatchError
from pms_tui.core.kb import KnowledgeBase


def counts(kb):
    s = kb.stats()
    return s["documents"], s["chunks"], s["vectors"]


def test_first_sync_indexes_every_note(synced_kb):
    docs, chunks, vectors = counts(synced_kb)
    assert docs == 3
    assert chunks >= 3
    assert vectors == chunks  # no two chunks share embed_text here
    assert synced_kb.check_sync_status().summary == "Sync status: +0 new, ~0 modified, -0 deleted"


def test_status_then_sync_sees_new_modified_deleted(synced_kb, notes_dir):
    write(notes_dir, "new.md", "# New note\n\nFresh text about kites.\n")
    (notes_dir / "cooking/bread.md").write_text("# Sourdough bread\n\nNow with rye flour.\n")
    (notes_dir / "python/asyncio.md").unlink()
    to_add, to_delete, to_update = synced_kb.check_sync_status()
    assert [str(p) for p in to_add] == ["notes/new.md"]
    assert [str(p) for p in to_update] == ["notes/cooking/bread.md"]
    assert [str(p) for p in to_delete] == ["notes/python/asyncio.md"]
    assert synced_kb.check_sync_status().summary == "Sync status: +1 new, ~1 modified, -1 deleted"
    report = synced_kb.sync()
    assert report.added == ["notes/new.md"]
    assert report.modified == ["notes/cooking/bread.md"]
    assert report.deleted == ["notes/python/asyncio.md"]
    assert synced_kb.search("kites", k=1)[0].relpath == "new.md"
    assert not synced_kb.search("asyncio gather", k=5, mode="bm25")
    # the deleted note's vectors are gone too
    _, chunks, vectors = counts(synced_kb)
    assert vectors == chunks


def test_editing_one_paragraph_reembeds_only_that_chunk(kb, tmp_path):
    folder = tmp_path / "long"
    sections = "\n\n".join(f"## Section {i}\n\n" + f"Paragraph {i} about topic {i}. " * 30 for i in range(6))
    write(folder, "long.md", "# Long note\n\n" + sections + "\n")
    kb.collections.create(folder, name="long")
    first = kb.sync()
    assert first.chunks_embedded >= 4
    text = (folder / "long.md").read_text().replace("Paragraph 3 about", "Paragraph 3, edited, about", 1)
    (folder / "long.md").write_text(text)
    assert kb.check_sync_status().summary == "Sync status: +0 new, ~1 modified, -0 deleted"
    second = kb.sync()
    assert second.modified == ["long/long.md"]
    assert second.chunks_embedded == 1
    assert second.chunks_reused == first.chunks_written - 1


def test_touch_without_change_is_not_modified(synced_kb, notes_dir):
    path = notes_dir / "cooking/bread.md"
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 5_000_000_000))
    assert synced_kb.check_sync_status().to_update == []
    report = synced_kb.sync()
    assert not report.changed and report.chunks_embedded == 0


def test_rename_reuses_vectors(synced_kb, notes_dir):
    os.rename(notes_dir / "cooking/bread.md", notes_dir / "cooking/sourdough.md")
    report = synced_kb.sync()
    assert report.added == ["notes/cooking/sourdough.md"]
    assert report.deleted == ["notes/cooking/bread.md"]
    assert report.chunks_embedded == 0  # same title and text: same embed_text
    assert synced_kb.search("sourdough starter dough", k=1)[0].relpath == "cooking/sourdough.md"


def test_identical_content_under_two_names_shares_one_vector(synced_kb, notes_dir):
    shutil.copy(notes_dir / "python/asyncio.md", notes_dir / "python/asyncio-copy.md")
    report = synced_kb.sync()
    assert report.chunks_embedded == 0
    docs, chunks, vectors = counts(synced_kb)
    assert docs == 4 and vectors < chunks
    paths = {h.relpath for h in synced_kb.search("asyncio gather tasks", k=10)}
    assert {"python/asyncio.md", "python/asyncio-copy.md"} <= paths


def test_removing_a_collection_keeps_files(synced_kb, notes_dir):
    before = sorted(p.read_bytes() for p in notes_dir.rglob("*.md"))
    synced_kb.collections.delete("notes")
    assert counts(synced_kb) == (0, 0, 0)
    assert sorted(p.read_bytes() for p in notes_dir.rglob("*.md")) == before
    with pytest.raises(CollectionError, match="no collection named 'notes'"):
        synced_kb.collections.get("notes")


def test_missing_folder_keeps_index_and_says_so(synced_kb, notes_dir, tmp_path):
    notes_dir.rename(tmp_path / "moved")
    report = synced_kb.sync()
    assert report.problems and "missing" in report.problems[0]
    assert counts(synced_kb)[0] == 3
    assert synced_kb.search("sourdough", k=1)
    assert report.problems[0].endswith("its 3 indexed notes are kept until it is back or the collection is removed.")


def test_a_missing_folder_of_one_note_says_note(kb, tmp_path):
    write(tmp_path / "one", "only.md", "# Only\n\nThe quoll hunts at night.\n")
    kb.collections.create(tmp_path / "one", name="one")
    kb.sync()
    (tmp_path / "one").rename(tmp_path / "away")
    assert "its 1 indexed note is kept until" in kb.sync().problems[0]


def test_bad_files_are_skipped_with_a_reason(kb, tmp_path):
    folder = tmp_path / "bad"
    write(folder, "good.md", "# Good\n\nfine text\n")
    (folder / "binary.md").write_bytes(b"\x00\x01\x02 not text")
    (folder / "latin1.md").write_bytes("# Caf\xe9\n".encode("latin-1"))
    locked = folder / "locked.md"
    locked.write_text("# secret\n")
    locked.chmod(0)
    kb.collections.create(folder, name="bad")
    report = kb.sync()
    reasons = dict(report.skipped)
    assert "binary" in reasons["bad/binary.md"]
    assert "UTF-8" in reasons["bad/latin1.md"]
    if os.geteuid() != 0:  # root reads anything
        assert "permission" in reasons["bad/locked.md"]
    assert "bad/good.md" in report.added
    assert (folder / "binary.md").read_bytes() == b"\x00\x01\x02 not text"


def test_dot_folders_are_ignored(kb, tmp_path):
    folder = tmp_path / "vault"
    write(folder, "a.md", "# A\n\nalpha\n")
    write(folder, ".obsidian/b.md", "# B\n\nbeta\n")
    write(folder, "sub/c.markdown", "# C\n\ngamma\n")
    col = kb.collections.create(folder, name="vault")
    assert [p.relative_to(folder).as_posix() for p in col.files] == ["a.md", "sub/c.markdown"]


def test_collection_errors_are_sentences(kb, tmp_path, notes_dir):
    with pytest.raises(CollectionError, match="is not a folder"):
        kb.collections.create(tmp_path / "nope", name="x")
    kb.collections.create(notes_dir, name="notes")
    with pytest.raises(CollectionError, match="already exists"):
        kb.collections.create(tmp_path, name="notes")
    with pytest.raises(CollectionError, match="already the collection"):
        kb.collections.create(notes_dir, name="other")


def test_model_mismatch_asks_for_reindex(synced_kb, tmp_path):
    home = synced_kb.home
    synced_kb.close()
    with st.Store(home / "index.sqlite").conn as conn:
        conn.execute("UPDATE meta SET value = 'some/other-model' WHERE key = 'embedding_model'")
    other = KnowledgeBase(home=home)
    assert "reindex" in other.model.mismatch
    with pytest.raises(ModelMismatchError):
        other.sync()
    assert other.search("sourdough", mode="bm25")  # full text still answers
    report = other.reindex()
    # rebuilt in place: every note read again (modified, none new), every text embedded anew
    assert other.model.mismatch is None and len(report.modified) == 3 and not report.added
    assert other.search("sourdough", k=1)[0].vector_rank == 1
    other.close()


def test_locked_database_gives_one_sentence(synced_kb, notes_dir, monkeypatch):
    blocker = st.connect(synced_kb.db_path)
    blocker.execute("BEGIN EXCLUSIVE")
    try:
        write(notes_dir, "new.md", "# New\n\ntext\n")
        synced_kb._store.conn.execute("PRAGMA busy_timeout = 50")
        with pytest.raises(st.OperationalError) as info:
            synced_kb.sync()
        assert "locked" in st.describe_error(info.value)
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    synced_kb._store.conn.execute(f"PRAGMA busy_timeout = {st.BUSY_TIMEOUT_MS}")
    assert synced_kb.sync().added == ["notes/new.md"]


@pytest.mark.parametrize(("group_notes", "committed"), [(1, 1), (64, 0)])
def test_interrupted_sync_is_completed_next_time(kb, notes_dir, monkeypatch, group_notes, committed):
    """Notes are written in groups, one transaction each: a crash while writing the second
    note keeps the groups committed before it (a group of one note: the first note) and
    nothing of the group it hit."""
    kb.collections.create(notes_dir, name="notes")
    from pms_tui.core.indexing import sync as sync_mod

    monkeypatch.setattr(sync_mod, "GROUP_NOTES", group_notes)
    monkeypatch.setattr(sync_mod, "GROUP_SECONDS", 60.0)  # a slow machine must not cut the group

    real = sync_mod.Indexer._write_document
    calls = {"n": 0}

    def crash_on_second(self, doc, vector_ids):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt  # a crash mid-sync
        return real(self, doc, vector_ids)

    monkeypatch.setattr(sync_mod.Indexer, "_write_document", crash_on_second)
    with pytest.raises(KeyboardInterrupt):
        kb.sync()
    monkeypatch.setattr(sync_mod.Indexer, "_write_document", real)
    assert kb.stats()["documents"] == committed  # whole groups committed, nothing half-written
    report = kb.sync()
    assert len(report.added) == 3 - committed
    docs, chunks, vectors = counts(kb)
    assert docs == 3 and vectors == chunks


def test_database_size_is_proportional_to_content(kb, tmp_path):
    folder = tmp_path / "many"
    for i in range(1000):
        write(folder, f"n{i:04}.md", f"# Note {i}\n\nShort fact number {i} about item {i * 7 % 13}.\n")
    kb.collections.create(folder, name="many")
    kb.sync()
    kb._store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    stats = kb.stats()
    assert stats["chunks"] == 1000
    assert stats["db_bytes"] < 10_000_000 / 2, stats
