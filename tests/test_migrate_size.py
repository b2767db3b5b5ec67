"""Schemas 8 and 9, a smaller index: the note anchors (headings, ``^block`` ids) packed into one
row per note (8), and vectors keyed by 16 bytes of SHA-256 instead of 32 (9). An index of the
previous schema is upgraded in place, and links and vectors are found as before."""

from __future__ import annotations

from pathlib import Path

from tests.kb_helpers import write
from pms_tui.core.store import links as link_rows

NOTES = {
    "Home.md": "# Home\n\n[[Target#Second part]], [[Target#^blk1]], [[Target#Twice]] and [[Target#Nowhere]].\n",
    "Target.md": (
        "# Target\n\n## Twice\n\ntext\n\n## Second part\n\nThe plan. ^blk1\n\n## Twice\n\nagain\n"
    ),
    "Plain.md": "no heading, no block id\n",
}


def _as_schema_7(conn) -> None:
    """Make the file look as schema 7 wrote it: a row per anchor (key, kind, line, text) with
    its (note, key) index, every heading and block id of every note, duplicates included."""
    from pms_tui.core.indexing.links import extract

    conn.execute(
        "CREATE TABLE note_anchors (document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE, "
        "key TEXT NOT NULL, kind TEXT NOT NULL, line INTEGER NOT NULL, text TEXT NOT NULL)")
    conn.execute("CREATE INDEX note_anchors_by_document ON note_anchors(document_id, key)")
    for doc_id, path in conn.execute("SELECT id, path FROM documents").fetchall():
        found = extract(NOTES[path])
        conn.executemany("INSERT INTO note_anchors VALUES (?, ?, ?, ?, ?)",
                         [(doc_id, a.key, a.kind, a.line, a.text) for a in found.anchors])
    conn.execute("DROP TABLE note_anchor_keys")
    conn.execute("UPDATE meta SET value = '7' WHERE key = 'schema_version'")


def _targets(kb) -> dict[str, int | None]:
    return {link.anchor: link.target_line for link in kb.graph.links("n/Home.md")}


def test_an_index_from_schema_7_is_upgraded_with_progress(tmp_path: Path):
    from pms_tui.core.kb import KnowledgeBase

    for rel, text in NOTES.items():
        write(tmp_path / "notes", rel, text)
    home = tmp_path / "home"
    with KnowledgeBase(home=home) as kb:
        kb.collections.create(tmp_path / "notes", name="n")
        kb.sync(embed=False)
        expected = _targets(kb)
        with kb._store.transaction() as conn:
            _as_schema_7(conn)
            assert conn.execute("SELECT count(*) FROM note_anchors").fetchone()[0] == 6
    # the first "Twice" (line 3), not the second (line 11); an unknown heading leads to the top
    assert expected == {"Second part": 7, "^blk1": 9, "Twice": 3, "Nowhere": 1}
    seen = []
    with KnowledgeBase(home=home, upgrade_progress=lambda *a: seen.append(a)) as kb:
        assert _targets(kb) == expected
        conn = kb._store.conn
        assert conn.execute("SELECT name FROM sqlite_schema WHERE name LIKE 'note_anchors%'").fetchall() == []
        target = kb._store.conn.execute("SELECT id FROM documents WHERE path = 'Target.md'").fetchone()[0]
        assert link_rows.anchors(conn, target) == [("target", 1), ("twice", 3), ("second part", 7), ("^blk1", 9)]
        assert conn.execute("SELECT count(*) FROM note_anchor_keys").fetchone()[0] == 2  # Plain.md has none
        report = kb.sync(embed=False)
        assert not report.changed  # nothing to re-read
        assert _targets(kb) == expected
    packing = [a for a in seen if "anchors" in a[2]]
    assert packing[0][0] == 0 and packing[-1][0] == packing[-1][1] == 2  # two notes have anchors


def test_anchors_follow_an_edit_and_leave_with_the_note(kb, tmp_path: Path):
    folder = tmp_path / "notes"
    for rel, text in NOTES.items():
        write(folder, rel, text)
    kb.collections.create(folder, name="n")
    kb.sync(embed=False)
    write(folder, "Target.md", "# Target\n\n## Second part\n\nmoved up ^blk1\n")
    kb.sync(embed=False)
    assert _targets(kb) == {"Second part": 3, "^blk1": 5, "Twice": 1, "Nowhere": 1}
    write(folder, "Target.md", "no anchors left\n")
    kb.sync(embed=False)
    conn = kb._store.conn
    target = conn.execute("SELECT id FROM documents WHERE path = 'Target.md'").fetchone()[0]
    assert link_rows.anchors(conn, target) == []
    (folder / "Target.md").unlink()
    kb.sync(embed=False)
    assert conn.execute("SELECT count(*) FROM note_anchor_keys WHERE document_id = ?", (target,)).fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM note_anchor_keys").fetchone()[0] == 1  # Home.md's


def test_pack_and_unpack_keep_the_first_line_of_each_key():
    packed = link_rows.pack_anchors([("b", 5), ("a", 2), ("b", 3), ("^x-1", 9)])
    assert packed == "2\ta\n3\tb\n9\t^x-1"
    assert link_rows.unpack_anchors(packed) == [("a", 2), ("b", 3), ("^x-1", 9)]
    assert link_rows.unpack_anchors("") == []


def test_an_index_from_schema_8_keeps_its_vectors_under_16_byte_keys(tmp_path: Path, monkeypatch):
    """Schema 8 keyed a vector by all 32 bytes of its text's SHA-256. After the upgrade the
    keys are cut to 16 bytes, and a note copied in afterwards finds its chunks' vectors: nothing
    is queued or embedded again."""
    import hashlib

    from pms_tui.core.indexing import sync
    from pms_tui.core.kb import KnowledgeBase

    folder = tmp_path / "notes"
    for rel, text in NOTES.items():
        write(folder, rel, text)
    home = tmp_path / "home"
    with monkeypatch.context() as patch:  # schema 8's key
        patch.setattr(sync, "embed_hash", lambda text: hashlib.sha256(text.encode("utf-8")).hexdigest())
        with KnowledgeBase(home=home) as kb:
            kb.collections.create(folder, name="n")
            kb.sync()
            with kb._store.transaction() as conn:
                assert {r[0] for r in conn.execute("SELECT length(hash) FROM vectors")} == {32}
                conn.execute("UPDATE meta SET value = '8' WHERE key = 'schema_version'")
            vectors = kb.stats()["vectors"]
    seen = []
    with KnowledgeBase(home=home, upgrade_progress=lambda *a: seen.append(a)) as kb:
        conn = kb._store.conn
        assert {r[0] for r in conn.execute("SELECT length(hash) FROM vectors")} == {16}
        keys = [s for s in seen if "vector keys" in s[2]]
        assert keys and keys[-1][0] == keys[-1][1]
        write(folder, "copy/Target.md", NOTES["Target.md"])
        report = kb.sync()
        assert report.changed and kb.index.vectors_pending == 0
        assert kb.stats()["vectors"] == vectors  # the copy's chunks share the vectors they had
