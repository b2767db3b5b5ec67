"""An index embedded by the shipped model (the default before the integer one) re-embeds on
its next sync, searchable meanwhile, with no `pms-tui reindex`; the shipped model stays
selectable by its name. A real store and the real models."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pms_tui.core.config import Settings
from pms_tui.core.errors import ModelMismatchError
from pms_tui.core.indexing.embed import INTEGER_MODEL, SHIPPED_MODEL
from pms_tui.core.kb import KnowledgeBase
from pms_tui.core.store import meta

from tests.kb_helpers import write


@pytest.fixture
def shipped_home(tmp_path, notes_dir):
    """A home whose index the shipped model embedded, as an install before this one left it."""
    home = tmp_path / "home"
    old = KnowledgeBase(home=home, settings=Settings(model=SHIPPED_MODEL))
    old.collections.create(notes_dir, name="notes")
    old.sync()
    assert meta.recorded_model(old.store.conn)[0] == SHIPPED_MODEL
    old.close()
    return home


def vector_ids(kb: KnowledgeBase) -> set[int]:
    return {row[0] for row in kb.store.conn.execute("SELECT id FROM vectors WHERE pending_text IS NULL")}


def test_the_next_sync_re_embeds_an_index_of_the_shipped_model(shipped_home, notes_dir):
    kb = KnowledgeBase(home=shipped_home)  # the default model now
    try:
        assert kb.embedder.model_name == INTEGER_MODEL
        assert kb.model_mismatch is None and kb.model_upgrade == SHIPPED_MODEL
        # before the sync: both lanes answer (the old vectors serve the new model's queries)
        assert kb.search("bread dough rise overnight", k=3, mode="vector").hits[0].relpath == "cooking/bread.md"
        old_vectors = vector_ids(kb)
        write(notes_dir, "git/stash.md", "# Stash\n\nSet work aside with git stash and bring it back with pop.\n")
        report = kb.sync(embed=False)  # as the app does: text first, vectors in the background
        assert meta.recorded_model(kb.store.conn)[0] == INTEGER_MODEL and kb.model_upgrade is None
        assert report.vectors_pending > 0 and not vector_ids(kb) & old_vectors  # every vector retired
        assert kb.search("sourdough", k=3, mode="hybrid").hits[0].relpath == "cooking/bread.md"
        assert kb.search("bring it back with pop", k=3, mode="hybrid").hits[0].relpath == "git/stash.md"
        assert kb.embed_pending() > 0 and kb.vectors_pending == 0
        assert kb.search("bread dough rise overnight", k=3, mode="vector").hits[0].relpath == "cooking/bread.md"
        assert kb.sync().chunks_embedded == 0  # done once
    finally:
        kb.close()
    again = KnowledgeBase(home=shipped_home)
    try:
        assert again.model_upgrade is None and again.model_mismatch is None
    finally:
        again.close()


def test_a_sync_of_some_notes_still_re_reads_every_note(shipped_home, notes_dir):
    """The watcher syncs the paths it saw change: the upgrade widens that sync to every note."""
    kb = KnowledgeBase(home=shipped_home)
    try:
        kb.sync(collections=["notes"], only_paths={"cooking/bread.md"})
        assert kb.vectors_pending == 0
        assert kb.store.conn.execute("SELECT count(*) FROM documents WHERE sha256 = ''").fetchone()[0] == 0
        assert meta.recorded_model(kb.store.conn)[0] == INTEGER_MODEL
    finally:
        kb.close()


def test_the_shipped_model_stays_selectable_and_is_never_mixed_back(shipped_home):
    kb = KnowledgeBase(home=shipped_home)
    kb.sync()
    kb.close()
    old = KnowledgeBase(home=shipped_home, settings=replace(Settings(), model=SHIPPED_MODEL))
    try:
        assert old.model_upgrade is None
        assert "pms-tui reindex" in (old.model_mismatch or "")  # going back is the user's choice
        with pytest.raises(ModelMismatchError):
            old.sync()
        old.reindex()
        assert meta.recorded_model(old.store.conn)[0] == SHIPPED_MODEL
        assert old.search("bread dough rise overnight", k=3, mode="vector").hits[0].relpath == "cooking/bread.md"
    finally:
        old.close()
