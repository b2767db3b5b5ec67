"""Every limit the server enforces on a tool's arguments, once: the JSON Schema keywords each
input schema states (so a client is told, rather than coercing a bad value), and the check
whose sentence a value past the limit gets.

A limit the engine owns (``k``, ``mode``, the query, a note's name) is checked with the
engine's own function when the schema refuses a value, so the agent reads the sentence the
CLI and the app give ("Unknown search mode 'fast'; use one of hybrid, bm25, vector."), not
the schema's. tests/test_mcp_limits.py walks this table and calls the server with values
just inside and just outside each limit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..core.errors import UsageError
from ..core.kb import KnowledgeBase as _KB
from ..core.results import MODES
from .budget import MIN_MULTI_BYTES, MIN_PAGE_CHARS
from .notes import MAX_MULTI_NOTES

MAX_COLLECTIONS = 64  # a request names a few collections; a list this long is a mistake
NOTES_OR_PATTERN = "Give either notes (a list of ids or paths) or pattern (a glob over ids), not both or neither."


def check_notes_or_pattern(arguments: dict) -> None:
    """multi_get takes a list of notes or a pattern: UsageError for both, or neither."""
    if (arguments.get("notes") is None) == (arguments.get("pattern") is None):
        raise UsageError(NOTES_OR_PATTERN)


@dataclass(frozen=True)
class Limit:
    tool: str
    argument: str  # "" for a rule over the arguments together
    keywords: dict  # what the input schema states
    check: Callable[[object], None] | None = None  # the engine's check, whose sentence is given
    refusal: str = ""  # words of the sentence a value past the limit gets


def _note_limits(tool: str) -> Limit:
    return Limit(tool, "note", {"maxLength": _KB.limits.MAX_REF_CHARS}, _KB.limits.check_ref_length, "That is not a note name")


def _query_limits(tool: str) -> Limit:
    return Limit(tool, "query", {"maxLength": _KB.limits.MAX_QUERY_CHARS, "pattern": r"\S"}, _KB.limits.check_query,
                 "The query is")


def _collections(tool: str) -> Limit:
    return Limit(tool, "collections", {"maxItems": MAX_COLLECTIONS}, None, f"at most {MAX_COLLECTIONS} items")


LIMITS: list[Limit] = [
    _query_limits("search"),
    Limit("search", "k", {"minimum": 1, "maximum": _KB.limits.MAX_K}, _KB.limits.check_k, "k (how many hits) must be"),
    Limit("search", "mode", {"enum": list(MODES)}, _KB.limits.check_mode, "Unknown search mode"),
    _collections("search"),
    _note_limits("get"),
    Limit("get", "start_line", {"minimum": 1}, None, "must be at least 1"),
    Limit("get", "end_line", {"minimum": 1}, None, "must be at least 1"),
    Limit("get", "start_char", {"minimum": 0}, None, "must be at least 0"),
    Limit("get", "max_chars", {"minimum": MIN_PAGE_CHARS}, None, f"must be at least {MIN_PAGE_CHARS}"),
    Limit("multi_get", "notes", {"maxItems": MAX_MULTI_NOTES}, None, f"at most {MAX_MULTI_NOTES} items"),
    Limit("multi_get", "max_bytes", {"minimum": MIN_MULTI_BYTES}, None, f"must be at least {MIN_MULTI_BYTES}"),
    Limit("multi_get", "", {"dependentSchemas": {"notes": {"not": {"required": ["pattern"]}}}},
          lambda arguments: check_notes_or_pattern(arguments if isinstance(arguments, dict) else {}),
          "not both or neither"),
    _query_limits("explain"),
    _note_limits("explain"),
    _collections("explain"),
    _note_limits("links"),
    _note_limits("backlinks"),
    _note_limits("related"),
    Limit("related", "k", {"minimum": 1, "maximum": _KB.limits.MAX_K}, lambda k: _KB.limits.check_k(k, "notes"),
          "k (how many notes) must be"),
]


def of(tool: str) -> list[Limit]:
    return [limit for limit in LIMITS if limit.tool == tool]


def with_limits(tool: str, schema: dict) -> dict:
    """``schema`` with the keywords of the tool's limits merged in."""
    properties = {name: dict(spec) for name, spec in schema.get("properties", {}).items()}
    out = {**schema, "properties": properties}
    for limit in of(tool):
        if limit.argument:
            properties[limit.argument].update(limit.keywords)
        else:
            out.update(limit.keywords)
    return out
