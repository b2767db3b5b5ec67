"""Each document format beyond PDF and Word read from a real file (written by the format's own
writer, tests/format_files.py) by the real reader process: PowerPoint (a slide a page, its
notes included), Excel and OpenDocument spreadsheets (a sheet a bounded table), OpenDocument
text, EPUB (chapters as headings), plain text and a saved HTML page (the clipper's reader);
then all of them in one collection, found by their words through the KnowledgeBase."""

from __future__ import annotations

from pathlib import Path

import pytest

from pms_tui.core.errors import SkipFile
from pms_tui.core.indexing import documents
from pms_tui.core.indexing.document_reader import DOCUMENT_SUFFIXES, FORMATS, format_of
from tests.format_files import write_epub, write_ods, write_odt, write_pptx, write_xlsx

SAVED_PAGE = ("<html><head><title>Mosses of the north wall</title></head><body><nav><a href='/'>Home</a> "
              "<a href='/shop'>Shop</a></nav><article><h1>Mosses</h1><p>Moss grows on the shaded side of old "
              "walls and holds water like a sponge through the dry weeks of summer.</p><p>Its spores ride the "
              "wind for kilometres before they settle in a crack of mortar.</p></article>"
              "<footer>Copyright footer text</footer></body></html>")


def read(path: Path) -> documents.Extracted:
    return documents.extract(path, 1_000_000)


def test_every_extension_has_one_format_and_one_reader():
    assert len(DOCUMENT_SUFFIXES) == len(set(DOCUMENT_SUFFIXES))
    for suffix in (".pdf", ".docx", ".epub", ".pptx", ".xlsx", ".ods", ".odt", ".txt", ".html", ".png", ".jpg"):
        assert suffix in DOCUMENT_SUFFIXES
        assert format_of("x" + suffix.upper()) is not None
    assert format_of("notes.md") is None and format_of("archive.zip") is None
    assert len({f.reader for f in FORMATS}) == len(FORMATS)


def test_a_slide_is_a_page_with_its_speaker_notes(tmp_path):
    deck = tmp_path / "survey.pptx"
    write_pptx(deck)
    got = read(deck)
    assert got.pages == 2 and got.title == "Survey deck"
    first, second = got.markdown.split("# page 2")
    assert first.startswith("# page 1\n") and "Mangrove roots trap sediment" in first
    assert "Notes:\nMention the kingfisher burrows" in first
    assert "Depths by site" in second and "Saltmarsh | 3.5" in second


def test_an_excel_sheet_is_a_table_under_its_name(tmp_path):
    book = tmp_path / "budget.xlsx"
    write_xlsx(book)
    text = read(book).markdown
    assert text.startswith("# Budget\n\n| item | cost |\n| --- | --- |\n")
    assert "| sea kayak | 420 |" in text and "| paddle \\| spare | 35.5 |" in text  # a pipe is a cell's text
    assert "# Empty" not in text  # a sheet with nothing in it is not a heading


def test_an_opendocument_sheet_is_a_table_under_its_name(tmp_path):
    book = tmp_path / "tides.ods"
    write_ods(book)
    assert read(book).markdown == "# Tides\n\n| hour | height |\n| --- | --- |\n| 06:00 | 2.1 metres spring tide |\n"


def test_a_long_sheet_is_cut_with_a_sentence(tmp_path):
    from pms_tui.core.indexing.formats import sheets

    book = tmp_path / "long.ods"
    write_ods(book, [[f"row {n}", str(n)] for n in range(sheets.MAX_ROWS + 250)])
    text = read(book).markdown
    assert f"| row {sheets.MAX_ROWS - 1} |" in text and f"| row {sheets.MAX_ROWS} |" not in text
    assert text.rstrip().endswith(f"The sheet goes on: 250 more rows are not indexed (a sheet is indexed up to "
                                  f"{sheets.MAX_ROWS:,} rows of {sheets.MAX_COLUMNS} columns).")


def test_opendocument_text_keeps_its_headings(tmp_path):
    document = tmp_path / "field.odt"
    write_odt(document)
    text = read(document).markdown
    assert text.startswith("# Field notes\n\nThe estuary floods twice a day")
    assert "\n## Equipment\n" in text
    assert "- \\# a hash that is no heading" in text  # a paragraph's text makes no heading


