"""PDF and Word files beside the notes, indexed read-only by their text: the real documents of
../shared/corpora/documents (skipped when absent) found by a phrase with their page, through
the KnowledgeBase, the CLI (a real process), MCP ``get`` (the SDK's client); links to them and
their pages; the re-reading rule (only when the bytes change); the user's folder untouched."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

from tests.kb_helpers import CORPORA
from tests.test_cli import run

DOCS = CORPORA / "documents"
PDFS = DOCS / "py-pdf-sample-files"
WORD = DOCS / "python-docx-test-files"
needs_documents = pytest.mark.skipif(not PDFS.is_dir() or not WORD.is_dir(),
                                     reason="../shared/corpora/documents is absent")
NOTE = ("# Reading list\n\nThe table of EU countries: [[multicolumn.pdf]].\n\n"
        "Its third page: ![[multicolumn.pdf#page=3]]\n")


def image_only_pdf(path: Path) -> None:
    """A scanned page: a PDF holding one picture and no text layer (Pillow writes it), a picture
    without words, so that OCR too finds none where Tesseract is installed (tests/test_ocr.py
    reads scanned words)."""
    from PIL import Image, ImageDraw

    picture = Image.new("RGB", (400, 200), "white")
    ImageDraw.Draw(picture).rectangle((20, 80, 380, 120), outline="black")
    picture.save(path, "PDF")


def folder_state(folder: Path) -> dict[str, tuple[int, int, str]]:
    """Every file under ``folder`` (dot-files too) with its size, mtime and SHA-256."""
    out = {}
    for root, _, files in os.walk(folder):
        for name in files:
            path = Path(root) / name
            info = path.stat()
            out[str(path.relative_to(folder))] = (info.st_size, info.st_mtime_ns,
                                                  hashlib.sha256(path.read_bytes()).hexdigest())
    return out


@pytest.fixture(scope="module")
def vault(tmp_path_factory) -> Path:
    if not PDFS.is_dir():
        pytest.skip("../shared/corpora/documents is absent")
    folder = tmp_path_factory.mktemp("documents") / "vault"
    folder.mkdir()
    for rel in ("026-latex-multicolumn/multicolumn.pdf", "006-pdflatex-outline/pdflatex-outline.pdf",
                "005-libreoffice-writer-password/libreoffice-writer-password.pdf"):
        shutil.copy(PDFS / rel, folder)
    for name in ("test.docx", "par-known-paragraphs.docx", "blk-paras-and-tables.docx"):
        shutil.copy(WORD / name, folder)
    image_only_pdf(folder / "scanned.pdf")
    (folder / "reading.md").write_text(NOTE, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def synced(vault, tmp_path_factory):
    from pms_tui.core.kb import KnowledgeBase

    home = tmp_path_factory.mktemp("documents-home")
    before = folder_state(vault)
    kb = KnowledgeBase(home=home)
    kb.collections.create(vault, name="docs")
    report = kb.sync()
    yield kb, report, before
    kb.close()


@needs_documents
def test_the_first_sync_says_which_documents_were_read_and_which_skipped(synced):
    _, report, _ = synced
    assert sorted(report.documents) == [
        "docs/blk-paras-and-tables.docx", "docs/multicolumn.pdf (3 pages)", "docs/par-known-paragraphs.docx",
        "docs/pdflatex-outline.pdf (4 pages)", "docs/test.docx"]
    skipped = dict(report.skipped)
    assert "password-protected" in skipped["docs/libreoffice-writer-password.pdf"]
    assert "no text layer" in skipped["docs/scanned.pdf"] and "scanned" in skipped["docs/scanned.pdf"]
    assert sorted(report.added) == sorted(["docs/reading.md"] + [d.split(" (")[0] for d in report.documents])


@needs_documents
def test_a_phrase_of_a_page_finds_the_document_with_its_page_in_both_lanes(synced):
    kb, _, _ = synced
    for mode in ("bm25", "vector", "hybrid"):
        hit = kb.search("Copenhagen Danish Helsinki capital population", k=3, mode=mode)[0]
        assert hit.relpath == "multicolumn.pdf" and hit.heading_path == ["page 3"], (mode, hit)
        assert "Copenhagen" in hit.text
    word = kb.search("python-docx was here", k=1, mode="bm25")[0]
    assert word.relpath == "test.docx" and word.heading_path == ["python-docx was here!"]


@needs_documents
def test_links_to_a_document_and_its_page_resolve(synced):
    kb, _, _ = synced
    links = kb.graph.links("docs/reading.md")
    assert [(link.target, link.anchor, link.status, link.target_path) for link in links] == [
        ("multicolumn.pdf", "", "resolved", "multicolumn.pdf"),
        ("multicolumn.pdf", "page=3", "resolved", "multicolumn.pdf")]
    text = kb.notes.note_text(kb.notes.note("docs/multicolumn.pdf")).split("\n")
    assert text[links[1].target_line - 1] == "# page 3"
    assert "Copenhagen" in kb.graph.passage(links[1], 2000)


@needs_documents
def test_nothing_is_written_beside_the_documents(synced, vault):
    kb, _, before = synced
    kb.sync()
    assert folder_state(vault) == before


@needs_documents
def test_a_document_is_read_again_only_when_its_bytes_change(synced, vault, tmp_path):
    kb, _, _ = synced
    pdf = vault / "pdflatex-outline.pdf"
    os.utime(pdf, ns=(pdf.stat().st_atime_ns, pdf.stat().st_mtime_ns + 5_000_000_000))
    touched = kb.sync()
    assert touched.documents == [] and touched.modified == []  # same bytes: not read again
    saved = pdf.read_bytes()
    try:
        shutil.copy(PDFS / "026-latex-multicolumn/multicolumn.pdf", pdf)
        changed = kb.sync()
        assert changed.documents == ["docs/pdflatex-outline.pdf (3 pages)"]
        assert {h.relpath for h in kb.search("Copenhagen Danish Helsinki", k=5, mode="bm25")} == {
            "multicolumn.pdf", "pdflatex-outline.pdf"}
    finally:
        pdf.write_bytes(saved)
        kb.sync()


@needs_documents
def test_status_and_doctor_list_documents_read_and_skipped(synced):
    kb, _, _ = synced
    counted = kb.index.document_counts()["docs"]
    assert counted.indexed == {"PDF": 2, "Word": 3}
    assert [rel for rel, _ in counted.skipped] == ["libreoffice-writer-password.pdf", "scanned.pdf"]
    check = next(c for c in kb.doctor.checks() if c.label == "documents")
    assert check.ok and "pypdfium2" in check.detail and "mammoth" in check.detail
    assert "docs/scanned.pdf (no text layer" in check.detail


@needs_documents
def test_the_cli_finds_a_document_with_its_page_and_status_lists_the_skips(synced, vault, tmp_path):
    home = tmp_path / "home"
    run(home, "add", str(vault), "--name", "docs")
    out = run(home, "sync", "--no-embed").stdout
    assert "read docs/multicolumn.pdf (3 pages)" in out and "skipped docs/scanned.pdf: no text layer" in out
    hits = json.loads(run(home, "search", "Copenhagen Danish Helsinki", "--mode", "bm25", "--json").stdout)["hits"]
    assert hits[0]["path"] == "multicolumn.pdf" and hits[0]["headings"] == ["page 3"]
    status = run(home, "status").stdout
    assert "5 documents read (2 PDF, 3 Word), 2 skipped" in status
    assert "! docs/libreoffice-writer-password.pdf: password-protected PDF" in status
    data = json.loads(run(home, "status", "--json").stdout)["documents"]["docs"]
    assert data["indexed"] == {"PDF": 2, "Word": 3} and len(data["skipped"]) == 2
    shown = run(home, "show", f"docs/multicolumn.pdf:{hits[0]['start_line']}").stdout
    assert "page 3" in shown and "Copenhagen" in shown


@needs_documents
def test_mcp_get_serves_a_document_with_its_page(synced):
    from tests.mcp_client import McpClient
    from tests.test_mcp_server import data

    kb, _, _ = synced
    hit = kb.search("Copenhagen Danish Helsinki", k=1, mode="bm25")[0]
    client = McpClient(kb.home)
    try:
        found = data(client.call("search", {"query": "Copenhagen Danish Helsinki", "mode": "bm25", "k": 1}))
        assert found["hits"][0]["id"] == "docs/multicolumn.pdf"
        note = data(client.call("get", {"note": "docs/multicolumn.pdf", "start_line": hit.start_line,
                                        "end_line": hit.end_line}))
        assert note["pages"] == [3, 3] and "Copenhagen" in note["text"]
        page = data(client.call("get", {"note": "docs/multicolumn.pdf#page=3"}))  # as a note links to it
        assert page["pages"] == [3, 3] and page["text"].startswith("# page 3\n") and "Copenhagen" in page["text"]
        assert "# page 2" not in page["text"]
        assert data(client.call("get", {"note": "multicolumn.pdf#page=2"}))["pages"] == [2, 2]
        missing = client.call("get", {"note": "docs/multicolumn.pdf#page=9"})
        assert missing.is_error and "has no page 9 with text" in missing.content[0].text
        whole = data(client.call("get", {"note": "docs/multicolumn.pdf"}))
        assert whole["pages"] == [1, 3] and "# page 2" in whole["text"] and whole["frontmatter"] == {}
        assert "Traceback" not in client.stderr()
    finally:
        client.close()


@needs_documents
def test_a_page_reference_is_read_alike_by_show_get_and_a_wikilink_and_a_missing_page_is_refused(synced):
    """``x.pdf#page=N`` and ``[[x.pdf#page=N]]`` name that page's lines wherever they are read
    (the notes' one policy); a page the document lacks is one sentence, never the whole file."""
    from pms_tui.core.errors import UsageError

    kb, _, _ = synced
    spans = {ref: (lambda n: (n.start_line, n.end_line))(kb.notes.note(ref))
             for ref in ("docs/multicolumn.pdf#page=3", "[[multicolumn.pdf#page=3]]", "multicolumn.pdf#page=3")}
    assert len(set(spans.values())) == 1 and None not in next(iter(spans.values())), spans
    page = kb.notes.read("[[multicolumn.pdf#page=3]]")
    assert page.text.startswith("# page 3\n") and "Copenhagen" in page.text and "# page 2" not in page.text
    for ref in ("[[multicolumn.pdf#page=9]]", "docs/multicolumn.pdf#page=0", "[[multicolumn.pdf#page=abc]]"):
        with pytest.raises(UsageError):
            kb.notes.note(ref)
    shown = run(kb.home, "show", "docs/multicolumn.pdf#page=3")
    assert "Copenhagen" in shown.stdout and "page 2" not in shown.stdout
    as_json = json.loads(run(kb.home, "show", "--json", "[[multicolumn.pdf#page=3]]").stdout)
    assert as_json["pages"] == [3, 3] and as_json["text"] == page.text
    missing = run(kb.home, "show", "[[multicolumn.pdf#page=999]]", check=False)
    assert missing.returncode != 0 and "has no page 999 with text" in missing.stderr and not missing.stdout


@needs_documents
def test_every_real_document_is_read_or_skipped_with_a_reason(tmp_path):
    """The shared sample documents (read-only), one collection per sample folder, text only:
    each PDF with a text layer and each Word file with text is found by its own words. The
    manuals beside them are a library of their own (benchmarks/documents.py), not samples."""
    from pms_tui.core.kb import KnowledgeBase

    samples = ("py-pdf-sample-files", "python-docx-test-files")
    before = folder_state(DOCS)
    with KnowledgeBase(home=tmp_path / "home") as kb:
        for name in samples:
            kb.collections.create(DOCS / name, name=name)
        report = kb.sync(embed=False)
        skipped = dict(report.skipped)
        files = sorted(str(p.relative_to(DOCS)) for name in samples for p in (DOCS / name).rglob("*")
                       if p.suffix in (".pdf", ".docx"))
        assert len(files) == 43  # 31 PDFs, 12 Word files (two of them empty)
        read = {d.split(" (")[0] for d in report.documents}
        assert read | set(skipped) >= set(files)
        for rel in files:
            assert (rel in read) != (rel in skipped), rel
        assert "password-protected" in skipped["py-pdf-sample-files/005-libreoffice-writer-password/"
                                               "libreoffice-writer-password.pdf"]
        assert skipped["python-docx-test-files/footnotes.docx"] == "an empty file"
        assert len(read) >= 28
        geotopo = "009-pdflatex-geotopo/GeoTopo-komprimiert.pdf"
        hit = kb.search('"Zariski-Topologie ist zusammenhängend"', k=1, mode="bm25")[0]
        assert hit.relpath == geotopo and hit.heading_path == ["page 13 (PDF page 16)"]  # as printed
        arabic = kb.search("habibi", k=5, mode="bm25")
        assert any("015-arabic" in h.relpath for h in arabic)
    assert folder_state(DOCS) == before


def test_a_document_skipped_for_want_of_its_reader_is_read_once_the_reader_is_installed(tmp_path, monkeypatch):
    from pms_tui.core.indexing import documents
    from pms_tui.core.kb import KnowledgeBase
    from tests.faults.document_files import page_lines, write_text_pdf

    folder = tmp_path / "notes"
    folder.mkdir()
    write_text_pdf(folder / "paper.pdf", [page_lines(1), page_lines(2)])
    with KnowledgeBase(home=tmp_path / "home") as kb:
        kb.collections.create(folder, name="notes")
        monkeypatch.setattr(documents, "reader_installed", lambda name: False)
        first = kb.sync(embed=False)
        assert first.skipped == [("notes/paper.pdf", "no reader for .pdf files is installed (pip install pypdfium2)")]
        assert kb.check_sync_status().to_add == []  # skipped, not new, while the reader is missing
        monkeypatch.undo()
        assert [str(p) for p in kb.check_sync_status().to_add] == ["notes/paper.pdf"]
        assert kb.sync(embed=False).documents == ["notes/paper.pdf (2 pages)"]
        assert kb.search("folio 2 line 5", k=1, mode="bm25")[0].heading_path == ["page 2"]
