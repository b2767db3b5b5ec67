"""Page-level queries drawn from PDFs themselves, seeded, for benchmarks/manuals.py quality.

Kinds (each query's targets are the pages that answer it, by physical number):

* ``title``: a section's title from the PDF's outline (its bookmarks); the target is the page
  the section starts on. Titles found more than once across the set ("Examples") are left out.
* ``line``: the middle line of every 10th page with 30 lines or more (four words or more); the
  target is that page.
* ``word``: a rare word from a page (letters only, five or more, not a stopword) that one or
  two pages of the set hold; the targets are those pages.
* ``identifier``: a name from code a page documents (``read.table``, ``R_alloc``,
  ``Rf_eval``, ``seq_len``: parts joined by ``.`` or ``_``; not a file name) that one to three
  pages hold. A set with fewer than half ``PER_KIND`` such names (a book of prose) has none.
* ``quoted``: three words in a row on one line of a page (letters only, one at least of five
  letters or more and not a stopword, one at least on more than three pages; no URL), typed in
  quotes, that one to three pages hold together.

Words are compared as the product compares them (case and diacritics folded, cut at anything
not a letter or digit: ``exact_match.tokens``), over the PDF's own text (pypdfium2), so the
sets are the same whichever tree's index is asked. ``PER_KIND`` of each of the drawn kinds,
fewer when a set has fewer; the seed is fixed.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections import Counter
from pathlib import Path

SEED = 43
PER_KIND = 30
_IDENT = re.compile(r"(?<![\w.\-/'’])([A-Za-z][A-Za-z0-9]*(?:[._][A-Za-z0-9]+)+)(?![\w\-/])")
_TOKEN = re.compile(r"[^\W_]+")
_SOFT_HYPHEN = re.compile("\ufffe\\s*")
_LEADERS = re.compile(r"(?:\.\s?){5,}")


def _tokens(text: str) -> list[str]:
    """``exact_match.tokens``, here so that a tree older than that module draws the same sets."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return _TOKEN.findall("".join(c for c in decomposed if not unicodedata.combining(c)))


def _pages(pdf: Path) -> list[str]:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(pdf))
    try:  # a word hyphenated at a line's end (PDFium's U+FFFE) is one word, as the index reads it
        return [_SOFT_HYPHEN.sub("", doc[i].get_textpage().get_text_range()) for i in range(len(doc))]
    finally:
        doc.close()


def _outline(pdf: Path) -> list[tuple[str, int]]:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(pdf))
    try:
        out = []
        for mark in doc.get_toc():
            dest = mark.get_dest()
            title = re.sub(r"^[\dA-Z]+(?:\.\d+)*\.?\s+", "", (mark.get_title() or "").strip())
            if dest is not None and len(title.split()) >= 2 and dest.get_index() is not None:
                out.append((title, dest.get_index() + 1))
        return out
    finally:
        doc.close()


def draw(pdfs: list[Path], prefix: str = "") -> list[dict]:
    """The queries of one set (``prefix`` names its kinds apart: ``GeoTopo word``)."""
    from pms_tui.core.search.query import STOPWORDS

    rng = random.Random(SEED)
    texts = {pdf.name: _pages(pdf) for pdf in pdfs}
    runs = {(name, i + 1): " " + " ".join(_tokens(text)) + " "
            for name, pages in texts.items() for i, text in enumerate(pages)}
    page_words = {key: frozenset(run.split()) for key, run in runs.items()}
    df = Counter(w for words in page_words.values() for w in words)
    navigation = {key for key, run in runs.items()
                  if len(_LEADERS.findall(texts[key[0]][key[1] - 1])) >= 5}  # contents and index pages

    def holding(run: str) -> list[tuple[str, int]]:
        return [key for key, text in runs.items() if run in text]

    out: list[dict] = []
    titles: dict[str, list[tuple[str, int, str]]] = {}
    for pdf in pdfs:
        for title, page in _outline(pdf):
            titles.setdefault(title.casefold(), []).append((pdf.name, page, title))
    for found in titles.values():
        if len(found) == 1:
            name, page, title = found[0]
            out.append({"kind": prefix + "title", "query": title, "targets": [[name, page]]})
    for name, pages in texts.items():
        for i in range(9, len(pages), 10):
            lines = [line.strip() for line in pages[i].splitlines() if line.strip()]
            if len(lines) >= 30 and len(lines[len(lines) // 2].split()) >= 4:
                out.append({"kind": prefix + "line", "query": lines[len(lines) // 2], "targets": [[name, i + 1]]})

    keys = sorted(k for k in runs if k not in navigation)
    words = sorted({w for k in keys for w in page_words[k]
                    if w.isalpha() and len(w) >= 5 and w not in STOPWORDS and df[w] <= 2})
    for word in rng.sample(words, min(PER_KIND, len(words))):
        out.append({"kind": prefix + "word", "query": word,
                    "targets": [list(k) for k in keys if word in page_words[k]]})

    names: dict[str, set[tuple[str, int]]] = {}
    for key in keys:
        for name in _IDENT.findall(texts[key[0]][key[1] - 1]):
            if not re.search(r"\.(?:pdf|html?|txt|org|com|net|c|h|o|so|tar|gz|zip|png|R|Rd|texi)$", name):
                names.setdefault(name, set()).add(key)
    idents = sorted(n for n in names if 1 <= len(holding(" " + " ".join(_tokens(n)) + " ")) <= 3)
    if len(idents) < PER_KIND // 2:  # a book of prose names no code: file names and URLs are not its kind
        idents = []
    for name in rng.sample(idents, min(PER_KIND, len(idents))):
        targets = holding(" " + " ".join(_tokens(name)) + " ")
        out.append({"kind": prefix + "identifier", "query": name, "targets": [list(k) for k in targets]})

    phrases: set[str] = set()
    for key in keys:
        for line in texts[key[0]][key[1] - 1].splitlines():
            if "http" in line or "www." in line:
                continue
            toks = _tokens(line)
            for j in range(len(toks) - 2):
                three = toks[j:j + 3]
                if all(t.isalpha() for t in three) and any(len(t) >= 5 and t not in STOPWORDS for t in three):
                    phrases.add(" ".join(three))
    candidates = sorted(phrases)
    rng.shuffle(candidates)
    drawn = 0
    for phrase in candidates:
        if drawn == PER_KIND:
            break
        targets = holding(f" {phrase} ")
        if 1 <= len(targets) <= 3 and any(df[w] > 3 for w in phrase.split()):  # not three rare words
            out.append({"kind": prefix + "quoted", "query": f'"{phrase}"', "targets": [list(k) for k in targets]})
            drawn += 1
    return out
