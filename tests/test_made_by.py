"""The index knows how each note was made: each row records the versions of the chunker and the
reader that made its chunks; a sync re-chunks exactly the rows an older version made (their
files untouched, their unchanged passages' vectors kept), ``status`` counts them to update and
``doctor`` tells how many; an index of the previous schema re-reads exactly its PDF and Word
files, whose readers changed since, and none of its notes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.faults.document_files import write_text_pdf
from tests.test_docx_links import write_docx_with_links

from pms_tui.core.indexing.chunk import CHUNKER_VERSION
from pms_tui.core.indexing.document_reader import READER_VERSIONS
from pms_tui.core.kb import KnowledgeBase


def make_folder(folder: Path) -> None:
    folder.mkdir()
    for name in ("alpha", "beta", "gamma"):
        (folder / f"{name}.md").write_text(f"# {name.title()}\n\nThe {name} note about okapis.\n", encoding="utf-8")
    write_text_pdf(folder / "manual.pdf", [["the okapi lives in the manual"]])
    write_docx_with_links(folder / "links.docx")


def rows(db: Path) -> dict[str, tuple[int, int]]:
    with sqlite3.connect(db) as conn:
        return {p: (c, r) for p, c, r in conn.execute("SELECT path, chunker_version, reader_version FROM documents")}


def test_rows_record_what_made_them_and_a_sync_remakes_exactly_the_older_ones(tmp_path):
    folder = tmp_path / "notes"
    make_folder(folder)
    with KnowledgeBase(home=tmp_path / "home") as kb:
        kb.collections.create(folder, name="notes")
        kb.sync()
        db = kb.db_path
    assert rows(db) == {"alpha.md": (CHUNKER_VERSION, 0), "beta.md": (CHUNKER_VERSION, 0),
                        "gamma.md": (CHUNKER_VERSION, 0), "manual.pdf": (CHUNKER_VERSION, READER_VERSIONS["pdf"]),
                        "links.docx": (CHUNKER_VERSION, READER_VERSIONS["docx"])}
    stats = {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}
    with sqlite3.connect(db) as conn:  # as an older chunker (beta) and an older PDF reader made them
        conn.execute("UPDATE documents SET chunker_version = chunker_version - 1 WHERE path = 'beta.md'")
        conn.execute("UPDATE documents SET reader_version = reader_version - 1 WHERE path = 'manual.pdf'")
    with KnowledgeBase(home=tmp_path / "home") as kb:
        assert sorted(str(p) for p in kb.check_sync_status().to_update) == ["notes/beta.md", "notes/manual.pdf"]
        versions = [c for c in kb.doctor.checks() if c.label == "versions"]
        assert versions and "2 notes made by another version" in versions[0].detail, versions
        report = kb.sync()
        assert sorted(report.modified) == ["notes/beta.md", "notes/manual.pdf"], report
        assert report.added == [] and report.chunks_queued == 0  # the same passages: their vectors kept
        assert [h.relpath for h in kb.search("okapi manual", k=1, mode="bm25")] == ["manual.pdf"]
        assert "every note made by them" in [c for c in kb.doctor.checks() if c.label == "versions"][0].detail
        assert kb.sync().modified == []
    assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} == stats  # never touched
    assert set(rows(db).values()) <= {(CHUNKER_VERSION, 0), (CHUNKER_VERSION, READER_VERSIONS["pdf"]),
                                      (CHUNKER_VERSION, READER_VERSIONS["docx"])}


def test_an_index_of_the_previous_schema_re_reads_exactly_its_documents(tmp_path):
    """Schema 14 recorded no versions: its rows were made by the first chunker and readers;
    the Word reader (hyperlinks) and the PDF reader (running heads, page labels) changed
    since, the chunker did not: the documents are read again, the notes are not."""
    folder = tmp_path / "notes"
    make_folder(folder)
    with KnowledgeBase(home=tmp_path / "home") as kb:
        kb.collections.create(folder, name="notes")
        kb.sync()
        db = kb.db_path
    with sqlite3.connect(db) as conn:  # as schema 14 wrote it
        conn.execute("ALTER TABLE documents DROP COLUMN chunker_version")
        conn.execute("ALTER TABLE documents DROP COLUMN reader_version")
        conn.execute("UPDATE meta SET value = '14' WHERE key = 'schema_version'")
    with KnowledgeBase(home=tmp_path / "home") as kb:
        report = kb.sync()
    assert sorted(report.modified) == ["notes/links.docx", "notes/manual.pdf"], report
    assert rows(db)["links.docx"] == (CHUNKER_VERSION, READER_VERSIONS["docx"])
    assert rows(db)["manual.pdf"] == (CHUNKER_VERSION, READER_VERSIONS["pdf"])
