"""A PDF's contents and index pages: flagged when read, kept, and ranked below the pages they
point to (real PDFs: one made here and the R project's manuals; real SQLite with FTS5)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.faults.document_files import page_lines, write_text_pdf
from tests.kb_helpers import CORPORA

MANUALS = CORPORA / "documents" / "r-manuals"
GEOTOPO = CORPORA / "documents" / "py-pdf-sample-files" / "009-pdflatex-geotopo" / "GeoTopo-komprimiert.pdf"
needs_manuals = pytest.mark.skipif(not MANUALS.is_dir(), reason="../shared/corpora/documents/r-manuals is absent")

SECTIONS = ["Lantern repair", "Quartz polishing", "Saddle stitching", "Timber drying"]


def _book(path: Path) -> None:
    """Contents on page 1, a section per page after it, an index on the last page."""
    contents = ["Contents"] + [f"{n} {title} " + ". " * 30 + f"{n + 1}" for n, title in enumerate(SECTIONS, 1)]
    body = [[title, *page_lines(n + 1, 30)] for n, title in enumerate(SECTIONS, 1)]
    index = ["Index"] + [f"{word}, {n + 1}, {n + 2}" for n, title in enumerate(SECTIONS, 1)
                         for word in title.lower().split()]
    write_text_pdf(path, [contents, *body, index])


def _page(hit) -> str:
    return hit.heading_path[0] if hit.heading_path else ""


def test_a_section_title_finds_its_page_before_the_contents_and_index_pages_that_name_it(tmp_path):
    from pms_tui.core.kb import KnowledgeBase

    folder = tmp_path / "notes"
    folder.mkdir()
    _book(folder / "crafts.pdf")
    with KnowledgeBase(home=tmp_path / "home") as kb:
        kb.collections.create(folder, name="notes")
        kb.sync(embed=False)
        flagged = {row[0] for row in kb._store.conn.execute(
            "SELECT heading FROM chunks WHERE navigation = 1")}
        assert flagged == {"page 1", "page 6"}
        for n, title in enumerate(SECTIONS, 1):
            hits = kb.search(title, k=6, mode="bm25")
            pages = [_page(h) for h in hits]
            assert pages[0] == f"page {n + 1}", (title, pages)
            assert "page 1" in pages and "page 6" in pages  # kept, only ranked lower


@needs_manuals
def test_the_r_manuals_contents_and_index_pages_are_flagged_and_no_other_page():
    from pms_tui.core.indexing import documents, navigation_pages
    from pms_tui.core.indexing import pages as pages_format

    found = {}
    for pdf in [*sorted(MANUALS.glob("*.pdf")), *([GEOTOPO] if GEOTOPO.is_file() else [])]:
        markdown = documents.extract(pdf, 50_000_000).markdown
        pages = markdown.split("\n# page ")
        found[pdf.name] = [pages_format.number_of("# page " + p.split("\n", 1)[0].removeprefix("# page "))
                           for p in pages
                           if navigation_pages.is_navigation(p.split("\n", 1)[1] if "\n" in p else "")]
    # (each manual's contents after its title and copyright pages, its indexes at its end)
    assert found == {
        "R-FAQ.pdf": [2, 3, 4],
        "R-admin.pdf": [3, 4, 5, 83, 84, 85],
        "R-data.pdf": [3, 4, 38, 39, 40],
        "R-exts.pdf": [3, 4, 5, 6, 7, 230, 231, 232, 233, 234, 235, 236],
        "R-intro.pdf": [3, 4, 5, 6, 108, 109, 110, 111, 112],
        "R-ints.pdf": [3, 4, 78, 79, 80, 81],
        "R-lang.pdf": [3, 4, 5, 65, 66, 67, 68],
        # a German textbook: its contents (but the two lines on page 5) and its index (a LaTeX
        # index, "Stetigkeit, 9–11"); its list of symbols is not one
        **({"GeoTopo-komprimiert.pdf": [4, 115, 116, 117]} if GEOTOPO.is_file() else {}),
    }


@needs_manuals
def test_in_r_intro_a_question_gets_the_page_that_answers_it_before_the_contents(tmp_path):
    from pms_tui.core.kb import KnowledgeBase

    folder = tmp_path / "manuals"
    folder.mkdir()
    shutil.copy(MANUALS / "R-intro.pdf", folder)
    with KnowledgeBase(home=tmp_path / "home") as kb:
        kb.collections.create(folder, name="manuals")
        kb.sync(embed=False)
        pages = [_page(h) for h in kb.search("define a new binary operator", k=5, mode="bm25")]
        contents = {"page 3", "page 4", "page 5", "page 6"}
        assert pages[0] not in contents and not contents & set(pages[:2]), pages


def test_an_index_from_schema_15_flags_the_contents_of_the_pdfs_it_holds_on_its_next_sync(tmp_path):
    """Schema 15 had no navigation column and its PDFs were read by PDF reader 3: the upgrade
    adds the column, and the next sync reads exactly the PDFs again (their reader's version)."""
    from pms_tui.core.kb import KnowledgeBase

    folder = tmp_path / "notes"
    folder.mkdir()
    _book(folder / "crafts.pdf")
    with KnowledgeBase(home=tmp_path / "home") as kb:
        kb.collections.create(folder, name="notes")
        kb.sync(embed=False)
        conn = kb._store.conn
        conn.execute("ALTER TABLE chunks DROP COLUMN navigation")
        conn.execute("UPDATE meta SET value = '15' WHERE key = 'schema_version'")
        conn.execute("UPDATE documents SET reader_version = 3 WHERE lower(path) LIKE '%.pdf'")
        conn.commit()
    with KnowledgeBase(home=tmp_path / "home") as kb:
        report = kb.sync(embed=False)
        assert report.modified == ["notes/crafts.pdf"]
        assert {row[0] for row in kb._store.conn.execute(
            "SELECT heading FROM chunks WHERE navigation = 1")} == {"page 1", "page 6"}


def test_a_page_named_by_its_printed_label_is_judged_as_any_page():
    from pms_tui.core.indexing.chunk import chunk_markdown
    from pms_tui.core.indexing.navigation_pages import seqs

    contents = "\n".join(f"{n} {title} " + ". " * 30 + f"{n}" for n, title in enumerate(SECTIONS, 1))
    text = "\n\n".join([f"# page iii (PDF page 3)\n\n{contents}\n",
                        "# page 1 (PDF page 4)\n\n" + "\n".join(page_lines(4, 30)) + "\n"])
    chunks = chunk_markdown(text, "crafts", 400, 0)
    flagged = {c.heading_path[0] for c in chunks if c.seq in seqs(text, chunks)}
    assert flagged == {"page iii (PDF page 3)"}
