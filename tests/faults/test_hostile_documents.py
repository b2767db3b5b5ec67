"""Hostile and broken documents beside the notes: a truncated PDF, a .docx zip bomb, a PDF with
deeply nested objects, a scanned PDF with no text, an empty file, a PDF that is no PDF. Each is
indexed or skipped with one sentence saying why (which limit, when a limit stopped it), the
sync finishes and the notes beside them are found; ``status`` and ``doctor`` list the skips;
nothing is written in the folder. The reader's limits (memory, CPU time) are enforced in its
own process, shown by running it on a bomb with small limits."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from tests.faults.document_files import page_lines, write_docx_bomb, write_nested_pdf, write_text_pdf
from tests.faults.faults_helpers import cli, tree_hashes


def out_of(proc) -> str:
    return proc.stdout.decode("utf-8", "replace")


def scanned_pdf(path: Path) -> None:
    from PIL import Image

    Image.new("L", (300, 300), 200).save(path, "PDF")


@pytest.fixture
def hostile(notes: Path) -> Path:
    (notes / "plain.md").write_text("# Plain\n\nwombat beside the documents\n", encoding="utf-8")
    write_text_pdf(notes / "good.pdf", [page_lines(1), page_lines(2)])
    whole = notes / "whole.pdf"
    write_text_pdf(whole, [page_lines(n) for n in range(1, 5)])
    data = whole.read_bytes()
    (notes / "truncated.pdf").write_bytes(data[: len(data) // 2])
    whole.unlink()
    write_nested_pdf(notes / "nested.pdf")
    write_docx_bomb(notes / "bomb.docx", 600_000_000)
    scanned_pdf(notes / "scanned.pdf")
    (notes / "empty.pdf").write_bytes(b"")
    (notes / "not-a-pdf.pdf").write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 64)
    (notes / "not-a-docx.docx").write_text("plain text with a .docx name", encoding="utf-8")
    return notes


EXPECTED_SKIPS = {
    "truncated.pdf": "not a readable PDF",
    "bomb.docx": "a zip bomb?",
    "scanned.pdf": "no text layer",
    "empty.pdf": "an empty file",
    "not-a-pdf.pdf": "not a readable PDF",
    "not-a-docx.docx": "not a readable Word file",
}


def test_hostile_documents_are_skipped_with_a_reason_and_the_rest_is_found(hostile, home):
    before = tree_hashes(hostile)
    cli(home, "add", str(hostile), "--name", "notes")
    out = out_of(cli(home, "sync", "--no-embed"))
    for name, why in EXPECTED_SKIPS.items():
        assert f"skipped notes/{name}: " in out and why in out.split(f"skipped notes/{name}: ")[1].split("\n")[0], name
    assert "read notes/good.pdf (2 pages)" in out
    assert "read notes/nested.pdf (1 page)" in out  # its nesting is beyond PDFium's depth limit: left out
    assert "Traceback" not in out
    hits = out_of(cli(home, "search", "wombat", "--mode", "bm25"))
    assert "plain.md" in hits
    assert "page 2" in out_of(cli(home, "search", "folio 2 line 3", "--mode", "bm25"))
    status = out_of(cli(home, "status"))
    assert "2 documents read (2 PDF), 6 skipped" in status
    for name in EXPECTED_SKIPS:
        assert f"! notes/{name}: " in status
    assert "+0 new" in status  # a skipped document is not new again until it changes
    doctor = out_of(cli(home, "doctor", check=False))
    assert "notes/bomb.docx (its text parts would inflate to 601 MB" in doctor
    assert tree_hashes(hostile) == before
    again = out_of(cli(home, "sync", "--no-embed"))
    assert ", 6 skipped (as before);" in again and "read notes/" not in again  # nothing read again, the skips stand


def test_the_readers_memory_limit_stops_a_bomb_under_the_size_check(tmp_path):
    from pms_tui.core.errors import SkipFile
    from pms_tui.core.indexing import documents

    bomb = tmp_path / "bomb.docx"
    write_docx_bomb(bomb, 10_000_000)  # 10 MB of XML: under the declared-size check
    with pytest.raises(SkipFile, match=r"needs more than 100 MB of memory to read \(the limit per document\)"):
        documents.extract(bomb, 1_000_000, memory_bytes=100_000_000)


def test_the_readers_cpu_limit_stops_a_slow_file(tmp_path):
    from pms_tui.core.errors import SkipFile
    from pms_tui.core.indexing import documents

    bomb = tmp_path / "slow.docx"
    write_docx_bomb(bomb, 10_000_000)
    with pytest.raises(SkipFile, match=r"took more than 1 s of CPU time \(the limit per document\); it was stopped"):
        documents.extract(bomb, 1_000_000, seconds=1)


def test_the_wall_clock_stops_a_reader_that_the_cpu_limit_does_not(tmp_path):
    from pms_tui.core.errors import SkipFile
    from pms_tui.core.indexing import documents

    bomb = tmp_path / "slow.docx"
    write_docx_bomb(bomb, 10_000_000)
    with pytest.raises(SkipFile, match=r"took longer than 10 s \(the limit per document\); it was stopped"):
        documents.extract(bomb, 1_000_000, seconds=0)


def test_a_reader_killed_by_a_signal_is_told_by_which_limit():
    from pms_tui.core.indexing.python_child import Limits, _stopped

    limits, what = Limits(60, 10**9), "the document reader"
    assert "CPU time" in _stopped(what, -signal.SIGXCPU, limits)
    assert "crashed" in _stopped(what, -signal.SIGSEGV, limits) and "1,000 MB" in _stopped(what, -signal.SIGSEGV, limits)
    assert "killed (SIGKILL)" in _stopped(what, -signal.SIGKILL, limits)
    assert "exit status 3" in _stopped(what, 3, limits)


def test_a_cancelled_sync_stops_the_reader_and_records_no_skip(tmp_path):
    import threading

    from pms_tui.core.errors import SkipFile
    from pms_tui.core.indexing import documents

    bomb = tmp_path / "slow.docx"
    write_docx_bomb(bomb, 10_000_000)
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    with pytest.raises(SkipFile, match="cancelled"):
        documents.extract(bomb, 1_000_000, cancel=cancel)
