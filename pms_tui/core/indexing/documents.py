"""Documents: PDF, Word and the other files of ``document_reader.FORMATS`` in a collection's
folder, indexed read-only by their text.

A document's text is read by a child process (``document_reader``) with a memory and CPU
limit of its own and a wall-clock limit enforced here, so a scanned, encrypted, damaged or
hostile file is skipped with one sentence and never crashes or hangs a sync. The text becomes
Markdown the chunker already understands: a PDF's pages are its headings (``# page 12``, so a
hit's breadcrumb names its page; the text under them escaped so that nothing in a page can
open a code fence or a heading of its own), a Word file is Markdown from mammoth (its heading
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
import json
import os
import signal
import sys
import threading
from dataclasses import dataclass
from pathlib import Path, PurePath

from ..errors import SkipFile
from ..markdown import scan
from .chunk import ParsedNote, chunk_markdown, parse_note
from .document_reader import DOCUMENT_SUFFIXES, FORMATS, escape_line, format_of
from .notes import is_document_name

# The limits of one document's reading (the child process's): CPU seconds and address space;
# the wall clock allows twice the CPU time (a file on a slow disk) plus the start.
DOCUMENT_SECONDS = 60
DOCUMENT_MEMORY_BYTES = 1_500_000_000
# A larger file is not read at all (the reading limits would stop it anyway, later).
MAX_DOCUMENT_BYTES = 200_000_000
# How a skip for a missing reader begins: such a file is tried again once the reader is installed.
NO_READER = "no reader for"
PAGE_HEADING = "page"


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
    import subprocess  # here: a search that opens no document does not import it
    seconds = DOCUMENT_SECONDS if seconds is None else seconds
    memory_bytes = DOCUMENT_MEMORY_BYTES if memory_bytes is None else memory_bytes
    try:
        size = os.stat(path).st_size
    except OSError as exc:
        raise SkipFile(f"unreadable ({exc.strerror or exc})") from None
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
    args = [sys.executable, "-m", "pms_tui.core.indexing.document_reader", str(path), str(max_chars),
            str(seconds), str(memory_bytes), ocr_languages]
    wall = 2 * seconds + 10
    try:
        child = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, start_new_session=True)
    except OSError as exc:
        raise SkipFile(f"the document reader could not start ({exc.strerror or exc})") from None
    waited = 0.0
    while True:
        try:
            out, _ = child.communicate(timeout=0.5)
            break
        except subprocess.TimeoutExpired:
            waited += 0.5
            if waited >= wall or (cancel is not None and cancel.is_set()):
                _kill_group(child)
                child.communicate()
                if waited >= wall:
                    raise SkipFile(f"reading it took longer than {wall} s (the limit per document); "
                                   "it was stopped") from None
                raise SkipFile("the sync was cancelled while it was read") from None
    code = child.returncode
    if code != 0 or not out:
        raise SkipFile(_stopped(code, seconds, memory_bytes))
    try:
        result = json.loads(out.decode("utf-8", "replace"))
    except ValueError:
        raise SkipFile("the document reader gave no answer it could use") from None
    if "skip" in result:
        if result.get("limit") == "memory":
            raise SkipFile(_memory_reason(memory_bytes))
        raise SkipFile(str(result["skip"]))
    if "pages" in result:
        pages = [str(p) for p in result["pages"]]
        if not any(p.strip() for p in pages):
            if not fmt.ocr:  # a deck of slides without words
                raise SkipFile(f"no text in it ({len(pages)} page{'s' if len(pages) != 1 else ''} without words)")
            raise SkipFile(_no_text_reason(len(pages), result.get("ocr")))
        return Extracted(pages_markdown(pages), str(result.get("title") or ""), len(pages),
                         int(result.get("truncated") or 0), _ocr_note(result.get("ocr")))
    text = plain_markdown(str(result["text"])) if "text" in result else str(result.get("markdown") or "")
    if not text.strip():
        raise SkipFile(_no_text_reason(0, result.get("ocr")) if result.get("ocr") else "no text in it")
    return Extracted(text, str(result.get("title") or ""), 0, int(result.get("truncated") or 0),
                     _ocr_note(result.get("ocr")))


def _kill_group(child) -> None:
    """The reader and what it started (Tesseract): it leads a session of its own."""
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (AttributeError, OSError):  # Windows, or already gone
        child.kill()


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


def _memory_reason(memory_bytes: int) -> str:
    return (f"needs more than {memory_bytes / 1e6:,.0f} MB of memory to read (the limit per document); "
            "a damaged or hostile file?")


def _stopped(code: int | None, seconds: int, memory_bytes: int) -> str:
    if code is not None and code < 0:
        sig = -code
        if sig == getattr(signal, "SIGXCPU", -1):
            return f"reading it took more than {seconds} s of CPU time (the limit per document); it was stopped"
        if sig == signal.SIGKILL:  # the CPU limit's hard stop, or the system out of memory
            return (f"the document reader was killed (SIGKILL) while reading it: over {seconds} s of CPU time "
                    "or out of memory; a damaged or hostile file?")
        if sig in (signal.SIGSEGV, getattr(signal, "SIGBUS", -1), signal.SIGABRT):
            return (f"the document reader crashed on it ({signal.Signals(sig).name}, often out of memory: "
                    f"the limit is {memory_bytes / 1e6:,.0f} MB); a damaged or hostile file?")
        return f"the document reader was stopped ({signal.Signals(sig).name})"
    return f"the document reader failed (exit status {code})"


def page_heading(number: int) -> str:
    return f"{PAGE_HEADING} {number}"


def pages_markdown(pages: list[str]) -> str:
    """One ``# page N`` section per page that has text (a page of images only has none)."""
    out: list[str] = []
    for number, text in enumerate(pages, 1):
        lines = [escape_line(line) for line in text.split("\n")]
        while lines and not lines[-1].strip():
            lines.pop()
        while lines and not lines[0].strip():
            lines.pop(0)
        if lines:
            out.append(f"# {page_heading(number)}\n\n" + "\n".join(lines) + "\n")
    return "\n".join(out)


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


