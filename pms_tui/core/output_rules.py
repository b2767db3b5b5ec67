"""How every result the engine hands out is written out: a note's id and its URI, times, and
values JSON can hold. Each result type's ``to_json`` (``results``) is made with these, so the
CLI's ``--json``, the MCP tools and the Python API write the same note, the same time, the
same way; a front end never spells an id or a URI itself.
"""

from __future__ import annotations

import datetime as _dt
import time
from urllib.parse import quote, unquote

from .errors import UsageError

# A note's URI (the MCP server's resources; ``KnowledgeBase.notes.note`` takes it as a note's name):
# ``pms://note/<collection>/<path inside it>``, each part percent-encoded
NOTE_URI_PREFIX = "pms://note/"
NOTE_URI_TEMPLATE = "pms://note/{collection}/{+path}"


def note_id(collection: str, relpath: str) -> str:
    """A note's id, ``collection/path inside it``: what hits carry and every request may name."""
    return f"{collection}/{relpath}"


def note_uri(collection: str, relpath: str) -> str:
    """The URI of the note ``relpath`` of ``collection`` (a space is %20; '/' separates parts)."""
    return NOTE_URI_PREFIX + "/".join(quote(part, safe="") for part in [collection, *relpath.split("/")])


def id_of_uri(uri: str) -> str:
    """The id of the note ``uri`` names (``note_uri``'s inverse); UsageError for any other URI."""
    if not uri.startswith(NOTE_URI_PREFIX) or len(uri) <= len(NOTE_URI_PREFIX):
        raise UsageError(f"Note URIs look like {NOTE_URI_PREFIX}COLLECTION/PATH; this one does not.")
    return "/".join(unquote(part) for part in uri[len(NOTE_URI_PREFIX):].split("/"))


def iso_time(epoch: float | None) -> str | None:
    """A moment (epoch seconds) as ISO 8601 in local time with its offset; None for none."""
    return time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(epoch)) if epoch else None


def json_value(value: object) -> object:
    """``value`` (a note's frontmatter, say) as data JSON holds: dates as ISO text, sets and
    tuples as lists, keys as text, anything else unknown as its text."""
    if isinstance(value, dict):
        return {str(k): json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [json_value(v) for v in value]
    if isinstance(value, (_dt.date, _dt.datetime, _dt.time)):
        return value.isoformat()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)
