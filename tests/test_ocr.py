"""OCR by Tesseract inside the document reader: an image file (PNG, JPEG) and a PDF page with
no text layer read in the reader's process, in the languages asked for (those installed);
without Tesseract, one sentence says what would read them, and ``doctor`` says whether it is
there. CI installs Tesseract (.ci/run), so there these tests run; elsewhere they are skipped
where it is absent."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from pms_tui.core.errors import SkipFile
from pms_tui.core.indexing import documents, ocr
from tests.format_files import write_text_image

if os.environ.get("CI") and shutil.which("tesseract") is None:
    raise RuntimeError("CI installs Tesseract (.ci/run): its OCR tests must run there")
needs_tesseract = pytest.mark.skipif(shutil.which("tesseract") is None,
                                     reason="Tesseract is not installed (apt-get install tesseract-ocr)")
LINE = "Heron colony census"


def words(text: str) -> set[str]:
    return set(text.lower().split())


def scanned_pdf(path: Path, lines: list[str]) -> None:
    """A PDF of pictures only, one page a line of text (Pillow writes it): a scan."""
    from PIL import Image

    pages = []
    drawn = path.with_name(".pages")  # (a dot-folder: no collection reads it)
    drawn.mkdir(exist_ok=True)
    for n, line in enumerate(lines):
        picture = drawn / f"page{n}.png"
        write_text_image(picture, line)
        pages.append(Image.open(picture).convert("L"))
    pages[0].save(path, "PDF", save_all=True, append_images=pages[1:], resolution=150)


@needs_tesseract
@pytest.mark.parametrize("name", ["census.png", "census.jpg"])
def test_an_image_is_read_by_ocr(tmp_path, name):
    image = tmp_path / name
    write_text_image(image, LINE)
    got = documents.extract(image, 1_000_000)
    assert {"heron", "colony", "census"} <= words(got.markdown), got.markdown
    assert got.pages == 0 and not got.markdown.startswith("#")


@needs_tesseract
def test_a_scanned_pdf_is_read_page_by_page(tmp_path):
    pdf = tmp_path / "scan.pdf"
    scanned_pdf(pdf, [LINE, "Kingfisher burrows mapped"])
    got = documents.extract(pdf, 1_000_000)
    assert got.pages == 2 and got.unread == ""
    first, second = got.markdown.split("# page 2")
    assert first.startswith("# page 1\n") and {"heron", "census"} <= words(first)
    assert {"kingfisher", "burrows"} <= words(second)


@needs_tesseract
def test_a_scanned_document_in_a_collection_is_found_by_its_words(tmp_path):
    from pms_tui.core.kb import KnowledgeBase

    folder = tmp_path / "vault"
    folder.mkdir()
    scanned_pdf(folder / "scan.pdf", ["Kingfisher burrows mapped"])
    write_text_image(folder / "board.png", LINE)
    with KnowledgeBase(home=tmp_path / "home") as kb:
        kb.collections.create(folder, name="v")
        report = kb.sync(embed=False)
        assert sorted(report.documents) == ["v/board.png", "v/scan.pdf (1 page)"] and report.skipped == []
        assert kb.search("kingfisher burrows", k=1, mode="bm25")[0].heading_path == ["page 1"]
        assert kb.search("heron census", k=1, mode="bm25")[0].relpath == "board.png"
        assert kb.index.document_counts()["v"].indexed == {"PDF": 1, "image": 1}
        ocr_line = next(c for c in kb.doctor.checks() if c.label == "ocr")
        assert ocr_line.ok and ocr_line.detail.startswith("tesseract ") and "eng" in ocr_line.detail


@needs_tesseract
def test_a_blank_page_is_not_read_by_ocr(tmp_path):
    from tests.faults.document_files import page_lines, write_text_pdf

    pdf, blank = tmp_path / "verso.pdf", tmp_path / "blank.pdf"
    write_text_pdf(pdf, [page_lines(1), [], page_lines(3)])  # a page with neither text nor a picture
    assert ocr.complete(str(pdf), {"pages": ["a", "", "c"]}, "eng", 60)["ocr"] == {"pages": 0, "left": 0,
                                                                                    "languages": "eng"}
    assert documents.extract(pdf, 1_000_000).pages == 3
    write_text_pdf(blank, [[]])
    with pytest.raises(SkipFile, match=r"^no text in it \(its 1 page holds neither text nor pictures\)$"):
        documents.extract(blank, 1_000_000)


@needs_tesseract
def test_a_page_ocr_has_no_time_for_is_said(tmp_path):
    from tests.faults.test_hostile_documents import scanned_pdf as blank_pdf

    pdf = tmp_path / "blank.pdf"
    blank_pdf(pdf)
    out = ocr.complete(str(pdf), {"pages": [""], "title": ""}, "eng", 0)  # no time at all
    assert out["ocr"] == {"pages": 0, "left": 1, "languages": "eng"}
    assert documents._no_text_reason(1, out["ocr"]).endswith("OCR had no time left for it (the time per document)")
    assert documents._ocr_note({"pages": 3, "left": 2}) == (
        "2 scanned pages not read by OCR (its time per document ran out after 3)")
    with pytest.raises(SkipFile, match=r"no text layer \(1 page of images only, a scanned PDF\?\), and OCR "
                                       r"\(eng\) found no words in it"):
        documents.extract(pdf, 1_000_000)  # a grey page: read, and nothing on it


def test_without_tesseract_one_sentence_says_what_would_read_them(tmp_path, monkeypatch):
    from tests.faults.test_hostile_documents import scanned_pdf as blank_pdf

    image, pdf = tmp_path / "board.png", tmp_path / "scan.pdf"
    write_text_image(image, LINE)
    blank_pdf(pdf)
    monkeypatch.setenv("PATH", str(tmp_path / "no-programs-here"))  # (the reader starts by sys.executable)
    assert ocr.engine() is None
    with pytest.raises(SkipFile) as skipped:
        documents.extract(image, 1_000_000)
    assert str(skipped.value) == "no reader for .png files is installed (apt-get install tesseract-ocr)"
    with pytest.raises(SkipFile) as skipped:
        documents.extract(pdf, 1_000_000)
    assert str(skipped.value) == ("no text layer (1 page of images only, a scanned PDF?); Tesseract would read it "
                                  "(apt-get install tesseract-ocr; on macOS brew install tesseract)")
    from pms_tui.core.services.doctor import _ocr_check

    check = _ocr_check("")
    assert check.ok and check.detail.startswith("Tesseract is not installed: scanned pages and images (PNG, JPEG) "
                                                "are skipped; apt-get install tesseract-ocr")


@needs_tesseract
def test_a_scan_skipped_for_want_of_tesseract_is_read_once_it_is_installed(tmp_path, monkeypatch):
    from pms_tui.core.kb import KnowledgeBase

    folder = tmp_path / "vault"
    folder.mkdir()
    scanned_pdf(folder / "scan.pdf", ["Kingfisher burrows mapped"])
    with KnowledgeBase(home=tmp_path / "home") as kb:
        kb.collections.create(folder, name="v")
        monkeypatch.setenv("PATH", str(tmp_path / "no-programs-here"))
        first = kb.sync(embed=False)
        assert [p for p, why in first.skipped if ocr.MISSING in why] == ["v/scan.pdf"]
        assert kb.check_sync_status().to_add == []  # skipped, not new, while Tesseract is missing
        monkeypatch.undo()
        assert [str(p) for p in kb.check_sync_status().to_add] == ["v/scan.pdf"]
        assert kb.sync(embed=False).documents == ["v/scan.pdf (1 page)"]
        assert kb.search("kingfisher burrows", k=1, mode="bm25")[0].relpath == "scan.pdf"


def test_the_ocr_languages_are_the_setting_or_the_notes_and_only_those_installed(monkeypatch):
    from pms_tui.core.config import check_value
    from pms_tui.core.errors import ConfigError

    assert ocr.languages_for("", ["de", "fr", "xx"]) == "eng+deu+fra"
    assert ocr.languages_for("chi_sim", ["de"]) == "chi_sim"
    assert check_value("ocr_languages", "eng+chi_sim", "config.toml") == "eng+chi_sim"
    for bad in ("eng;rm", "english", "eng+", "../x"):
        with pytest.raises(ConfigError, match="ocr_languages"):
            check_value("ocr_languages", bad, "config.toml")
    monkeypatch.setattr(ocr, "installed_languages", lambda: ["eng", "osd"])
    assert ocr.choose("deu+eng") == "eng" and ocr.choose("deu") == "eng"
    monkeypatch.setattr(ocr, "installed_languages", lambda: ["deu", "osd"])
    assert ocr.choose("fra") == "deu"


@needs_tesseract
def test_a_file_named_as_an_image_that_is_none_or_is_damaged_is_skipped_in_one_sentence(tmp_path):
    """Text named .png is not handed to Tesseract; a PNG cut short is, and its skip says the
    first line of Tesseract's complaint, not the page of Leptonica's trace after it."""
    fake = tmp_path / "fake.png"
    fake.write_text("not a png")
    with pytest.raises(SkipFile) as skipped:
        documents.extract(fake, 1_000_000)
    assert str(skipped.value) == "not a readable image: its bytes are not a PNG or JPEG picture"
    whole, cut = tmp_path / "whole.png", tmp_path / "cut.png"
    write_text_image(whole, LINE)
    cut.write_bytes(whole.read_bytes()[:200])
    with pytest.raises(SkipFile) as skipped:
        documents.extract(cut, 1_000_000)
    reason = str(skipped.value)
    assert reason.startswith("no text in it; Tesseract could not read it (a damaged picture? ") and reason.endswith(")")
    assert "pixRead" not in reason and "\n" not in reason, reason
    misnamed = tmp_path / "photo.jpg"  # PNG bytes under a JPEG's name: a picture all the same
    misnamed.write_bytes(whole.read_bytes())
    assert {"heron", "colony", "census"} <= words(documents.extract(misnamed, 1_000_000).markdown)