def page_anchor(heading: str) -> str | None:
    """``page=N``, the anchor of Obsidian's link to a PDF's page (``[[paper.pdf#page=3]]``),
    for a page heading; None for any other heading."""
    number = heading[len(PAGE_HEADING) + 1:]
    if heading.startswith(PAGE_HEADING + " ") and number.isdigit():
        return f"{PAGE_HEADING}={number}"
    return None


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


def page_lines(text: str, page: int) -> tuple[int, int] | None:
    """(first, last) line of a page in a PDF's indexed text; None when the page has no text."""
    heading = f"# {page_heading(page)}"
    lines = text.split("\n")
    for n, content in enumerate(lines, 1):
        if content == heading:
            last = n
            while last < len(lines) and not lines[last].startswith(f"# {PAGE_HEADING} "):
                last += 1
            while last > n and not lines[last - 1].strip():
                last -= 1
            return n, last
    return None


def page_of_line(text: str, line: int) -> int | None:
    """The page a line of a PDF's indexed text is on (None before the first page heading)."""
    page = None
    for n, content in enumerate(text.split("\n")[:line], 1):
        if content.startswith(f"# {PAGE_HEADING} ") and content[len(PAGE_HEADING) + 3:].isdigit():
            page = int(content[len(PAGE_HEADING) + 3:])
    return page


def opener_command(path: str) -> list[str] | None:
    """The command that opens a file with the system's own application (a PDF viewer, a word
    processor): ``open`` on macOS, ``xdg-open`` elsewhere; None where neither is found."""
    import shutil

    name = "open" if sys.platform == "darwin" else "xdg-open"
    found = shutil.which(name)
    return [found, path] if found else None


def kind_of(name: str) -> str:
    fmt = format_of(name)
    return fmt.kind if fmt is not None else "document"


@dataclass
class DocumentCounts:
    """A collection's PDF and Word files: how many the index holds by kind, and those skipped
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
    skipped = sorted((rel, f.reason) for rel, f in skipped_rows.of_collection(conn, collection_id).items()
                     if is_document_name(rel))
    return DocumentCounts(indexed, skipped)
