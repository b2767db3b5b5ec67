"""A PDF's running heads and footers: lines printed at the top or bottom of page after page
("Chapter 10: Writing your own functions 46", a lone page number), which are not part of what
a page says and would otherwise be indexed on every page.

A page's first and last line with text are its head and foot. Either is dropped when it is
only the page's number (printed or physical); when it holds a word and the page's own number
(first or last) where most pages' heads (or feet) hold theirs, or where the same words do on
another page; or when, its digits made alike, the same line heads (or foots) a quarter of the
pages (at least ``MIN_REPEATS``): a chapter's running head repeats on each page of the chapter, a
manual's title on every page. A line of code or a table cell that happens to open several
pages ("}", "4") holds no word and stays; so does the first line of a document under
``MIN_PAGES`` pages.
"""

from __future__ import annotations

import re
from collections import Counter

MIN_PAGES = 4
MIN_REPEATS = 3
# A line without its page's number is furniture only when it heads (or foots) this share of the
# pages: in the 2,415 pages of R's reference manual, "## End(Not run)" ends 24 pages, a
# reference's "Brooks/Cole." 14: text, not furniture.
REPEATED_SHARE = 0.25
# The share of pages whose head (or foot) carries their own number from which such a line is a
# running head even where its words appear once (a chapter of two pages).
NUMBERED_SHARE = 0.5
_DIGITS = re.compile(r"\d+")
_WORD = re.compile(r"[^\W\d_]{3}")


def _key(line: str, numbers: tuple[str, ...]) -> str:
    """The line set apart from its page's number (a mark ``@`` says it had one: a chapter's
    title on its first page is not its running head on the next), digits made alike."""
    tokens = line.split()
    numbered = False
    if tokens and tokens[-1] in numbers:
        tokens.pop()
        numbered = True
    if tokens and tokens[0] in numbers:
        tokens.pop(0)
        numbered = True
    key = _DIGITS.sub("#", " ".join(tokens)).casefold()
    return f"@{key}" if numbered and key else key


def _ends(lines: list[str]) -> list[int]:
    """The indexes of a page's first and last line with text (one when they are the same)."""
    filled = [i for i, line in enumerate(lines) if line.strip()]
    return sorted({filled[0], filled[-1]}) if filled else []


def strip(pages: list[str], labels: list[str] | None = None) -> list[str]:
    """The pages without their running heads and footers (``labels``: each page's printed
    label, where the PDF has them)."""
    if len(pages) < MIN_PAGES:
        return pages
    split = [page.split("\n") for page in pages]
    found: list[list[tuple[int, bool, str]]] = []
    counts: Counter[tuple[bool, str]] = Counter()
    numbered: Counter[bool] = Counter()
    for number, lines in enumerate(split, 1):
        label = labels[number - 1] if labels and number <= len(labels) else ""
        numbers = tuple(n for n in (str(number), label) if n)
        ends = _ends(lines)
        keys = [(i, i == ends[0], _key(lines[i], numbers)) for i in ends]
        found.append(keys)
        for _, head, key in keys:
            counts[(head, key)] += 1
            numbered[head] += key.startswith("@")
    repeats = max(MIN_REPEATS, int(len(pages) * REPEATED_SHARE))
    out: list[str] = []
    for lines, keys in zip(split, found):
        drop = {i for i, head, key in keys
                if _furniture(head, key, counts, numbered[head] / len(pages), repeats)}
        out.append("\n".join(line for i, line in enumerate(lines) if i not in drop))
    return out


def _furniture(head: bool, key: str, counts: Counter, numbered_share: float, repeats: int) -> bool:
    if not key:
        return True  # the page's number alone
    if not _WORD.search(key):
        return False
    if key.startswith("@") and (numbered_share >= NUMBERED_SHARE or counts[(head, key)] >= 2):
        return True  # a line with its page's number where most pages have one there: the running head
    return counts[(head, key)] >= repeats
