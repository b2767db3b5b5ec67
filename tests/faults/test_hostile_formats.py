"""Hostile files of each format beyond PDF and Word, each bounded and skipped (or read) with
one sentence by the real reader process: zip bombs (refused from the zip's directory before a
part is inflated), billion-laughs XML (no entity expanded), sheets of a million empty cells,
an Excel sheet whose two cells are far apart, and garbage bytes under each extension. Then a
folder of them synced: every hostile file skipped with its reason, the rest found."""

from __future__ import annotations

import time
import zipfile
from pathlib import Path

import pytest

from pms_tui.core.errors import SkipFile
from pms_tui.core.indexing import documents
from tests.format_files import (BILLION_LAUGHS, replace_part, write_epub, write_ods, write_odt, write_pptx,
                                write_xlsx, write_zip_bomb)

# Every case here is read in a few seconds on a loaded machine; past this, a bound is missing.
BOUND_SECONDS = 30


def outcome(path: Path) -> tuple[str, str]:
    """("read", its Markdown) or ("skip", the reason), and the time it took within the bound."""
    started = time.monotonic()
    try:
        result = ("read", documents.extract(path, 1_000_000).markdown)
    except SkipFile as exc:
        result = ("skip", str(exc))
    assert time.monotonic() - started < BOUND_SECONDS, path.name
    if result[0] == "skip":
        assert "\n" not in result[1] and "Traceback" not in result[1]
    return result


def laughs(root: str, xml: str) -> str:
    """An XML part made a billion-laughs file: the entities declared, ``&lol9;`` used in its text."""
    return BILLION_LAUGHS.replace("lolz", root) + xml.split("?>", 1)[-1]


def part(path: Path, name: str) -> str:
    with zipfile.ZipFile(path) as archive:
        return archive.read(name).decode("utf-8")


@pytest.mark.parametrize("name, entry", [
    ("bomb.epub", "OEBPS/text/c1.xhtml"),
    ("bomb.odt", "content.xml"),
    ("bomb.pptx", "ppt/slides/slide1.xml"),
    ("bomb.xlsx", "xl/worksheets/sheet1.xml"),
    ("bomb.ods", "content.xml"),
])
def test_a_zip_bomb_is_refused_before_it_is_inflated(tmp_path, name, entry):
    path = tmp_path / name
    write_zip_bomb(path, entry, 300_000_000, {"mimetype": "application/zip"})
    assert path.stat().st_size < 1_000_000
    kind, why = outcome(path)
    assert kind == "skip" and "would inflate to 300 MB" in why and "a zip bomb?" in why, why


def test_billion_laughs_expand_nowhere(tmp_path):
    epub = tmp_path / "laughs.epub"
    write_epub(epub, {"c1.xhtml": laughs("html", '<html xmlns="http://www.w3.org/1999/xhtml"><body><p>before '
                                                 "&lol9; after</p></body></html>")}, {"c1.xhtml": "One"})
    assert outcome(epub) == ("read", "# One\n\nbefore &lol9; after\n")  # the entity stays as written
    odt = tmp_path / "laughs.odt"
    write_odt(odt)
    replace_part(odt, "content.xml", laughs("office:document-content", part(odt, "content.xml")
                                            .replace("The estuary", "&lol9; The estuary")))
    pptx = tmp_path / "laughs.pptx"
    write_pptx(pptx)
    replace_part(pptx, "ppt/slides/slide1.xml", laughs("p:sld", part(pptx, "ppt/slides/slide1.xml")
                                                       .replace("Mangrove", "&lol9; Mangrove")))
    xlsx = tmp_path / "laughs.xlsx"
    write_xlsx(xlsx)
    replace_part(xlsx, "xl/worksheets/sheet1.xml", laughs("worksheet", part(xlsx, "xl/worksheets/sheet1.xml")
                                                          .replace("sea kayak", "&lol9; sea kayak")))
    for path in (odt, pptx, xlsx):
        kind, text = outcome(path)
        assert "lollollol" not in text, path.name
        if kind == "skip":  # libxml2's amplification limit, or calamine's refusal of an unknown entity
            assert "amplification" in text or "entity" in text, (path.name, text)


