"""What a note can be filtered by besides its words: its tags and its date.

Tags come from the frontmatter (``tags:``/``tag:`` as a list, a comma or space separated
string, with or without ``#``) and from inline ``#tags`` in the note's prose (``prose``:
markdown-it's tokens), so not from code (fenced blocks, inline code spans), links and
wikilinks (``[x](#part)``, ``[[#Heading]]``), URLs (``https://x/#part``), a heading's ``#``
marks, CSS colours like ``#fff`` inside code or issue numbers (``#123``). Tags are lower
case without the ``#``; nested tags keep their ``/`` (``project/alpha``).

A note's date is its frontmatter ``updated``, ``date`` or ``created`` (the first present that
reads as a date), else None: the caller falls back to the file's modification time.
"""

from __future__ import annotations

import datetime as _dt
import re

from ..markdown import Structure, normalize_newlines, split_lines
from .prose import prose_lines

MAX_TAGS = 200
MAX_TAG_CHARS = 100
DATE_KEYS = ("updated", "modified", "lastmod", "date", "created")
_TAG_KEYS = ("tags", "tag", "keywords")
# a tag: after start, whitespace or [ , ; (not "(", a link target "](#part)") then '#', a letter/digit/_
# run with / - allowed inside, holding at least one non-digit (so '#123' is an issue number, not a tag)
_INLINE = re.compile(r"(?:(?<=^)|(?<=[\s\[,;]))#([\w][\w/-]*)", re.UNICODE)
_ISO = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


def normalize_tag(value: object) -> str | None:
    """``#Git/Rebase,`` -> ``git/rebase``; None for what cannot be a tag."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    tag = str(value).strip().lstrip("#").strip().strip(",;").strip("/").lower()
    if not tag or len(tag) > MAX_TAG_CHARS or any(c.isspace() for c in tag):
        return None
    return tag


def frontmatter_tags(meta: dict) -> list[str]:
    out: list[str] = []
    for key, value in meta.items():
        if str(key).lower() not in _TAG_KEYS:
            continue
        values = value if isinstance(value, list) else [value]
        for item in values:
            if isinstance(item, list):  # a nested list: flatten one level
                parts = item
            elif isinstance(item, str):
                parts = re.split(r"[,\s]+", item)
            else:
                parts = [item]
            out.extend(t for t in map(normalize_tag, parts) if t)
    return out


def inline_tags(body: str, structure: Structure | None = None) -> list[str]:
    """``#tags`` in the note's prose, as Obsidian reads them: a ``#`` at the start of the text or
    after a space, ``[``, ``,`` or ``;``, then letters, digits, ``_``, ``-`` and ``/`` with at least
    one non-digit. Never in code, links, wikilinks (``[[#Heading]]``), URLs or a heading's
    ``#`` marks: markdown-it's tokens say what is prose (``prose``), for the blocks holding a
    candidate only. ``structure``: the body's ``scan``, when the caller has it (a long note is
    then not scanned twice)."""
    text = normalize_newlines(body)
    if "#" not in text:
        return []
    if not any("#" in line and _INLINE.search(line) for line in split_lines(text)):
        return []  # split in pieces: a 20 MB note's one split held the GIL and stalled the app
    out: list[str] = []
    for _, line in prose_lines(text, _has_candidate, structure):
        if "#" not in line:
            continue
        for found in _INLINE.finditer(line):
            tag = found.group(1).rstrip("/-")
            if not tag.replace("_", "").isdigit():
                normal = normalize_tag(tag)
                if normal:
                    out.append(normal)
    return out


def _has_candidate(source: str) -> bool:
    return "#" in source and _INLINE.search(source) is not None


def note_tags(meta: dict, body: str, structure: Structure | None = None) -> list[str]:
    """A note's tags, each once, frontmatter first, at most MAX_TAGS."""
    tags = list(dict.fromkeys([*frontmatter_tags(meta), *inline_tags(body, structure)]))
    return tags[:MAX_TAGS]


def parse_day(value: object) -> _dt.date | None:
    """A date from a frontmatter value: an ISO date or datetime string (or its first 10
    characters), a YAML date (already ISO text after the frontmatter reader), a year."""
    if isinstance(value, bool):
        return None
    if isinstance(value, _dt.datetime):
        return value.date()
    if isinstance(value, _dt.date):
        return value
    if isinstance(value, int) and 1000 <= value <= 9999:
        return _dt.date(value, 1, 1)
    if not isinstance(value, str):
        return None
    text = value.strip()
    m = _ISO.match(text.replace("/", "-"))
    if not m:
        return None
    try:
        return _dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None


def note_date(meta: dict) -> _dt.date | None:
    lowered = {str(k).lower(): v for k, v in meta.items()}
    for key in DATE_KEYS:
        if key in lowered:
            day = parse_day(lowered[key])
            if day is not None:
                return day
    return None


# The rules inline tags are read by: an index whose notes were read by other rules has them
# read again once, from its stored text (2: tags from the prose, markdown-it's tokens)
TAG_RULES = "2"
TAG_RULES_KEY = "tag_rules"


def backfill(store) -> int:
    """Tags and dates of the notes indexed before the index had them (schema 3), or before
    the current ``TAG_RULES``, read from the stored frontmatter and chunk text; once, when the
    index is opened. Returns notes filled."""
    import json

    from ..store import facets as facet_rows
    from ..store import meta

    conn = store.conn
    if meta.get_meta(conn, facet_rows.BACKFILL_KEY) is None and meta.get_meta(conn, TAG_RULES_KEY) == TAG_RULES:
        return 0
    if store.read_only:
        return 0  # read as it is; a writable open reads them again
    filled = 0
    with store.transaction() as conn:
        for doc_id, front, body in facet_rows.backfill_sources(conn):
            filled += 1
            try:
                data = json.loads(front)
            except ValueError:
                data = {}
            data = data if isinstance(data, dict) else {}
            day = note_date(data)
            facet_rows.write(conn, doc_id, note_tags(data, body), day.isoformat() if day else None)
        conn.execute("DELETE FROM meta WHERE key = ?", (facet_rows.BACKFILL_KEY,))
        meta.set_meta(conn, TAG_RULES_KEY, TAG_RULES)
    return filled
