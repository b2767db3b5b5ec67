"""Documents: PDF, Word and the other files of ``document_reader.FORMATS`` in a collection's
folder, indexed read-only by their text.

A document's text is read by a child process (``document_reader``, started by
``python_child``: isolated from the working folder, with a memory, CPU and wall-clock limit),
so a scanned, encrypted, damaged or hostile file is skipped with one sentence and never
crashes or hangs a sync. The text becomes Markdown the chunker already understands: a PDF's
pages are its headings (``pages``, the page format's one owner: ``# page 12``, so a hit's
breadcrumb names its page), a Word file is Markdown from mammoth (its heading
styles give the breadcrumb). That text lives in the index only: nothing is written beside the
user's files, and the reader and MCP ``get`` rebuild it from the indexed passages
(:func:`text_of_chunks`). The sync re-reads a document only when its bytes change (the same
stat-then-hash plan as notes).

Why pypdfium2 and mammoth rather than markitdown: PDFium (Chrome's PDF engine, BSD/Apache)
gives each page's text directly and fast (the 117-page German textbook of the test documents
in 0.2 s), reads Arabic and multi-column layouts, and tells a password from damage; its wheel
is 3 MB with no dependency. markitdown 0.1.9 needs magika (a 16 MB wheel), requests,
markdownify and BeautifulSoup before any format, and its ``[pdf]`` extra brings pdfminer.six
and pdfplumber (which itself depends on pypdfium2 and Pillow); its PDF converter returns one
text for the whole file, so page boundaries would have to be found again. pdfminer.six alone
gives pages (``extract_pages``) but is pure Python and many times slower on long files.
mammoth (BSD, pure Python) is what markitdown uses for Word files, without the rest; its HTML
is made Markdown here (its own Markdown writer drops tables).
"""

from __future__ import annotations

import importlib.util
import os
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path, PurePath

from ..errors import SkipFile
from ..markdown import scan
from . import page_furniture
from . import pages as page_format
from . import python_child
from .chunk import CHUNKER_VERSION, ParsedNote, chunk_markdown, parse_note
from .document_reader import DOCUMENT_SUFFIXES, FORMATS, READER_VERSIONS, escape_line, format_of
from .notes import is_document_name

# The limits of one document's reading (the child process's): CPU seconds and address space
# (``python_child.Limits``: the wall clock allows twice the CPU time plus the start).
DOCUMENT_SECONDS = 60
DOCUMENT_MEMORY_BYTES = 1_500_000_000
# A larger file is not read at all (the reading limits would stop it anyway, later).
MAX_DOCUMENT_BYTES = 200_000_000
# How a skip for a missing reader begins: such a file is tried again once the reader is installed.
NO_READER = "no reader for"
# The child process that reads a document (started by ``python_child``, isolated and bounded).
READER_MODULE = "pms_tui.core.indexing.document_reader"


def reader_installed(name: str) -> bool:
    """Whether what reads this kind of document (a library, or Tesseract for images) is installed."""
    import shutil

    fmt = format_of(PurePath(name).name)
    if fmt is None:
        return False
    if fmt.binary is not None and shutil.which(fmt.binary) is None:
        return False
    return fmt.module is None or importlib.util.find_spec(fmt.module) is not None


def ocr_now_installed(reason: str) -> bool:
    """Whether a skip for want of OCR (a scanned PDF read before Tesseract was there) can now be read."""
    from . import ocr

    return ocr.MISSING in reason and ocr.program() is not None


def readers() -> dict[str, str | None]:
    """{kind: the installed reader and its version, or None} (what ``doctor`` shows)."""
    from importlib.metadata import PackageNotFoundError, version

    from . import ocr

    out: dict[str, str | None] = {}
    for fmt in FORMATS:
        if fmt.binary is not None:
            out[fmt.kind] = ocr.engine()
            continue
        if fmt.module is None:
            out[fmt.kind] = "built in"
            continue
        package = fmt.install.split()[-1]
        try:
            out[fmt.kind] = f"{package} {version(package)}" if reader_installed("x" + fmt.suffixes[0]) else None
        except PackageNotFoundError:
            out[fmt.kind] = None
    return out


