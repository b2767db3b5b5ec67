"""Real files of each document format, written by the formats' own writers (python-pptx,
openpyxl, odfpy, Pillow) or, for EPUB, by zipfile as the EPUB 3 specification lays one out
(its one maintained writer for Python, EbookLib, is AGPL); and hostile ones: zip bombs,
billion-laughs XML, sheets of a million empty cells, garbage under a format's extension."""

from __future__ import annotations

import zipfile
from pathlib import Path

BILLION_LAUGHS = (
    '<?xml version="1.0"?>\n<!DOCTYPE lolz [\n<!ENTITY lol "lol">\n'
    + "".join(f'<!ENTITY lol{i} "{("&lol%s;" % ("" if i == 1 else i - 1)) * 10}">\n' for i in range(1, 10))
    + "]>\n"
)


def write_pptx(path: Path) -> None:
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    first = deck.slides.add_slide(deck.slide_layouts[1])
    first.shapes.title.text = "Quarterly tidal survey"
    first.placeholders[1].text = "Mangrove roots trap sediment\nHerons nest in the canopy"
    first.notes_slide.notes_text_frame.text = "Mention the kingfisher burrows by the culvert"
    second = deck.slides.add_slide(deck.slide_layouts[5])
    second.shapes.title.text = "Depths by site"
    table = second.shapes.add_table(2, 2, Inches(1), Inches(2), Inches(4), Inches(1)).table
    for (r, c), text in {(0, 0): "site", (0, 1): "depth", (1, 0): "Saltmarsh", (1, 1): "3.5"}.items():
        table.cell(r, c).text = text
    deck.core_properties.title = "Survey deck"
    deck.save(path)


def write_xlsx(path: Path) -> None:
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Budget"
    sheet.append(["item", "cost"])
    sheet.append(["sea kayak", 420])
    sheet.append(["paddle | spare", 35.5])
    book.create_sheet("Empty")
    book.save(path)


def write_ods(path: Path, rows: list[list[str]] | None = None) -> None:
    from odf.opendocument import OpenDocumentSpreadsheet
    from odf.table import Table, TableCell, TableRow
    from odf.text import P

    document = OpenDocumentSpreadsheet()
    table = Table(name="Tides")
    for row in rows or [["hour", "height"], ["06:00", "2.1 metres spring tide"]]:
        tr = TableRow()
        for value in row:
            cell = TableCell(valuetype="string")
            cell.addElement(P(text=value))
            tr.addElement(cell)
        table.addElement(tr)
    document.spreadsheet.addElement(table)
    document.save(str(path))


def write_odt(path: Path) -> None:
    from odf.opendocument import OpenDocumentText
    from odf.text import H, List, ListItem, P

    document = OpenDocumentText()
    document.text.addElement(H(outlinelevel=1, text="Field notes"))
    document.text.addElement(P(text="The estuary floods twice a day and the lugworms surface at dusk."))
    document.text.addElement(H(outlinelevel=2, text="Equipment"))
    items = List()
    item = ListItem()
    item.addElement(P(text="# a hash that is no heading"))
    items.addElement(item)
    document.text.addElement(items)
    document.save(str(path))


_CONTAINER = ('<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:'
              'container"><rootfiles><rootfile full-path="OEBPS/content.opf" '
              'media-type="application/oebps-package+xml"/></rootfiles></container>')


def write_epub(path: Path, chapters: dict[str, str] | None = None, labels: dict[str, str] | None = None,
               title: str = "Birds of the Shore") -> None:
    """An EPUB 3 book: ``chapters`` {file name: XHTML}, named in its navigation document by ``labels``."""
    chapters = chapters or {
        "c1.xhtml": ('<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head>'
                     "<title>x</title></head><body><section><h1>Herons</h1><p>Grey herons stand <em>still</em> "
                     "for hours in the shallows.</p><h2>Nesting</h2><ul><li>Colonies in tall alders</li></ul>"
                     "</section></body></html>"),
        "c2.xhtml": ('<html xmlns="http://www.w3.org/1999/xhtml"><body><div><p>Ringed plovers run along the '
                     "tideline.</p><p>```not a fence</p></div></body></html>"),
    }
    labels = {"c1.xhtml": "Herons", "c2.xhtml": "Plovers"} if labels is None else labels
    items = "".join(f'<item id="i{n}" href="text/{name}" media-type="application/xhtml+xml"/>'
                    for n, name in enumerate(chapters))
    spine = "".join(f'<itemref idref="i{n}"/>' for n in range(len(chapters)))
    nav = "".join(f'<li><a href="text/{name}">{label}</a></li>' for name, label in labels.items())
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as book:
        book.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        book.writestr("META-INF/container.xml", _CONTAINER)
        book.writestr("OEBPS/content.opf", (
            '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
            f'<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>{title}</dc:title></metadata>'
            f'<manifest><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>'
            f"{items}</manifest><spine>{spine}</spine></package>"))
        book.writestr("OEBPS/nav.xhtml", '<html xmlns="http://www.w3.org/1999/xhtml"><body><nav><ol>'
                                         f"{nav}</ol></nav></body></html>")
        for name, xhtml in chapters.items():
            book.writestr(f"OEBPS/text/{name}", xhtml)


def write_zip_bomb(path: Path, entry: str, inflated_bytes: int, extra: dict[str, str] | None = None) -> None:
    """A zip whose ``entry`` inflates to ``inflated_bytes`` of spaces (about 1,000 to 1 compressed)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as bomb:
        for name, text in (extra or {}).items():
            bomb.writestr(name, text)
        with bomb.open(entry, "w", force_zip64=True) as out:
            block = b" " * 1_000_000
            for _ in range(inflated_bytes // len(block)):
                out.write(block)


def replace_part(path: Path, part: str, data: str | bytes) -> None:
    """The same zip with one part's content replaced (a real file made hostile)."""
    with zipfile.ZipFile(path) as source:
        parts = {info.filename: source.read(info.filename) for info in source.infolist()}
    parts[part] = data.encode("utf-8") if isinstance(data, str) else data
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for name, content in parts.items():
            out.writestr(name, content)


def write_text_image(path: Path, text: str, size: tuple[int, int] = (1400, 260)) -> None:
    """An image of a line of text in a large clear font (what a scan or a screenshot holds)."""
    from PIL import Image, ImageDraw, ImageFont

    picture = Image.new("L", size, 255)
    try:
        font = ImageFont.truetype("DejaVuSans.ttf", 64)
    except OSError:
        font = ImageFont.load_default(size=64)
    ImageDraw.Draw(picture).text((40, 90), text, fill=0, font=font)
    picture.save(path)
