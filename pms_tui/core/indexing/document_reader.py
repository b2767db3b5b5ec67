"""The child process that reads one document (``python -I -m`` this module), and the table of
the formats it reads (:data:`FORMATS`).

Run by ``documents.extract`` through ``python_child`` only (which says why it is isolated and
bounded): it applies its limits before it opens the file, reads it with the reader of its
format (``read``, the one dispatch point) and prints one JSON object on stdout:
``{"pages": [...], "title": ..., "labels": [...]}`` for a PDF (one text per page, and the
pages' printed labels where the PDF has them; a slide deck's slides), ``{"markdown": ...}`` for
a Word file (and the other formats made Markdown), ``{"text": ...}`` for plain text (an image's
OCR, a .txt file), or ``{"skip": reason}``; text past ``max_chars`` is left out
(``"truncated"`` counts the pages or characters left out).

It imports nothing from the engine but this module, ``python_child`` and the one reader of the
file's kind (named by a string in :data:`FORMATS`, imported only here), so it starts in a
fraction of a second, and a PDF never loads the spreadsheet library.
"""

from __future__ import annotations

import importlib
import json
import re
import sys
from dataclasses import dataclass

from . import python_child


@dataclass(frozen=True)
class Format:
    """One kind of document: its extensions, what reads it (``"module:function"``, called as
    ``function(path, max_chars) -> dict`` in this process) and what must be installed for it."""

    kind: str  # what status and doctor call it
    suffixes: tuple[str, ...]
    reader: str
    module: str | None  # the Python module the reader imports (None: the standard library)
    install: str  # what installs it, for the skip reason when it is missing
    binary: str | None = None  # a program the reader runs instead of a module (Tesseract)
    ocr: bool = False  # pages left without text are read by OCR where Tesseract is installed


_HERE = "pms_tui.core.indexing.document_reader"  # (not __name__: that is __main__ in the child)
_FORMATS = "pms_tui.core.indexing.formats"
# One row per format: adding a format is a row here and a module in formats/ (README's table
# "Documents: what is read and how" says the same for users).
FORMATS: tuple[Format, ...] = (
    Format("PDF", (".pdf",), f"{_HERE}:read_pdf", "pypdfium2", "pip install pypdfium2", ocr=True),
    Format("Word", (".docx",), f"{_HERE}:read_docx", "mammoth", "pip install mammoth"),
    Format("EPUB", (".epub",), f"{_FORMATS}.epub:read", "lxml", "pip install lxml"),
    Format("PowerPoint", (".pptx",), f"{_FORMATS}.slides:read", "pptx", "pip install python-pptx"),
    Format("spreadsheet", (".xlsx", ".ods"), f"{_FORMATS}.sheets:read", "python_calamine",
           "pip install python-calamine"),
    Format("OpenDocument text", (".odt",), f"{_FORMATS}.odt:read", "lxml", "pip install lxml"),
    Format("text", (".txt",), f"{_FORMATS}.text:read", None, ""),
    # the clipper's own conversion (trafilatura), so a saved page reads as a clipped one
    Format("HTML", (".html", ".htm"), "pms_tui.core.clip.html_file:read", "trafilatura",
           "pip install trafilatura"),
    Format("image", (".png", ".jpg", ".jpeg"), "pms_tui.core.indexing.ocr:read_image", None,
           "apt-get install tesseract-ocr", binary="tesseract", ocr=True),
)
DOCUMENT_SUFFIXES: tuple[str, ...] = tuple(s for f in FORMATS for s in f.suffixes)


def format_of(name: str) -> Format | None:
    """The format of a file by its extension (case-insensitive); None for any other file."""
    lower = name.lower()
    for fmt in FORMATS:
        if lower.endswith(fmt.suffixes):
            return fmt
    return None


# The version of each kind's reading (its reader below, and the Markdown made of its answer:
# documents.py, pages.py). Raise a kind's with any change to what its files' text becomes: each
# index row records the version that read it, and a sync re-reads exactly the files of that kind
# read by an older one. docx 2: a hyperlink is a Markdown link within its sentence; pdf 2: running
# heads and footers dropped, a page named by its printed label; pdf 3: pages without text read by
# OCR where Tesseract is installed; pdf 4: its contents and index pages flagged (navigation_pages);
# pdf 5, docx 3, the others 2: only what Markdown would read as markup is escaped (escape_line).
READER_VERSIONS = {"pdf": 5, "docx": 3} | {s.lstrip("."): 2 for f in FORMATS for s in f.suffixes
                                           if s not in (".pdf", ".docx")}

# Characters that are not text (PDF text often holds control codes for ligatures and breaks).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def clean(text: str) -> str:
    # PDFium marks a word hyphenated at a line's end with \x02: the word is whole again
    text = text.replace("\x02\r\n", "").replace("\x02\n", "").replace("\x02", "")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROL.sub(" ", text)