def test_a_million_empty_cells_cost_a_few_seconds_and_add_nothing(tmp_path):
    import openpyxl.utils

    ods = tmp_path / "million.ods"
    write_ods(ods)
    replace_part(ods, "content.xml", part(ods, "content.xml").replace("</table:table>", (
        '<table:table-row table:number-rows-repeated="1000000"><table:table-cell '
        'table:number-columns-repeated="1000"/></table:table-row></table:table>')))
    assert outcome(ods) == ("read", "# Tides\n\n| hour | height |\n| --- | --- |\n| 06:00 | 2.1 metres spring tide |\n")
    xlsx = tmp_path / "million.xlsx"
    write_xlsx(xlsx)
    columns = [openpyxl.utils.get_column_letter(i) for i in range(1, 1001)]
    rows = "".join(f'<row r="{r}">' + "".join(f'<c r="{c}{r}" s="0"/>' for c in columns) + "</row>"
                   for r in range(10, 1010))  # a million formatted cells holding nothing
    replace_part(xlsx, "xl/worksheets/sheet1.xml", part(xlsx, "xl/worksheets/sheet1.xml")
                 .replace("</sheetData>", rows + "</sheetData>"))
    kind, text = outcome(xlsx)
    assert kind == "read" and text.startswith("# Budget\n\n| item | cost |\n") and text.count("\n|") == 4


def test_a_sheet_too_large_to_hold_is_one_sentence(tmp_path):
    ods = tmp_path / "huge.ods"
    write_ods(ods, [["only"]])
    replace_part(ods, "content.xml", part(ods, "content.xml").replace("</table:table>", (
        '<table:table-row table:number-rows-repeated="1000000"><table:table-cell office:value-type="string" '
        'table:number-columns-repeated="1000"><text:p>x</text:p></table:table-cell></table:table-row>'
        "</table:table>")))
    kind, why = outcome(ods)
    assert kind == "skip" and why.startswith("a sheet too large to read (Cell limit exceeded"), why
    far = tmp_path / "far.xlsx"  # two cells 17 billion cells apart: a dense range the memory limit stops
    write_xlsx(far)
    replace_part(far, "xl/worksheets/sheet1.xml", part(far, "xl/worksheets/sheet1.xml").replace(
        "</sheetData>", '<row r="1048576"><c r="XFD1048576" t="inlineStr"><is><t>far</t></is></c></row></sheetData>'))
    kind, why = outcome(far)
    assert kind == "skip" and ("memory" in why or "crashed" in why), why


@pytest.mark.parametrize("suffix", [".epub", ".pptx", ".xlsx", ".ods", ".odt", ".txt"])
def test_garbage_under_a_formats_extension_is_one_sentence(tmp_path, suffix):
    path = tmp_path / f"garbage{suffix}"
    path.write_bytes(b"\x00\xffPK\x03\x04garbage" * 200)
    kind, why = outcome(path)
    assert kind == "skip" and ("not a readable" in why or "not plain text" in why), why


def test_a_zip_that_is_not_the_format_is_one_sentence(tmp_path):
    for name, what in (("empty.epub", "it has no META-INF/container.xml"), ("empty.odt", "it has no content.xml"),
                       ("empty.pptx", "not a readable PowerPoint file"), ("empty.xlsx", "not a readable Excel file")):
        with zipfile.ZipFile(tmp_path / name, "w") as archive:
            archive.writestr("readme.txt", "a zip with another extension")
        kind, why = outcome(tmp_path / name)
        assert kind == "skip" and what in why, (name, why)


def test_a_folder_of_hostile_files_is_synced_and_the_rest_found(tmp_path):
    from pms_tui.core.kb import KnowledgeBase

    folder = tmp_path / "vault"
    folder.mkdir()
    write_zip_bomb(folder / "bomb.epub", "OEBPS/text/c1.xhtml", 300_000_000)
    (folder / "garbage.pptx").write_bytes(b"garbage" * 100)
    (folder / "binary.txt").write_bytes(b"\x00" * 100)
    write_odt(folder / "field.odt")
    (folder / "note.md").write_text("# Note\n\nwombat beside the documents\n", encoding="utf-8")
    with KnowledgeBase(home=tmp_path / "home") as kb:
        kb.collections.create(folder, name="v")
        report = kb.sync(embed=False)
        assert sorted(p for p, _ in report.skipped) == ["v/binary.txt", "v/bomb.epub", "v/garbage.pptx"]
        assert report.documents == ["v/field.odt"]
        assert kb.search("wombat", k=1, mode="bm25")[0].relpath == "note.md"
        assert kb.search("lugworms", k=1, mode="bm25")[0].relpath == "field.odt"
        assert sorted(kb.index.document_counts()["v"].skipped) == sorted(
            (p.removeprefix("v/"), why) for p, why in report.skipped)


def test_an_encrypted_office_file_and_a_deck_without_words_are_one_sentence(tmp_path):
    from pptx import Presentation

    encrypted = tmp_path / "locked.xlsx"  # Office writes an encrypted file as an OLE compound file
    encrypted.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(4096))
    assert outcome(encrypted) == ("skip", "a password-protected Excel file (or one in the older binary format); "
                                          "it cannot be read without its password")
    blank = tmp_path / "blank.pptx"
    deck = Presentation()
    deck.slides.add_slide(deck.slide_layouts[6])
    deck.save(blank)
    assert outcome(blank) == ("skip", "no text in it (1 page without words)")
