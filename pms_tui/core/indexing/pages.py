"""The page format: how a PDF's pages are written in its indexed Markdown and read back.

A PDF's text is indexed as one ``# page N`` section per page that has text, so a hit's
breadcrumb names its page and the reader can find one. Where the PDF gives its pages printed
labels (a manual whose page 5 is its tenth), the heading names the page as printed with the
physical one beside it: ``# page 5 (PDF page 10)``. A reference to a page (``x.pdf#page=10``,
``get``'s and the reader's page) takes the physical number, as PDF viewers and Obsidian open
``#page=``; the label is what a person reads. Everything that writes or reads that
format is here: the sections (``markdown``), the anchor Obsidian links to (``[[x.pdf#page=3]]``:
``anchor``, ``split_ref``), a page's lines (``lines_of``) and the page of a line (``of_line``).
"""

from __future__ import annotations

import re

from .document_reader import escape_line

WORD = "page"
_HEADING = re.compile(rf"# {WORD} (?:(\d{{1,6}})|\S{{1,20}} \(PDF {WORD} (\d{{1,6}})\))")
_LABEL = re.compile(r"[0-9A-Za-z][0-9A-Za-z.\-]{0,19}")
_REF = re.compile(rf"(.+\.pdf)#{WORD}=(\d{{1,6}})", re.IGNORECASE)


def heading(number: int, label: str = "") -> str:
    """A page's heading text (``page 12``, or ``page 5 (PDF page 10)`` for a printed label
    other than its number), as a breadcrumb shows it."""
    label = label if _LABEL.fullmatch(label or "") else ""  # (a label is the PDF's: only a plain one)
    if label and label != str(number):
        return f"{WORD} {label} (PDF {WORD} {number})"
    return f"{WORD} {number}"


def markdown(pages: list[str], labels: list[str] | None = None) -> str:
    """One ``# page N`` section per page that has text (a page of images only has none), the
    text escaped so that nothing in a page can open a code fence or a heading of its own."""
    out: list[str] = []
    for number, text in enumerate(pages, 1):
        label = labels[number - 1] if labels and number <= len(labels) else ""
        lines = [escape_line(line) for line in text.split("\n")]
        while lines and not lines[-1].strip():
            lines.pop()
        while lines and not lines[0].strip():
            lines.pop(0)
        if lines:
            out.append(f"# {heading(number, label)}\n\n" + "\n".join(lines) + "\n")
    return "\n".join(out)


def number_of(line: str) -> int | None:
    """The physical page a line of indexed text opens (its page heading), else None."""
    m = _HEADING.fullmatch(line)
    return int(m.group(1) or m.group(2)) if m else None


def number_in(heading_text: str) -> int | None:
    """The physical page a page heading's text names (``page 54``, ``page 5 (PDF page 10)``:
    as a breadcrumb shows it), else None."""
    return number_of("# " + heading_text)


def anchor(heading_text: str) -> str | None:
    """``page=N``, the anchor of Obsidian's link to a PDF's page, for a page heading's text;
    None for any other heading."""
    number = number_of("# " + heading_text)
    return f"{WORD}={number}" if number is not None else None


def split_ref(ref: str) -> tuple[str, int] | None:
    """(``x.pdf``, N) for a reference to a PDF's physical page (``x.pdf#page=N``), else None."""
    m = _REF.fullmatch(ref)
    return (m.group(1), int(m.group(2))) if m else None


def lines_of(text: str, page: int) -> tuple[int, int] | None:
    """(first, last) line of a page in a PDF's indexed text; None when the page has no text."""
    lines = text.split("\n")
    for n, content in enumerate(lines, 1):
        if number_of(content) == page:
            last = n
            while last < len(lines) and number_of(lines[last]) is None:
                last += 1
            while last > n and not lines[last - 1].strip():
                last -= 1
            return n, last
    return None


def of_line(text: str, line: int) -> int | None:
    """The page a line of a PDF's indexed text is on (None before the first page heading)."""
    page = None
    for content in text.split("\n")[:line]:
        number = number_of(content)
        if number is not None:
            page = number
    return page
