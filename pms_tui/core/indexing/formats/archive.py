"""Formats packed as zip files (EPUB, PowerPoint, spreadsheets, OpenDocument): the sizes its
parts would inflate to, checked before any is read, and XML parsed safely.

A zip bomb (a few kilobytes that inflate to gigabytes) is refused from the archive's directory
alone; ``zipfile`` never inflates an entry past the size its directory declares, so the check
bounds what this process reads. (A library that opens the zip itself, python-calamine,
python-pptx, reads the same directory; the child's memory limit bounds whatever it does.)
XML is parsed by lxml with entities left unexpanded, no DTD loaded, nothing fetched and
libxml2's depth and size limits on (``huge_tree=False``): a billion-laughs file stays a few
kilobytes of text.
"""

from __future__ import annotations

import zipfile

from lxml import etree

# The XML of one document inflates to at most this much in all (the largest part of a real
# 600-page EPUB is under 1 MB; lxml's tree takes several times its text).
MAX_INFLATED_XML = 64_000_000


class Refused(Exception):
    """The file is not read; the message is the reason, one sentence."""


# An OLE compound file: what Office writes for an encrypted (password-protected) document, and
# the older binary formats (.xls, .ppt) renamed.
_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def open_zip(path: str, what: str) -> zipfile.ZipFile:
    with open(path, "rb") as handle:
        if handle.read(len(_OLE)) == _OLE:
            raise Refused(f"a password-protected {what} file (or one in the older binary format); it cannot be "
                          "read without its password")
    try:
        return zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise Refused(f"not a readable {what} file ({type(exc).__name__}: {str(exc)[:120]})") from None


XML_SUFFIXES = (".xml", ".rels", ".xhtml", ".html", ".htm", ".opf", ".ncx")


def check_inflated(archive: zipfile.ZipFile, xml_limit: int = MAX_INFLATED_XML, all_limit: int | None = None,
                   xml_suffixes: tuple[str, ...] = XML_SUFFIXES) -> None:
    """Refused when its XML parts (or all its parts, with ``all_limit``) would inflate past the limit."""
    infos = archive.infolist()
    xml = sum(i.file_size for i in infos if i.filename.lower().endswith(xml_suffixes))
    if xml > xml_limit:
        raise Refused(f"its text parts would inflate to {xml / 1e6:,.0f} MB (over {xml_limit / 1e6:,.0f} MB: "
                      "a zip bomb?); not read")
    whole = sum(i.file_size for i in infos)
    if all_limit is not None and whole > all_limit:
        raise Refused(f"its parts would inflate to {whole / 1e6:,.0f} MB (over {all_limit / 1e6:,.0f} MB: "
                      "a zip bomb?); not read")


def member(archive: zipfile.ZipFile, name: str, what: str) -> bytes:
    try:
        return archive.read(name)
    except KeyError:
        raise Refused(f"not a readable {what} file (it has no {name})") from None
    except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError, EOFError) as exc:
        raise Refused(f"not a readable {what} file ({type(exc).__name__}: {str(exc)[:120]})") from None


def parse_xml(data: bytes, what: str) -> etree._Element:
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False,
                             dtd_validation=False)
    try:
        return etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        raise Refused(f"not a readable {what} file (its XML: {str(exc)[:120]})") from None