@dataclass(frozen=True)
class Extracted:
    markdown: str
    title: str  # the PDF's own title when it has one, else ""
    pages: int  # 0 for a Word file
    truncated: int  # pages (PDF) or characters (Word) left out past the text limit
    unread: str = ""  # a sentence on what was not read (scanned pages OCR had no time for), else ""


def extract(path: Path, max_chars: int, cancel: threading.Event | None = None,
            seconds: int | None = None, memory_bytes: int | None = None, ocr_languages: str = "") -> Extracted:
    """The text of one document as Markdown, read in a child process within the limits
    (``DOCUMENT_SECONDS`` and ``DOCUMENT_MEMORY_BYTES`` unless given; ``seconds=0``: no CPU
    limit, the wall clock's 10 s only); else SkipFile with the reason (which limit, or what is
    wrong with the file). Pages without text and images are read by OCR in ``ocr_languages``
    (Tesseract's codes, ``eng+deu``; "": English) where Tesseract is installed."""
    seconds = DOCUMENT_SECONDS if seconds is None else seconds
    memory_bytes = DOCUMENT_MEMORY_BYTES if memory_bytes is None else memory_bytes
    try:
        size = os.stat(path).st_size
    except OSError as exc:
        raise SkipFile(f"unreadable ({exc.strerror or exc})", passing=True) from None
    if size == 0:
        raise SkipFile("an empty file")
    if size > MAX_DOCUMENT_BYTES:
        raise SkipFile(f"larger than {MAX_DOCUMENT_BYTES / 1e6:g} MB ({size / 1e6:.0f} MB); documents "
                       "that large are not read")
    fmt = format_of(path.name)
    if fmt is None:
        raise SkipFile("not a kind of document pms-tui reads")
    if not reader_installed(path.name):
        raise SkipFile(f"{NO_READER} {path.suffix.lower()} files is installed ({fmt.install})")
    try:
        result = python_child.run_json(READER_MODULE, [str(path), str(max_chars), ocr_languages],
                                       python_child.Limits(seconds, memory_bytes), "the document reader", cancel)
    except python_child.ChildFailed as exc:
        raise SkipFile(str(exc), passing=exc.passing) from None
    if "skip" in result:
        raise SkipFile(str(result["skip"]), passing=bool(result.get("passing")))
    if "pages" in result:
        pages = [str(p) for p in result["pages"]]
        if not any(p.strip() for p in pages):
            if not fmt.ocr:  # a deck of slides without words
                raise SkipFile(f"no text in it ({len(pages)} page{'s' if len(pages) != 1 else ''} without words)")
            raise SkipFile(_no_text_reason(len(pages), result.get("ocr")))
        labels = [str(label) for label in result.get("labels") or []]
        pages = page_furniture.strip(pages, labels)
        return Extracted(page_format.markdown(pages, labels), str(result.get("title") or ""), len(pages),
                         int(result.get("truncated") or 0), _ocr_note(result.get("ocr")))
    text = plain_markdown(str(result["text"])) if "text" in result else str(result.get("markdown") or "")
    if not text.strip():
        raise SkipFile(_no_text_reason(0, result.get("ocr")) if result.get("ocr") else "no text in it")
    return Extracted(text, str(result.get("title") or ""), 0, int(result.get("truncated") or 0),
                     _ocr_note(result.get("ocr")))


def _no_text_reason(pages: int, ocr: object) -> str:
    from . import ocr as ocr_rules

    what = (f"no text layer ({pages} page{'s' if pages != 1 else ''} of images only, a scanned PDF?)"
            if pages else "no text in it")
    if not isinstance(ocr, dict):
        return f"{what}; {ocr_rules.MISSING}"
    if ocr.get("skip"):
        return f"{what}; {ocr['skip']}"
    if ocr.get("pages"):
        return f"{what}, and OCR ({ocr.get('languages', '?')}) found no words in it"
    if ocr.get("left"):
        return f"{what}; OCR had no time left for it (the time per document)"
    return f"no text in it (its {pages} page{'s hold' if pages != 1 else ' holds'} neither text nor pictures)"


