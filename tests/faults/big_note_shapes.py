"""Notes of every shape at a given size, for the memory tests (test_memory.py) and
benchmarks/big_notes.py: each stresses another part of reading, parsing and chunking."""

from __future__ import annotations

import base64
import random

WORDS = b"lorem ipsum dolor sit amet consectetur adipiscing elit "


def _base64_line(size: int) -> bytes:
    raw = random.Random(4).randbytes(size * 3 // 4)
    return b"# Inline image\n\n![img](data:image/png;base64," + base64.b64encode(raw) + b")\n"


def _table(size: int, rows: int = 100_000) -> bytes:
    """A Markdown table of ``rows`` rows, each padded so the note is about ``size`` bytes."""
    head = b"# Table\n\n| id | name | notes |\n|---:|------|-------|\n"
    pad = max(0, size // rows - 30)
    filler = (WORDS * (pad // len(WORDS) + 1))[:pad]
    return head + b"".join(b"| %d | item %d | %s |\n" % (i, i, filler) for i in range(rows))


def _headings(size: int, count: int = 200_000) -> bytes:
    """``count`` headings, each over a short paragraph, to about ``size`` bytes."""
    pad = max(0, size // count - 24)
    filler = (WORDS * (pad // len(WORDS) + 1))[:pad]
    return b"".join(b"## Heading %d\n\n%s\n\n" % (i, filler) for i in range(count))


SHAPES = {
    "one-long-line": lambda size: b"# Para\n\n" + WORDS * (size // len(WORDS)) + b"\n",
    "one-fence": lambda size: b"```\n" + (b"x = compute(y) + 1\n" * (size // 19)) + b"```\n",
    "table-rows": _table,
    "headings": _headings,
    "base64-line": _base64_line,
    "short-lines": lambda size: b"# Lines\n\n" + (b"a short line of text\n" * (size // 21)),
    "bare-headings": lambda size: b"".join(b"## h %d\n" % i for i in range(size // 8))[:size],
    "list-items": lambda size: b"- x\n" * (size // 4),  # the densest Markdown: two blocks every 4 bytes
    "cjk-no-spaces": lambda size: ("東京の天気" * (size // 15)).encode(),
}


def shape(name: str, size: int) -> bytes:
    """The note ``name`` of about ``size`` bytes (never more)."""
    return SHAPES[name](size)[:size]