def read_pdf(path: str, max_chars: int) -> dict:
    try:
        import pypdfium2 as pdfium
    except ImportError:
        return {"skip": "no reader for .pdf files is installed (pip install pypdfium2)", "retry": True}
    try:
        doc = pdfium.PdfDocument(path)
    except pdfium.PdfiumError as exc:
        message = str(exc)
        if "password" in message.lower():
            return {"skip": "password-protected PDF; it cannot be read without its password"}
        detail = message.split("(PDFium: ", 1)[-1].rstrip(").") if "PDFium: " in message else message
        return {"skip": f"not a readable PDF ({detail.lower()})"}
    title = ""
    try:
        meta_title = doc.get_metadata_dict().get("Title", "")
        title = " ".join(str(meta_title).split())[:200]
    except Exception:  # noqa: BLE001 - unreadable metadata: the file name serves
        pass
    pages: list[str] = []
    labels: list[str] = []
    size, left_out = 0, 0
    count = len(doc)
    for i in range(count):
        if size >= max_chars:
            left_out = count - i
            break
        page = doc[i]
        try:
            textpage = page.get_textpage()
            text = textpage.get_text_bounded()
            textpage.close()
        finally:
            page.close()
        text = clean(text)[: max(max_chars - size, 0)]
        size += len(text)
        pages.append(text)
        try:
            labels.append(doc.get_page_label(i)[:40])
        except Exception:  # noqa: BLE001 - a damaged label: the page's number serves
            labels.append("")
    doc.close()
    if all(label in ("", str(n)) for n, label in enumerate(labels, 1)):
        labels = []
    return {"pages": pages, "title": title, "truncated": left_out, "labels": labels}


# A line that Markdown would read as a heading, a fence, an HTML block, a quote or a setext
# underline or rule (a list marker or a table pipe only changes how a line is drawn). Only
# those are escaped: ``~/.R``, ``<- value`` and ``= TRUE`` are shown as the document prints
# them. A ``#`` is always escaped: ``#include`` at a line's start would be read as a tag.
_SPECIAL_START = re.compile(r"^( {0,3})([#>]|`{3,}|~{3,}|<[A-Za-z/!?]|=+\s*$|-{2,}\s*$|\*{3,}\s*$|_{3,}\s*$)")


def escape_line(line: str) -> str:
    """A line of plain text that Markdown shows as written: nothing in a document's text can
    open a fence that swallows the pages after it, or make a heading of its own."""
    return _SPECIAL_START.sub(lambda m: m.group(1) + "\\" + m.group(2), line.rstrip())


# Elements that end a run of words (a piece of text either side is another word); any other
# element (a link, bold, a span) is inline: its text joins the words around it as written.
_BREAKS = frozenset({"br", "p", "div", "li", "ul", "ol", "table", "tr", "td", "th",
                     "h1", "h2", "h3", "h4", "h5", "h6"})
# The link targets kept as Markdown links; another (a bookmark inside the file such as a table
# of contents' ``#_Toc12``, a ``file:`` or script URL) leaves its words only.
_LINK_SCHEMES = ("http://", "https://", "mailto:")


def _inline(element, lists: bool = True) -> str:
    """The words of an element as one line: inline text joined as written (no space around a
    link or a bold word), a hyperlink as ``[its text](its target)``; ``lists=False`` leaves
    out nested lists (a list item's own words)."""
    parts: list[str] = []

    def walk(node) -> None:
        if node.text:
            parts.append(node.text)
        for child in node:
            tag = child.tag.lower() if isinstance(child.tag, str) else ""
            if not tag:  # a comment or processing instruction: no words
                pass
            elif tag in ("ul", "ol") and not lists:
                pass
            elif tag == "a":
                parts.append(_link(child))
            elif tag in _BREAKS:
                parts.append(" ")
                walk(child)
                parts.append(" ")
            else:
                walk(child)
            if child.tail:
                parts.append(child.tail)

    walk(element)
    return " ".join("".join(parts).split())


def _link(anchor) -> str:
    text = _inline(anchor)
    href = " ".join(str(anchor.get("href") or "").split())
    if not text or not href.lower().startswith(_LINK_SCHEMES):
        return text
    label = re.sub(r"([\\\[\]])", r"\\\1", text)
    target = href.replace(" ", "%20").replace("(", "%28").replace(")", "%29").replace("<", "%3C").replace(">", "%3E")
    return f"[{label}]({target})"


