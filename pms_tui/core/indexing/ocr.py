"""OCR: the text of scanned pages and of images, by Tesseract, inside the document reader.

Run in the document reader's child process only (``document_reader.read``): a PDF's pages
that gave no text, and PNG and JPEG files, are read by the ``tesseract`` program, started
from here with the child's own limits, which a program it starts inherits (address space and
CPU seconds, ``resource.setrlimit``), one thread (``OMP_THREAD_LIMIT=1``: the sync runs beside
other work), and a wall clock shared by all the pages of one document (``seconds``, the
reader's CPU limit). Only a page that holds a picture is read (a blank page is left blank);
pages that its time does not reach stay without text, and the sync says how many. A page of a
PDF is drawn by PDFium (pypdfium2, already the PDF reader) at 300 dpi in grey, at most
:data:`MAX_PIXELS`, and handed to Tesseract as a PGM image on its standard input; nothing is
written to disk.

Why the ``tesseract`` program rather than pytesseract: pytesseract is a wrapper that runs
this same program through temporary files; calling it directly needs no Python dependency
and lets the reader set its input, environment and time limit itself. Where Tesseract is not
installed, nothing here runs and the reason of the skip says what would read the file
(:data:`MISSING`).

The languages are Tesseract's codes joined by ``+`` (``eng+deu``), from the ``ocr_languages``
setting or the languages of the collection's notes (``languages_for``); those not installed
are left out (English stands in when none is).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time

MISSING = "Tesseract would read it (apt-get install tesseract-ocr; on macOS brew install tesseract)"
DPI = 300
MAX_PIXELS = 40_000_000  # a page drawn larger than this is drawn smaller (an A4 page at 300 dpi: 8.7 M)
MIN_PAGE_SECONDS = 2  # no page is started with less time than this left
LANGUAGE_CODE = re.compile(r"^[a-z]{3}(_[a-z]+)?$", re.IGNORECASE)  # eng, deu, chi_sim, frk

# The note languages of store/language.py (ISO 639-1) as Tesseract's traineddata names.
TESSERACT_NAMES = {
    "ar": "ara", "da": "dan", "de": "deu", "el": "ell", "en": "eng", "es": "spa", "fi": "fin", "fr": "fra",
    "hu": "hun", "id": "ind", "it": "ita", "nl": "nld", "no": "nor", "pt": "por", "ro": "ron", "ru": "rus",
    "sv": "swe", "tr": "tur", "ca": "cat", "cs": "ces", "pl": "pol", "uk": "ukr", "ga": "gle", "hi": "hin",
    "lt": "lit", "eu": "eus", "hy": "hye", "ne": "nep", "sr": "srp", "ta": "tam", "yi": "yid",
}


def program() -> str | None:
    return shutil.which("tesseract")


def engine() -> str | None:
    """``tesseract 5.3.0 (languages: eng, osd)``, or None where it is not installed."""
    found = program()
    if found is None:
        return None
    try:
        out = subprocess.run([found, "--version"], capture_output=True, text=True, timeout=10,
                             stdin=subprocess.DEVNULL)
        first = (out.stdout or out.stderr).split("\n", 1)[0].strip()
    except (OSError, subprocess.SubprocessError):
        first = "tesseract"
    return f"{first} (languages: {', '.join(installed_languages()) or 'none'})"


def installed_languages() -> list[str]:
    found = program()
    if found is None:
        return []
    try:
        out = subprocess.run([found, "--list-langs"], capture_output=True, text=True, timeout=10,
                             stdin=subprocess.DEVNULL).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return sorted(line.strip() for line in out.splitlines()[1:] if LANGUAGE_CODE.match(line.strip()))


def languages_for(setting: str, note_languages: list[str]) -> str:
    """What OCR reads in: the setting when it is set, else English and the languages of the
    collection's notes (ISO codes, as store/language.py gives them)."""
    if setting.strip():
        return setting.strip()
    names = ["eng"] + [TESSERACT_NAMES[code] for code in note_languages if code in TESSERACT_NAMES]
    return "+".join(dict.fromkeys(names))


def choose(languages: str) -> str:
    """The languages asked for that are installed, in their order; English (or the first
    installed) when none is."""
    installed = installed_languages()
    wanted = [code for code in (languages or "eng").split("+") if code in installed]
    if wanted:
        return "+".join(dict.fromkeys(wanted))
    if "eng" in installed:
        return "eng"
    others = [code for code in installed if code != "osd"]
    return others[0] if others else "eng"


