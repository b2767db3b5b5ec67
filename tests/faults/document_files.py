"""PDF and Word files made by hand for the hostile-document tests and the benchmark: a PDF of
any number of text pages (written page by page, so a 1,000-page file costs no memory to make),
a PDF with deeply nested objects, and a .docx whose document.xml inflates to gigabytes."""

from __future__ import annotations

import zipfile
from collections.abc import Iterable
from pathlib import Path


def _text_stream(lines: list[str]) -> bytes:
    ops = ["BT", "/F1 11 Tf", "14 TL", "50 780 Td"]
    for line in lines:
        safe = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        ops.append(f"({safe}) Tj T*")
    ops.append("ET")
    return "\n".join(ops).encode("latin-1", "replace")


def write_text_pdf(path: Path, pages: Iterable[list[str]], extra_object: bytes | None = None) -> int:
    """A PDF whose pages hold these lines (Helvetica, Latin-1); returns the page count.
    ``extra_object`` is put in each page's dictionary as ``/Extra`` (the nested-objects case)."""
    offsets: list[int] = []
    page_ids: list[int] = []
    with open(path, "wb") as out:
        def obj(number: int, body: bytes) -> None:
            while len(offsets) < number:
                offsets.append(0)
            offsets[number - 1] = out.tell()
            out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")

        out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
        obj(3, b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
        number = 4
        for lines in pages:
            stream = _text_stream(lines)
            obj(number, b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
            extra = b" /Extra " + extra_object if extra_object else b""
            obj(number + 1, b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents %d 0 R "
                            b"/Resources << /Font << /F1 3 0 R >> >>%s >>" % (number, extra))
            page_ids.append(number + 1)
            number += 2
        kids = b" ".join(b"%d 0 R" % p for p in page_ids)
        obj(2, b"<< /Type /Pages /Kids [" + kids + b"] /Count %d >>" % len(page_ids))
        obj(1, b"<< /Type /Catalog /Pages 2 0 R >>")
        xref = out.tell()
        out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(offsets) + 1))
        for offset in offsets:
            out.write(b"%010d 00000 n \n" % offset)
        out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(offsets) + 1, xref))
    return len(page_ids)


def page_lines(number: int, lines: int = 40) -> list[str]:
    """A page of varied words, naming its page: ``folio 12 line 3 ...``."""
    words = ("granite", "harbour", "lantern", "meadow", "orchard", "quartz", "saddle", "timber", "violet")
    return [f"folio {number} line {i} " + " ".join(words[(number * 7 + i + j) % len(words)] for j in range(9))
            for i in range(lines)]


def write_nested_pdf(path: Path, depth: int = 100_000) -> None:
    """A one-page PDF whose page holds an array nested ``depth`` deep (parsers that recurse
    per level run out of stack)."""
    write_text_pdf(path, [["a page with nested objects"]], b"[" * depth + b"]" * depth)


def write_docx_bomb(path: Path, inflated_bytes: int) -> None:
    """A .docx whose word/document.xml inflates from about a thousandth of ``inflated_bytes``
    to ``inflated_bytes`` (one paragraph of one run repeated)."""
    head = (b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            b'<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>')
    tail = b"</w:body></w:document>"
    block = b"<w:p><w:r><w:t>bomb</w:t></w:r></w:p>" * 30_000
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        archive.writestr("[Content_Types].xml", (
            '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
            'content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
            'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName='
            '"/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.'
            'document.main+xml"/></Types>'))
        archive.writestr("_rels/.rels", (
            '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/'
            'package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/'
            'officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>'))
        with archive.open("word/document.xml", "w", force_zip64=True) as member:
            member.write(head)
            written = 0
            while written < inflated_bytes:
                member.write(block)
                written += len(block)
            member.write(tail)


