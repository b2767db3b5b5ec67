"""EPUB books: each chapter of the spine (the reading order) is a heading, named as the book's
table of contents names it (the EPUB 3 navigation document, else the EPUB 2 NCX), else by the
chapter's own first heading; its text is Markdown under it (``html_blocks``).

Why zipfile and lxml rather than a library: an EPUB is a zip of XHTML files listed in an OPF
package file, and reading text needs only those two steps; EbookLib, the maintained EPUB
library for Python, is AGPL-3.0 (pms-tui is MIT) and loads every item of the book, images
included, into memory. The zip's sizes and the XML parser's safety are ``archive``'s.
"""

from __future__ import annotations

import posixpath
import re
from urllib.parse import unquote

from lxml import html as lxml_html

from ..document_reader import clean
from . import archive, html_blocks
from .archive import Refused

_CONTAINER = "{urn:oasis:names:tc:opendocument:xmlns:container}"
_OPF = "{http://www.idpf.org/2007/opf}"
_DC = "{http://purl.org/dc/elements/1.1/}"
_NCX = "{http://www.daisy.org/z3986/2005/ncx/}"
_XHTML_TYPES = ("application/xhtml+xml", "text/html")
# A chapter's document type declaration, its internal subset too: the HTML parser expands none
# of its entities (a billion-laughs chapter stays as written) but would show the subset as text.
_DOCTYPE = re.compile(rb"<!DOCTYPE[^\[>]*(\[.*?\]\s*)?>", re.IGNORECASE | re.DOTALL)


def read(path: str, max_chars: int) -> dict:
    try:
        with archive.open_zip(path, "EPUB") as book:
            archive.check_inflated(book)
            return _read(book, max_chars)
    except Refused as exc:
        return {"skip": str(exc)}


def _read(book, max_chars: int) -> dict:
    container = archive.parse_xml(archive.member(book, "META-INF/container.xml", "EPUB"), "EPUB")
    rootfile = container.find(f".//{_CONTAINER}rootfile")
    opf_path = rootfile.get("full-path") if rootfile is not None else None
    if not opf_path:
        raise Refused("not a readable EPUB file (its container names no package file)")
    opf = archive.parse_xml(archive.member(book, opf_path, "EPUB"), "EPUB")
    base = posixpath.dirname(opf_path)
    title = " ".join("".join(opf.findtext(f".//{_DC}title") or "").split())[:200]
    items: dict[str, tuple[str, str, str]] = {}
    for item in opf.iter(f"{_OPF}item"):
        href = item.get("href")
        if item.get("id") and href:
            items[item.get("id", "")] = (_join(base, href), item.get("media-type", ""), item.get("properties", ""))
    spine = opf.find(f"{_OPF}spine")
    if spine is None:
        raise Refused("not a readable EPUB file (its package file has no spine)")
    labels = _toc_labels(book, items, spine.get("toc"))
    out: list[str] = []
    size = 0
    for n, ref in enumerate(spine.iter(f"{_OPF}itemref"), 1):
        found = items.get(ref.get("idref", ""))
        if found is None or found[1] not in _XHTML_TYPES:
            continue
        try:
            data = book.read(found[0])
        except (KeyError, ValueError, OSError):
            continue  # a chapter the package lists but does not hold
        chapter = _chapter(data, labels.get(found[0]), n)
        if chapter:
            out.append(chapter)
            size += len(chapter)
            if size > max_chars:
                break
    text = clean("\n\n".join(out) + "\n") if out else ""
    return {"markdown": text[:max_chars], "title": title, "truncated": max(len(text) - max_chars, 0)}


def _join(base: str, href: str) -> str:
    return posixpath.normpath(posixpath.join(base, unquote(href.split("#", 1)[0])))


def _chapter(data: bytes, label: str | None, number: int) -> str:
    if not data.strip():
        return ""
    data = _DOCTYPE.sub(b"", data, count=1)
    try:  # the HTML parser: tolerant of the broken XHTML books hold, and it expands no DTD entity
        root = lxml_html.document_fromstring(data)
    except Exception:  # noqa: BLE001 - lxml raises several kinds on a chapter that is not HTML
        return ""
    body = root.find("body")
    blocks = html_blocks.markdown(body if body is not None else root, shift=1)
    if not blocks:
        return ""
    first = blocks[0].lstrip("#").strip() if blocks[0].startswith("#") else ""
    heading = label or first or f"chapter {number}"
    if first and first == heading:
        blocks = blocks[1:]
    return f"# {heading}\n\n" + "\n\n".join(blocks)


def _toc_labels(book, items: dict[str, tuple[str, str, str]], ncx_id: str | None) -> dict[str, str]:
    """{chapter file: its first name in the table of contents}."""
    labels: dict[str, str] = {}
    nav = next((v for v in items.values() if "nav" in v[2].split()), None)
    try:
        if nav is not None:
            root = lxml_html.document_fromstring(book.read(nav[0]))
            base = posixpath.dirname(nav[0])
            for link in root.iter("a"):
                href, label = link.get("href"), " ".join("".join(str(t) for t in link.itertext()).split())
                if href and label:
                    labels.setdefault(_join(base, href), label[:200])
        elif ncx_id in items:
            ncx_path = items[ncx_id or ""][0]
            ncx = archive.parse_xml(book.read(ncx_path), "EPUB")
            base = posixpath.dirname(ncx_path)
            for point in ncx.iter(f"{_NCX}navPoint"):
                content, found = point.find(f"{_NCX}content"), point.findtext(f"{_NCX}navLabel/{_NCX}text")
                if content is not None and content.get("src") and found and found.strip():
                    labels.setdefault(_join(base, content.get("src", "")), " ".join(found.split())[:200])
    except (KeyError, ValueError, OSError, Refused):
        pass  # no usable table of contents: chapters are named by their own headings
    except Exception:  # noqa: BLE001 - lxml's errors on a broken navigation document
        pass
    return labels
