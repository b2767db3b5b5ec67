"""OpenDocument text (.odt, LibreOffice's own format): its headings as headings (their outline
level), paragraphs, list items and table rows, from the document's ``content.xml``; its title
from ``meta.xml``.

Why zipfile and lxml rather than odfpy: the text of an OpenDocument file is one XML part whose
elements say what each block is (``text:h`` with its level, ``text:p``, ``text:list-item``,
``table:table-row``), so reading it is a walk of one tree; odfpy (the one maintained library)
has no wheel on PyPI and builds its own object for every element before anything is read.
The zip's sizes and the XML parser's safety are ``archive``'s.
"""

from __future__ import annotations

from ..document_reader import clean, escape_line
from . import archive
from .archive import Refused

_TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
_TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
_OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
_DC = "{http://purl.org/dc/elements/1.1/}"
MAX_SPACES = 100  # a text:s element's count of spaces is taken up to this


def read(path: str, max_chars: int) -> dict:
    try:
        with archive.open_zip(path, "OpenDocument text") as document:
            archive.check_inflated(document)
            content = archive.parse_xml(archive.member(document, "content.xml", "OpenDocument text"),
                                        "OpenDocument text")
            title = ""
            if "meta.xml" in document.namelist():
                meta = archive.parse_xml(archive.member(document, "meta.xml", "OpenDocument text"),
                                         "OpenDocument text")
                title = " ".join((meta.findtext(f".//{_DC}title") or "").split())[:200]
    except Refused as exc:
        return {"skip": str(exc)}
    body = content.find(f"{_OFFICE}body/{_OFFICE}text")
    if body is None:
        return {"skip": "not an OpenDocument text file (it holds no text body; a spreadsheet or a drawing?)"}
    blocks: list[str] = []
    _blocks(body, blocks, 0)
    text = clean("\n\n".join(blocks) + "\n") if blocks else ""
    return {"markdown": text[:max_chars], "title": title, "truncated": max(len(text) - max_chars, 0)}


def _blocks(parent, out: list[str], depth: int) -> None:
    for el in parent:
        tag = el.tag if isinstance(el.tag, str) else ""
        if tag == f"{_TEXT}h":
            text = _words(el)
            if text:
                try:
                    level = min(max(int(el.get(f"{_TEXT}outline-level", "1")), 1), 6)
                except ValueError:
                    level = 1
                out.append("#" * level + " " + text)
        elif tag == f"{_TEXT}p":
            text = _words(el)
            if text:
                out.append("- " + escape_line(text) if depth else escape_line(text))
        elif tag == f"{_TEXT}list":
            for item in el:
                _blocks(item, out, depth + 1)
        elif tag == f"{_TABLE}table":
            rows = []
            for row in el.iter(f"{_TABLE}table-row"):
                cells = [_words(cell) for cell in row if cell.tag == f"{_TABLE}table-cell"]
                if any(cells):
                    rows.append(escape_line(" | ".join(cells)))
            if rows:
                out.append("\n".join(rows))
        elif tag in (f"{_TEXT}section", f"{_TEXT}list-item", f"{_TEXT}list-header", f"{_TEXT}index-body",
                     f"{_TEXT}table-of-content", f"{_TEXT}soft-page-break"):
            _blocks(el, out, depth)


def _words(el) -> str:
    return " ".join("".join(_text(el)).split())


def _text(el) -> list[str]:
    """The text of a paragraph: spans and links opened, ``text:s`` as its spaces, tabs and line
    breaks as a space; a note's citation mark left out (its text is kept)."""
    out = [el.text or ""]
    for child in el:
        tag = child.tag if isinstance(child.tag, str) else ""
        if tag == f"{_TEXT}s":
            try:
                count = int(child.get(f"{_TEXT}c", "1"))
            except ValueError:
                count = 1
            out.append(" " * min(max(count, 1), MAX_SPACES))
        elif tag in (f"{_TEXT}tab", f"{_TEXT}line-break"):
            out.append(" ")
        elif tag == f"{_TEXT}note-citation" or not tag:
            pass
        else:
            out += _text(child)
        out.append(child.tail or "")
    return out
