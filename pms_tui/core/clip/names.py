"""How a note written by pms-tui is named: the one rule for the clipper and for a note an
agent or the CLI creates. A title becomes a slug (:func:`slugify`), a taken name gets a
number (``-2``, ``-3``, ...: :func:`numbered`). Light to import (no clipper dependencies)."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterator
from pathlib import Path

WINDOWS_RESERVED = frozenset(
    {"con", "prn", "aux", "nul", "clock$"}
    | {f"com{i}" for i in range(10)}
    | {f"lpt{i}" for i in range(10)}
)
# Latin letters that NFKD does not decompose into ASCII.
_LATIN_EXTRAS = str.maketrans({
    "ß": "ss", "ẞ": "SS", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ø": "o", "Ø": "O",
    "đ": "d", "Đ": "D", "ð": "d", "Ð": "D", "ł": "l", "Ł": "L", "þ": "th", "Þ": "TH", "ı": "i",
})
MAX_SUFFIX = 10_000


def slugify(title: str, max_len: int = 80) -> str:
    """A file-name-safe slug: lowercase ASCII letters, digits and single hyphens.

    Accents are folded (``Crème`` -> ``creme``, ``Straße`` -> ``strasse``). A title with no
    Latin letters or digits left gets ``untitled-<6 hex of its hash>`` so different such
    titles stay apart; an empty title gets ``untitled``. The result never contains a dot, a
    slash or a backslash, is never empty and is never a Windows reserved device name.
    """
    max_len = max(max_len, 1)
    text = unicodedata.normalize("NFKD", (title or "").translate(_LATIN_EXTRAS))
    ascii_text = text.encode("ascii", "ignore").decode("ascii").lower()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text).strip("-")
    if len(slug) > max_len:
        cut = slug[:max_len]
        if slug[max_len] != "-" and "-" in cut[max_len // 2 :]:
            cut = cut.rsplit("-", 1)[0]  # end on a whole word when that keeps most of it
        slug = cut.strip("-")
    if not slug:
        stripped = (title or "").strip()
        if not stripped:
            return "untitled"[:max_len]
        digest = hashlib.sha256(stripped.encode("utf-8", "surrogatepass")).hexdigest()[:6]
        slug = f"untitled-{digest}"[:max_len].strip("-")
    if slug in WINDOWS_RESERVED:
        slug = f"{slug}-page"
    return slug


def numbered(stem: str, suffix: str = ".md") -> Iterator[str]:
    """``stem.md``, then ``stem-2.md`` ... ``stem-10000.md``: the names tried in turn."""
    yield f"{stem}{suffix}"
    for number in range(2, MAX_SUFFIX + 1):
        yield f"{stem}-{number}{suffix}"


def inside(folder: Path, candidate: Path) -> bool:
    """True when ``candidate`` resolves (symlinks followed) to a path inside ``folder``."""
    try:
        return candidate.resolve().is_relative_to(folder.resolve())
    except (OSError, RuntimeError):
        return False