def _ocr_note(ocr: object) -> str:
    """A sentence on the pages OCR did not reach (its time ran out), else ""."""
    if isinstance(ocr, dict) and ocr.get("left"):
        left = int(ocr["left"])
        return (f"{left:,} scanned page{'s' if left != 1 else ''} not read by OCR (its time per document "
                f"ran out after {int(ocr.get('pages') or 0):,})")
    return ""


def plain_markdown(text: str) -> str:
    """Plain text (a .txt file, an image's OCR) as Markdown that shows it as written."""
    lines = [escape_line(line) for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    return "\n".join(lines).strip("\n") + "\n" if any(line.strip() for line in lines) else ""


def parse_document(extracted: Extracted, filename: str, target_chars: int, overlap_lines: int) -> ParsedNote:
    """Chunks of a document's Markdown. Its title: a PDF's own title, a Word file's first
    heading, else the file name without its extension. No frontmatter is read from it."""
    text = extracted.markdown
    if text.startswith("---"):  # a Word file opening with a rule: text, not frontmatter
        text = "\n" + text
    if not extracted.pages:
        note = parse_note(text, filename, target_chars, overlap_lines)
        return ParsedNote(extracted.title or note.title, {}, note.chunks, note.body, note.body_offset,
                          note.structure)
    title = extracted.title or PurePath(filename).stem  # (its first H1 is a page, not a title)
    return ParsedNote(title, {}, chunk_markdown(text, title, target_chars, overlap_lines), text, 0, scan(text))


def text_of_chunks(rows: list[tuple[int, str]]) -> str:
    """A document's text rebuilt from its indexed passages ((start line, text), in order):
    each line once, at its line number (passages overlap by a few lines)."""
    lines: dict[int, str] = {}
    for start, body in rows:
        for i, text in enumerate(body.split("\n")):
            lines.setdefault(start + i, text)
    if not lines:
        return ""
    last = max(lines)
    return "\n".join(lines.get(n, "") for n in range(1, last + 1)) + "\n"


def opener_command(path: str) -> list[str] | None:
    """The command that opens a file with the system's own application (a PDF viewer, a word
    processor): ``open`` on macOS, ``xdg-open`` elsewhere; None where neither is found."""
    import shutil

    name = "open" if sys.platform == "darwin" else "xdg-open"
    found = shutil.which(name)
    return [found, path] if found else None


def made_by(name: str) -> tuple[int, int]:
    """(chunker, reader) versions a note or document is made by today (a note's reader: 0, it
    is read as written); an index row with smaller ones is re-chunked by the next sync."""
    reader = READER_VERSIONS.get(PurePath(name).suffix.lower().lstrip("."), 0) if is_document_name(name) else 0
    return CHUNKER_VERSION, reader


def kind_of(name: str) -> str:
    fmt = format_of(name)
    return fmt.kind if fmt is not None else "document"


@dataclass
class DocumentCounts:
    """A collection's documents: how many the index holds by kind, and those skipped
    with their reasons (what ``status`` and ``doctor`` tell)."""

    indexed: dict[str, int]
    skipped: list[tuple[str, str]]

    def describe(self) -> str:
        read = sum(self.indexed.values())
        kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(self.indexed.items()))
        return (f"{read} document{'s' if read != 1 else ''} read" + (f" ({kinds})" if kinds else "")
                + f", {len(self.skipped)} skipped")

    def to_json(self) -> dict:
        return {"indexed": dict(self.indexed), "skipped": [{"path": p, "reason": r} for p, r in self.skipped]}


def counts(conn, collection_id: int) -> DocumentCounts:
    """The collection's documents in the index and those skipped (from the skipped files' table)."""
    from ..store import skipped as skipped_rows

    indexed: dict[str, int] = {}
    likes = " OR ".join("lower(path) LIKE ?" for _ in DOCUMENT_SUFFIXES)
    for (path,) in conn.execute(f"SELECT path FROM documents WHERE collection_id = ? AND ({likes})",
                                (collection_id, *(f"%{s}" for s in DOCUMENT_SUFFIXES))):
        indexed[kind_of(path)] = indexed.get(kind_of(path), 0) + 1
    now = time.time()
    skipped = sorted((rel, f.told(now)) for rel, f in skipped_rows.of_collection(conn, collection_id).items()
                     if is_document_name(rel))
    return DocumentCounts(indexed, skipped)
