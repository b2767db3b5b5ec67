"""Reading time and the reader's peak memory for each document format beyond PDF and Word, on
files of a realistic size written by the formats' own writers (tests/format_files.py), and for
OCR (an image, a 5-page scan) where Tesseract is installed.

    nice -n 10 python benchmarks/formats.py [--write-doc]

Each file is read by ``documents.extract`` (the real child process, with its limits) from a
fresh Python process, so "reader MB" is the peak resident memory of that file's reader (and of
Tesseract, which it starts) alone.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

PARAGRAPH = ("The estuary floods twice a day; waders feed on the mudflats as the tide falls, and the "
             "saltmarsh holds the silt the river brings down. ")


def one(path: str) -> None:
    """Run in a fresh process: read one file, print what it cost."""
    import resource

    from pms_tui.core.indexing import documents

    started = time.perf_counter()
    extracted = documents.extract(Path(path), 20_000_000)
    seconds = time.perf_counter() - started
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(json.dumps({"seconds": seconds, "chars": len(extracted.markdown), "pages": extracted.pages,
                      "reader_mb": peak_kb / 1024}))


def make(folder: Path) -> list[tuple[str, Path]]:
    from tests import format_files

    made: list[tuple[str, Path]] = []
    from pptx import Presentation

    deck = Presentation()
    for n in range(300):
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = f"Survey {n}"
        slide.placeholders[1].text = PARAGRAPH * 2
        slide.notes_slide.notes_text_frame.text = PARAGRAPH
    deck.save(folder / "deck.pptx")
    made.append(("PowerPoint, 300 slides with notes", folder / "deck.pptx"))

    chapters = {f"c{n}.xhtml": ('<html xmlns="http://www.w3.org/1999/xhtml"><body>'
                                + f"<h1>Chapter {n}</h1>" + f"<p>{PARAGRAPH * 3}</p>" * 60 + "</body></html>")
                for n in range(50)}
    format_files.write_epub(folder / "book.epub", chapters, {name: name for name in chapters})
    made.append(("EPUB, 50 chapters of 60 paragraphs", folder / "book.epub"))

    import openpyxl

    book = openpyxl.Workbook(write_only=True)
    sheet = book.create_sheet("Readings")
    for r in range(50_000):
        sheet.append([f"site {r}", r, r * 0.5, "tide", "2026-01-01", r % 7, "ok", r * 2, "x", r])
    book.save(folder / "sheet.xlsx")
    made.append(("Excel, 50,000 rows x 10 (2,000 indexed)", folder / "sheet.xlsx"))

    format_files.write_ods(folder / "sheet.ods", [[f"site {r}", str(r), "tide"] for r in range(5_000)])
    made.append(("OpenDocument sheet, 5,000 rows x 3", folder / "sheet.ods"))

    from odf.opendocument import OpenDocumentText
    from odf.text import H, P

    document = OpenDocumentText()
    for n in range(200):
        document.text.addElement(H(outlinelevel=1, text=f"Section {n}"))
        for _ in range(10):
            document.text.addElement(P(text=PARAGRAPH * 2))
    document.save(str(folder / "text.odt"))
    made.append(("OpenDocument text, 2,000 paragraphs", folder / "text.odt"))

    (folder / "plain.txt").write_text((PARAGRAPH + "\n") * 40_000, encoding="utf-8")
    made.append(("plain text, 5 MB", folder / "plain.txt"))

    (folder / "page.html").write_text("<html><head><title>Saved</title></head><body><article><h1>Estuaries</h1>"
                                      + "".join(f"<p>Reading {n}: {PARAGRAPH * 3}</p>" for n in range(1000))
                                      + "</article></body></html>",
                                      encoding="utf-8")
    made.append(("saved HTML page, 1,000 paragraphs", folder / "page.html"))

    if shutil.which("tesseract"):
        format_files.write_text_image(folder / "board.png", "Heron colony census")
        made.append(("PNG, one line (OCR)", folder / "board.png"))
        from PIL import Image

        pages = []
        for n in range(5):
            format_files.write_text_image(folder / f".page{n}.png", f"Scanned page {n} of the survey", (1700, 2200))
            pages.append(Image.open(folder / f".page{n}.png").convert("L"))
        pages[0].save(folder / "scan.pdf", "PDF", save_all=True, append_images=pages[1:], resolution=200)
        made.append(("scanned PDF, 5 pages (OCR)", folder / "scan.pdf"))
    return made


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--one":
        one(sys.argv[2])
        return 0
    work = Path(tempfile.mkdtemp(prefix="pms-formatbench-"))
    try:
        rows = []
        for label, path in make(work):
            out = subprocess.run([sys.executable, __file__, "--one", str(path)], capture_output=True, text=True,
                                 cwd=REPO, check=True)
            got = json.loads(out.stdout.strip().splitlines()[-1])
            rows.append(f"| {label} | {path.stat().st_size / 1e6:,.2f} | {got['chars']:,} | {got['seconds']:.2f} | "
                        f"{got['reader_mb']:.0f} |")
        print("| file | MB | characters read | read s | reader MB |\n|---|---|---|---|---|")
        print("\n".join(rows))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    import doc_sections

    sys.exit(doc_sections.run_main(main, "benchmarks/formats.py"))
