"""Pages that read like the document: running heads and footers (lines repeated at the top or
bottom of page after page) are not part of a page's text; a page is named as printed, with the
physical page beside it (``page 5 (PDF page 10)``), and a reference to a page
(``x.pdf#page=N``) takes the physical number wherever it is read."""

from __future__ import annotations

import re

import pytest

from tests.kb_helpers import CORPORA

from pms_tui.core.indexing import documents, page_furniture, pages

R_INTRO = CORPORA / "documents" / "r-manuals" / "R-intro.pdf"
RUNNING_HEAD = re.compile(r"^Chapter \d+: .+ \d+$", re.MULTILINE)


def chapter_pages() -> list[str]:
    """Six pages of two chapters as texinfo prints them: a chapter opens with its page number
    alone and its title; the pages after carry the running head "Chapter N: title PAGE"."""
    return [
        "1\n1 Introduction\nR is a system for statistics.\n}",
        "Chapter 1: Introduction 2\nThe language is S.\n}",
        "Chapter 1: Introduction 3\nObjects are stored.\n}",
        "4\n2 Simple manipulations\nVectors are assigned.\n}",
        "Chapter 2: Simple manipulations 5\nArithmetic works on vectors.\n}",
        "Chapter 2: Simple manipulations 6\nLogical vectors exist.\nThe end of the chapter.",
    ]


def test_running_heads_and_lone_page_numbers_are_dropped_and_the_text_kept():
    out = page_furniture.strip(chapter_pages())
    assert out[0] == "1 Introduction\nR is a system for statistics.\n}"  # its title kept, "1" dropped
    assert out[1] == "The language is S.\n}"
    assert out[4] == "Arithmetic works on vectors.\n}"
    assert out[5] == "Logical vectors exist.\nThe end of the chapter."
    assert all("}" in page for page in out[:5])  # a brace closing several pages is code, not furniture


def test_a_short_document_and_lines_that_differ_are_left_alone():
    short = chapter_pages()[:3]
    assert page_furniture.strip(short) == short
    varied = [f"Results of trial {n} on the {word} field\nthe {word} plot yielded {n} tons" for n, word in
              enumerate(["north", "south", "east", "west", "upper"], 1)]
    assert page_furniture.strip(varied) == varied


def test_a_printed_label_names_the_page_and_the_physical_number_finds_it():
    text = pages.markdown(["title page", "contents", "the first chapter"], ["i", "ii", "1"])
    assert "# page i (PDF page 1)" in text and "# page 1 (PDF page 3)" in text
    assert pages.lines_of(text, 3) is not None
    first, last = pages.lines_of(text, 3)
    assert text.split("\n")[first - 1:last] == ["# page 1 (PDF page 3)", "", "the first chapter"]
    assert pages.of_line(text, last) == 3
    assert pages.anchor("page 1 (PDF page 3)") == "page=3" and pages.anchor("page 7") == "page=7"
    assert pages.split_ref("R-intro.pdf#page=10") == ("R-intro.pdf", 10)
    assert pages.heading(4, "4") == "page 4"
    # a label is the PDF's own: one that is not a plain word is left out, the page named by its number
    assert pages.heading(2, "x) # page 9\n") == "page 2"
    assert pages.anchor("Chapter 4 (PDF page 3)") is None


@pytest.mark.skipif(not R_INTRO.is_file(), reason="../shared/corpora/documents is absent")
def test_r_intro_reads_without_its_running_heads_and_names_its_printed_pages():
    text = documents.extract(R_INTRO, 10_000_000).markdown
    assert not RUNNING_HEAD.search(text), RUNNING_HEAD.search(text)
    assert "# page 4 (PDF page 10)" in text  # the manual's printed page 4 is the PDF's tenth
    first, last = pages.lines_of(text, 10)
    assert "At this point you will be asked whether you want to save the data" in "\n".join(
        text.split("\n")[first:last])
    assert "10 Writing your own functions" in text  # a chapter's title on its first page stays


@pytest.mark.skipif(not R_INTRO.is_file(), reason="../shared/corpora/documents is absent")
def test_a_hit_names_the_printed_page_and_the_reference_takes_the_physical_one(kb):
    kb.collections.create(R_INTRO.parent, name="r")  # read in place, read-only
    kb.sync(embed=False, only_paths={R_INTRO.name})
    hit = kb.search('"asked whether you want to save the data"', k=1, mode="bm25")[0]
    assert hit.heading_path == ["page 4 (PDF page 10)"]
    text = kb.notes.note_text(kb.notes.note("r/R-intro.pdf"))
    assert pages.of_line(text, hit.start_line) == 10


@pytest.mark.parametrize("line, shown", [
    ("# A heading", "\\# A heading"), ("#include <Rmath.h>", "\\#include <Rmath.h>"), ("> quoted", "\\> quoted"),
    ("```r", "\\```r"), ("~~~", "\\~~~"), ("<div>", "\\<div>"), ("</p>", "\\</p>"), ("<!-- x -->", "\\<!-- x -->"),
    ("===", "\\==="), ("---", "\\---"), ("***", "\\***"),
    # what Markdown shows as written is left as the document prints it
    ("~/.R/Makevars", "~/.R/Makevars"), ("<- value", "<- value"), ("= TRUE", "= TRUE"), ("`x` is a vector", "`x` is a vector"),
    ("-- a dash", "-- a dash"), ("a # b", "a # b"),
])
def test_a_document_line_is_escaped_only_where_markdown_would_read_markup(line, shown):
    from pms_tui.core.indexing.document_reader import escape_line

    assert escape_line(line) == shown
