"""Skips that heal: a document skipped for a cause that can pass (its reader stopped by a limit)
is tried again by a later sync without the file changing, after a backoff that ``status``
tells; a skip from a lasting cause (not a document) waits for the file to change; ``sync
--retry-skipped`` tries every skip at once."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from tests.faults.document_files import write_text_pdf
from tests.faults.faults_helpers import cli

from pms_tui.core.indexing import documents
from pms_tui.core.store import skipped as skipped_rows

# Too little address space for the reader to load PDFium: what a limit hit under load looks like.
STARVED = 20_000_000


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "plain.md").write_text("# Plain\n\nwombat\n", encoding="utf-8")
    write_text_pdf(notes / "manual.pdf", [["the okapi lives in the manual"]])
    (notes / "fake.pdf").write_bytes(b"this is no PDF at all\n" * 10)
    (notes / "binary.md").write_bytes(b"\x00\x01 not text" * 10)
    return notes


def skips(kb) -> dict[str, str]:
    return {p.path: why for p, why in kb.check_sync_status().skipped}


def test_a_skip_from_a_limit_is_tried_again_by_the_next_sync_untouched(kb, folder, monkeypatch):
    kb.collections.create(folder, name="notes")
    monkeypatch.setattr(documents, "DOCUMENT_MEMORY_BYTES", STARVED)
    first = kb.sync(embed=False)
    assert "notes/manual.pdf" in dict(first.skipped)
    assert skips(kb)["manual.pdf"].endswith("tried again at the next sync"), skips(kb)
    assert "tried again" not in skips(kb)["binary.md"]  # a lasting cause: when the file changes
    stat_before = (folder / "manual.pdf").stat()

    monkeypatch.setattr(documents, "DOCUMENT_MEMORY_BYTES", 1_500_000_000)
    second = kb.sync(embed=False)
    assert (folder / "manual.pdf").stat().st_mtime_ns == stat_before.st_mtime_ns  # never touched
    assert "notes/manual.pdf (1 page)" in second.documents, second
    assert "manual.pdf" not in skips(kb)
    assert [h.relpath for h in kb.search("okapi", k=3, mode="bm25")][:1] == ["manual.pdf"]
    assert "notes/binary.md" not in dict(second.skipped)  # not tried again: it has not changed
    assert "binary.md" in skips(kb) and "tried again" not in skips(kb)["fake.pdf"]  # read now: not a PDF


def test_a_skip_that_fails_again_backs_off_and_status_says_when(kb, folder, monkeypatch, tmp_path):
    kb.collections.create(folder, name="notes")
    monkeypatch.setattr(documents, "DOCUMENT_MEMORY_BYTES", STARVED)
    kb.sync(embed=False)
    started = time.time()
    second = kb.sync(embed=False)  # tried again at once, fails again: the next try in an hour
    assert "notes/manual.pdf" in dict(second.skipped)
    (cid,) = [c.id for c in kb.collections.list()]
    with sqlite3.connect(kb.db_path) as conn:
        row = skipped_rows.of_collection(conn, cid)["manual.pdf"]
    assert row.attempts == 2 and started + 3_500 < row.retry_at < time.time() + 3_700
    assert "tried again at a sync after" in skips(kb)["manual.pdf"] and "(try 3)" in skips(kb)["manual.pdf"]
    third = kb.sync(embed=False)
    assert "notes/manual.pdf" not in dict(third.skipped) and not third.documents  # not due yet: not read

    status = cli(kb.home, "status").stdout.decode()
    assert "tried again at a sync after" in status, status

    monkeypatch.setattr(documents, "DOCUMENT_MEMORY_BYTES", 1_500_000_000)
    kb.sync(embed=False, retry_skipped=True)
    assert "manual.pdf" not in skips(kb)
    assert "fake.pdf" in skips(kb)  # tried again too, and still no PDF


def test_sync_retry_skipped_from_the_cli_tries_a_lasting_skip_again(tmp_path, folder):
    home = tmp_path / "home"
    cli(home, "add", str(folder), "--name", "notes")
    cli(home, "sync", "--no-embed")
    again = cli(home, "sync", "--no-embed", "--json").stdout.decode()
    assert "fake.pdf" not in again  # a lasting skip, the file unchanged: not read again
    retried = cli(home, "sync", "--no-embed", "--json", "--retry-skipped").stdout.decode()
    assert "fake.pdf" in retried and "not a readable PDF" in retried, retried


def test_an_older_index_s_skips_from_a_silent_reader_are_tried_at_the_next_sync():
    from pms_tui.core.store.schema import MIGRATIONS

    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE skipped_files (collection_id INTEGER, path TEXT, size INTEGER, mtime_ns INTEGER, "
                 "reason TEXT, PRIMARY KEY (collection_id, path))")
    conn.executemany("INSERT INTO skipped_files VALUES (1, ?, 10, 10, ?)", [
        ("a.pdf", "the document reader gave no answer it could use"),
        ("b.pdf", "reading it took longer than 130 s (the limit per document); it was stopped"),
        ("c.pdf", "password-protected PDF; it cannot be read without its password"),
        ("d.md", "binary file, not Markdown"),
    ])
    step = MIGRATIONS[12]  # 13 -> 14
    assert callable(step)
    step(conn, None)
    retry = dict(conn.execute("SELECT path, retry_at FROM skipped_files"))
    assert retry == {"a.pdf": 0, "b.pdf": 0, "c.pdf": None, "d.md": None}
