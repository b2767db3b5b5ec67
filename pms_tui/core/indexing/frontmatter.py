"""YAML frontmatter: split it off a Markdown note and make its values JSON-safe.

A frontmatter block is a first line ``---`` closed by a later ``---`` or ``...`` line.
Lines are counted the way the chunker counts them: ``\\n``-separated after ``\\r\\n`` and
lone ``\\r`` have been normalised to ``\\n``, so a body line number plus the returned
offset is always the line number in the original file.
"""

from __future__ import annotations

import base64
import datetime as _dt
from typing import Any

from ..markdown import normalize_newlines

_OPEN = "---"
_CLOSE = ("---", "...")


def split_frontmatter(text: str) -> tuple[dict, str, int]:
    """Return ``(metadata, body, body_line_offset)``.

    Body line N (1-based) is file line N + body_line_offset. Broken YAML or a non-mapping
    value between valid fences gives ``{}`` but the block is still stripped; without a
    closing fence the whole text is body and the offset is 0.
    """
    text = normalize_newlines(text)
    if not text.startswith(_OPEN):
        return {}, text, 0
    lines = text.split("\n")
    if lines[0].rstrip() != _OPEN:
        return {}, text, 0
    close = next((i for i in range(1, len(lines)) if lines[i].rstrip() in _CLOSE), None)
    if close is None:
        return {}, text, 0
    body = "\n".join(lines[close + 1 :])
    return _load_mapping("\n".join(lines[1:close])), body, close + 1


def _load_mapping(source: str) -> dict:
    import yaml  # when a note has frontmatter: a search never needs it

    try:
        value = yaml.safe_load(source)
    except Exception:  # noqa: BLE001 - any YAML failure means "no metadata", never a crash
        return {}
    if not isinstance(value, dict):
        return {}
    return _jsonable(value)


def _jsonable(value: Any) -> Any:
    """Dates become ISO strings, keys become strings; recurse into containers."""
    if isinstance(value, dict):
        return {_key(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((_jsonable(v) for v in value), key=repr)
    if isinstance(value, (_dt.date, _dt.time)):  # datetime is a date subclass
        return value.isoformat()
    if isinstance(value, bytes):  # YAML !!binary
        return base64.b64encode(value).decode("ascii")
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def _key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, bool) or key is None:  # match json.dumps spelling
        return {True: "true", False: "false", None: "null"}[key]
    value = _jsonable(key)
    return value if isinstance(value, str) else str(value)


def frontmatter_title(meta: dict) -> str | None:
    """The ``title`` value (any key case) as a non-empty single-line string, else None."""
    value = meta.get("title")
    if value is None:
        value = next((v for k, v in meta.items() if k.lower() == "title"), None)
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    title = " ".join(str(value).split())
    return title or None
