"""The engine's JSON of a result, as an MCP tool gives it: every string made inert for an agent
that may print it. A single-line field (a title, a path, a snippet, a sentence) has its runs
of whitespace made one space and its control characters made visible; a note's text keeps its
line endings (``budget.safe_page``: pages joined are the file) and a frontmatter value its
newlines. The keys and the values are otherwise the engine's, as the CLI's ``--json`` prints them.
"""

from __future__ import annotations

from typing import Any

from ..core.safe_text import one_line, safe_text
from .budget import safe_page


def inert(value: object, key: str = "") -> Any:
    """``value`` (``to_json()`` data) with its strings made inert, by the key they stand under."""
    if key == "frontmatter":
        return _multiline(value)
    if isinstance(value, str):
        return safe_page(value) if key == "text" else one_line(value)
    if isinstance(value, dict):
        return {k: inert(v, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [inert(v, key) for v in value]
    return value


def _multiline(value: object) -> object:
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, dict):
        return {safe_text(str(k), keep=""): _multiline(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_multiline(v) for v in value]
    return value