# The first bytes of the pictures Tesseract (Leptonica) reads: a file named .png or .jpg that
# starts otherwise is not handed to it, whose complaint would be a page of library errors.
_PICTURE_STARTS = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a", b"BM", b"II*\x00", b"MM\x00*")


def read_image(path: str, max_chars: int) -> dict:
    """An image file: one page with no text yet (:func:`complete` reads it)."""
    with open(path, "rb") as file:
        start = file.read(16)
    if not start.startswith(_PICTURE_STARTS) and not (start[:4] == b"RIFF" and start[8:12] == b"WEBP"):
        return {"skip": "not a readable image: its bytes are not a PNG or JPEG picture"}
    if program() is None:
        return {"skip": f"no reader for images is installed: {MISSING}"}
    return {"pages": [""], "title": "", "image": True}


def complete(path: str, result: dict, languages: str, seconds: int) -> dict:
    """``result`` with its pages that have no text read by OCR, and ``"ocr"``: what it did.
    Unchanged where Tesseract is not installed. An image's answer becomes ``{"text": ...}``."""
    pages = list(result["pages"])
    empty = [i for i, text in enumerate(pages) if not text.strip()]
    found = program()
    if not empty or found is None:
        return result
    langs = choose(languages)
    deadline = time.monotonic() + max(seconds, MIN_PAGE_SECONDS)
    done, left, failure = 0, 0, ""
    document = None
    try:
        for i in empty:
            remaining = deadline - time.monotonic()
            if remaining < MIN_PAGE_SECONDS:
                left += 1
                continue
            if result.get("image"):
                text, failure = _tesseract(found, [path], None, langs, remaining)
            else:
                if document is None:
                    import pypdfium2 as pdfium

                    document = pdfium.PdfDocument(path)
                if not _has_picture(document, i):  # a blank page (a book's verso): nothing to read
                    continue
                text, failure = _tesseract(found, ["stdin"], _page_image(document, i), langs, remaining)
            if failure:
                break
            pages[i] = text
            done += 1
    finally:
        if document is not None:
            document.close()
    ocr: dict = {"pages": done, "left": left, "languages": langs}
    if failure and not done:
        ocr = {"skip": failure}
    out = {k: v for k, v in result.items() if k not in ("pages", "image")}
    out["ocr"] = ocr
    if result.get("image"):
        out["text"] = pages[0]
    else:
        out["pages"] = pages
    return out


def _first_complaint(stderr: bytes, returncode: int) -> str:
    """The first line Tesseract wrote on its error output, cut at a word: its next lines are
    Leptonica's trace of the same failure."""
    lines = [" ".join(line.split()) for line in stderr.decode("utf-8", "replace").splitlines()]
    first = next((line for line in lines if line), "")
    if len(first) > 100:
        first = first[:100].rsplit(" ", 1)[0] + "…"
    return first or f"exit status {returncode}"


def _has_picture(document, index: int) -> bool:
    import pypdfium2.raw as pdfium_c

    page = document[index]
    try:
        return next(iter(page.get_objects(filter=(pdfium_c.FPDF_PAGEOBJ_IMAGE,))), None) is not None
    finally:
        page.close()


def _page_image(document, index: int) -> bytes:
    """One page drawn in grey as a binary PGM (a header and the pixels: nothing to encode)."""
    page = document[index]
    try:
        width, height = page.get_size()  # in points, 72 to the inch
        scale = DPI / 72
        if width * height * scale * scale > MAX_PIXELS:
            scale = (MAX_PIXELS / max(width * height, 1.0)) ** 0.5
        bitmap = page.render(scale=scale, grayscale=True)
        pixels = bitmap.to_numpy()
        if pixels.ndim == 3:
            pixels = pixels[:, :, 0]
        rows, cols = pixels.shape[:2]
        return f"P5\n{cols} {rows}\n255\n".encode("ascii") + pixels.tobytes()
    finally:
        page.close()


def _tesseract(found: str, source: list[str], image: bytes | None, langs: str, timeout: float) -> tuple[str, str]:
    """(text, "") or ("", why it failed)."""
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    try:
        out = subprocess.run([found, *source, "stdout", "-l", langs], input=image,
                             stdin=None if image is not None else subprocess.DEVNULL,
                             capture_output=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return "", "OCR took longer than the time per document"
    except OSError as exc:
        return "", f"Tesseract could not start ({exc.strerror or exc})"
    if out.returncode != 0:
        return "", f"Tesseract could not read it (a damaged picture? {_first_complaint(out.stderr, out.returncode)})"
    return out.stdout.decode("utf-8", "replace").replace("\f", "\n"), ""