def html_markdown(html: str) -> str:
    """Markdown of mammoth's HTML: headings as headings (the breadcrumb), paragraphs, list
    items, and table rows as cells joined by `` | `` (mammoth's own Markdown drops tables);
    a hyperlink as a Markdown link within its sentence."""
    from lxml import html as lxml_html

    if not html.strip():
        return ""
    root = lxml_html.fragment_fromstring(html, create_parent="div")
    out: list[str] = []
    for block in root.iterchildren():
        tag = str(block.tag).lower()
        if len(tag) == 2 and tag[0] == "h" and tag[1] in "123456":
            text = _inline(block)
            if text:
                out.append("#" * int(tag[1]) + " " + text)
        elif tag in ("ul", "ol"):
            for item in block.iter("li"):
                text = _inline(item, lists=False)
                if text:
                    out.append("- " + text)
        elif tag == "table":
            for row in block.iter("tr"):
                cells = [_inline(cell) for cell in row if str(cell.tag).lower() in ("td", "th")]
                if any(cells):
                    out.append(escape_line(" | ".join(cells)))
        else:
            text = _inline(block)
            if text:
                out.append(escape_line(text))
    return "\n\n".join(out) + "\n" if out else ""


# A .docx is a zip: its XML parts inflate to at most this much (zipfile never reads past an
# entry's declared size, so the directory's sizes bound what is read). The largest of the
# test documents' parts is under 1 MB, and mammoth needs over 1.5 GB for 30 MB of XML).
MAX_INFLATED_XML = 16_000_000


def read_docx(path: str, max_chars: int) -> dict:
    try:
        import mammoth
    except ImportError:
        return {"skip": "no reader for .docx files is installed (pip install mammoth)", "retry": True}
    import zipfile

    def no_image(image: object) -> dict:  # pictures are not words: none is inlined as data
        return {"src": ""}

    try:
        with zipfile.ZipFile(path) as archive:
            inflated = sum(i.file_size for i in archive.infolist() if i.filename.lower().endswith((".xml", ".rels")))
    except (zipfile.BadZipFile, OSError) as exc:
        return {"skip": f"not a readable Word file ({type(exc).__name__}: {str(exc)[:120]})"}
    if inflated > MAX_INFLATED_XML:
        return {"skip": f"its text parts would inflate to {inflated / 1e6:,.0f} MB (over "
                        f"{MAX_INFLATED_XML / 1e6:,.0f} MB: a zip bomb?); not read"}
    try:
        with open(path, "rb") as handle:
            result = mammoth.convert_to_html(handle, convert_image=mammoth.images.img_element(no_image))
    except (zipfile.BadZipFile, KeyError) as exc:
        return {"skip": f"not a readable Word file ({type(exc).__name__}: {str(exc)[:120]})"}
    text = clean(html_markdown(result.value))
    truncated = max(len(text) - max_chars, 0)
    return {"markdown": text[:max_chars], "truncated": truncated}


def main(argv: list[str]) -> int:
    rest = python_child.limited(argv)  # the limits first, before any reader is imported
    path, max_chars = rest[0], int(rest[1])
    languages = rest[2] if len(rest) > 2 else ""
    result = read(path, max_chars, languages, int(argv[1]))
    out = json.dumps(result, ensure_ascii=False).encode("utf-8", "replace")
    sys.stdout.buffer.write(out)
    sys.stdout.flush()
    return 0


def read(path: str, max_chars: int, languages: str = "", seconds: int = 60) -> dict:
    """The answer for one file: its format's reader, then OCR of the pages it left without text
    (a scanned page, an image) in ``languages`` within ``seconds`` of wall-clock time; a
    reader's failure is a reason (``{"skip": ...}``), not a crash."""
    fmt = format_of(path)
    if fmt is None:
        return {"skip": "not a kind of document pms-tui reads"}
    try:
        module, function = fmt.reader.split(":")
        result = getattr(importlib.import_module(module), function)(path, max_chars)
        if fmt.ocr and "pages" in result:
            from . import ocr

            result = ocr.complete(path, result, languages, seconds)
            if "ocr" in result:  # (Tesseract's text, like PDFium's, may hold control codes)
                if "text" in result:
                    result["text"] = clean(result["text"])[:max_chars]
                else:
                    result["pages"] = [clean(page) for page in result["pages"]]
    except MemoryError:
        result = {"skip": "memory", "limit": "memory"}
    except OSError as exc:  # the reader's library not mapped (the memory limit), the file not opened: may pass
        result = {"skip": f"could not be read ({type(exc).__name__}: {str(exc)[:160]})", "passing": True}
    except RecursionError:
        result = {"skip": "too deeply nested to read (a damaged or hostile file)"}
    except Exception as exc:  # noqa: BLE001 - any reader's failure is a reason, not a crash
        result = {"skip": f"could not be read ({type(exc).__name__}: {str(exc)[:160]})"}
    return result


if __name__ == "__main__":
    sys.exit(main(sys.argv))
