"""A search never returns the same passage twice: two collections over one folder are refused,
and one file indexed twice (by nested collections in an older index) is listed once, in every
mode and when filters alone list notes. A copy of a note or a link to it stays a note of its
own (tests/test_sync.py)."""

from __future__ import annotations

import time

import pytest

from pms_tui.core.errors import CollectionError
from tests.kb_helpers import write

NOTE = "# Rebase\n\nAn interactive rebase rewrites the last commits. #git\n"


def _relpaths(result) -> list[str]:
    return [f"{h.collection}/{h.relpath}" for h in result]


def test_a_folder_inside_or_around_a_collection_is_refused(kb, tmp_path):
    folder = tmp_path / "vault"
    write(folder, "sub/a.md", NOTE)
    write(folder, ".hidden/b.md", NOTE)
    kb.collections.create(folder / "sub", name="sub")
    with pytest.raises(CollectionError, match="around the collection 'sub'.*indexed twice"):
        kb.collections.create(folder, name="all")
    kb.collections.delete("sub")
    kb.collections.create(folder, name="all")
    with pytest.raises(CollectionError, match="inside the collection 'all'"):
        kb.collections.create(folder / "sub", name="sub")
    kb.collections.create(folder / ".hidden", name="hidden")  # a dot-folder is not walked: no overlap


@pytest.fixture
def twice_kb(kb, tmp_path):
    """One note reached twice, by a nested collection from before collections were checked for
    overlap (written as an older index would hold it)."""
    from pms_tui.core.store import collections as collection_rows

    folder = tmp_path / "vault"
    write(folder, "git/rebase.md", NOTE)
    write(folder, "other.md", "# Other\n\nNothing about that here.\n")
    kb.collections.create(folder, name="all")
    collection_rows.insert(kb._store.conn, "git", str((folder / "git").resolve()), "", time.time())
    kb.sync()
    assert kb.stats()["documents"] == 3  # the one note is indexed twice
    return kb


@pytest.mark.parametrize("mode", ["hybrid", "bm25", "vector"])
@pytest.mark.parametrize("query", ["interactive rebase", "rebase tag:git"])
def test_one_file_indexed_twice_is_one_hit(twice_kb, mode, query):
    hits = twice_kb.search(query, k=10, mode=mode)
    rebase = [h for h in hits if h.title == "Rebase"]
    assert len(rebase) == 1, _relpaths(hits)


def test_filters_alone_list_a_file_once(twice_kb):
    assert len(twice_kb.search("tag:git", k=10)) == 1