def test_an_epub_chapter_is_a_heading_named_by_the_table_of_contents(tmp_path):
    book = tmp_path / "birds.epub"
    write_epub(book)
    got = read(book)
    assert got.title == "Birds of the Shore"
    assert got.markdown.startswith("# Herons\n\nGrey herons stand still for hours in the shallows.")
    assert "\n### Nesting\n\n- Colonies in tall alders" in got.markdown  # the chapter's own h2, one level down
    assert "\n# Plovers\n\nRinged plovers run along the tideline." in got.markdown
    assert "\\```not a fence" in got.markdown  # a chapter's text opens no code fence


def test_plain_text_is_shown_as_written(tmp_path):
    utf8, legacy, binary = tmp_path / "a.txt", tmp_path / "b.txt", tmp_path / "c.txt"
    utf8.write_text("Lichens on the gate\n# not a heading\n```\n", encoding="utf-8")
    legacy.write_bytes("Caf\u00e9 by the quay \u20ac5".encode("cp1252"))
    binary.write_bytes(b"\x00\x01binary" * 50)
    assert read(utf8).markdown == "Lichens on the gate\n\\# not a heading\n\\```\n"
    assert read(legacy).markdown == "Caf\u00e9 by the quay \u20ac5\n"
    with pytest.raises(SkipFile, match=r"^not plain text \(it holds binary data\)$"):
        read(binary)


def test_a_saved_page_reads_as_the_clipper_reads_it(tmp_path):
    page = tmp_path / "mosses.html"
    page.write_text(SAVED_PAGE, encoding="utf-8")
    got = read(page)
    assert got.title == "Mosses"  # the clipper's choice: the article's own heading over <title>
    assert "Moss grows on the shaded side of old walls" in got.markdown and "spores ride the wind" in got.markdown
    assert "Shop" not in got.markdown and "Copyright footer" not in got.markdown  # boilerplate dropped


def test_every_format_in_one_collection_is_found_by_its_words(tmp_path):
    from pms_tui.core.kb import KnowledgeBase

    folder = tmp_path / "vault"
    folder.mkdir()
    write_pptx(folder / "survey.pptx")
    write_xlsx(folder / "budget.xlsx")
    write_ods(folder / "tides.ods")
    write_odt(folder / "field.odt")
    filler = "<p>" + "Waders feed on the mudflats as the tide falls. " * 30 + "</p>"  # a chapter a passage
    write_epub(folder / "birds.epub", {
        "c1.xhtml": f'<html xmlns="http://www.w3.org/1999/xhtml"><body><h1>Herons</h1>{filler}</body></html>',
        "c2.xhtml": ('<html xmlns="http://www.w3.org/1999/xhtml"><body><h1>Plovers</h1><p>Ringed plovers run '
                     f"along the tideline.</p>{filler}</body></html>")})
    (folder / "lichens.txt").write_text("Lichens colonise the granite gateposts slowly.\n", encoding="utf-8")
    (folder / "mosses.html").write_text(SAVED_PAGE, encoding="utf-8")
    (folder / "note.md").write_text("# A note\n\nbeside the documents\n", encoding="utf-8")
    with KnowledgeBase(home=tmp_path / "home") as kb:
        kb.collections.create(folder, name="v")
        report = kb.sync(embed=False)
        assert sorted(report.documents) == ["v/birds.epub", "v/budget.xlsx", "v/field.odt", "v/lichens.txt",
                                            "v/mosses.html", "v/survey.pptx (2 pages)", "v/tides.ods"]
        assert report.skipped == []
        for query, relpath, heading in (("kingfisher burrows culvert", "survey.pptx", ["page 1"]),
                                        ("sea kayak", "budget.xlsx", ["Budget"]),
                                        ("spring tide metres", "tides.ods", ["Tides"]),
                                        ("lugworms surface at dusk", "field.odt", ["Field notes"]),
                                        ("ringed plovers tideline", "birds.epub", ["Plovers"]),
                                        ("granite gateposts", "lichens.txt", []),
                                        ("spores mortar", "mosses.html", ["Mosses"])):
            hit = kb.search(query, k=1, mode="bm25")[0]
            assert (hit.relpath, hit.heading_path) == (relpath, heading), query
        counted = kb.index.document_counts()["v"]
        assert counted.indexed == {"EPUB": 1, "spreadsheet": 2, "OpenDocument text": 1, "text": 1, "HTML": 1,
                                   "PowerPoint": 1}
        titles = {r.relpath: r.title for r in kb.search("the", k=20, mode="bm25")}
        assert titles.get("birds.epub") == "Birds of the Shore"
