"""A new index file is made with 8 KB pages (store.database.PAGE_SIZE); a file made before with
4 KB pages opens and works as it is."""

from __future__ import annotations

from pathlib import Path

from tests.kb_helpers import home_with_4_kb_pages, write


def test_a_new_index_has_8_kb_pages_and_an_old_one_keeps_its_own(tmp_path: Path):
    from pms_tui.core.kb import KnowledgeBase
    from pms_tui.core.store import connect

    write(tmp_path / "notes", "a.md", "# Alpha\n\nsome words about tarballs\n")
    with KnowledgeBase(home=tmp_path / "new") as kb:
        assert kb._store.conn.execute("PRAGMA page_size").fetchone()[0] == 8192
        assert kb._store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    old = home_with_4_kb_pages(tmp_path / "old")
    with KnowledgeBase(home=old) as kb:
        kb.collections.create(tmp_path / "notes", name="n")
        kb.sync(embed=False)
        assert [Path(h.path).name for h in kb.search("tarballs", mode="bm25")] == ["a.md"]
    conn = connect(old / "index.sqlite")
    assert conn.execute("PRAGMA page_size").fetchone()[0] == 4096
    conn.close()
