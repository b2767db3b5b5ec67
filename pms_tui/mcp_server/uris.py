"""Resource URIs of notes: ``pms://note/<collection>/<path inside it>``, each part
percent-encoded (a space is %20, a '/' inside a name cannot occur)."""

from __future__ import annotations

from urllib.parse import quote, unquote

from ..core.errors import UsageError

PREFIX = "pms://note/"
TEMPLATE = "pms://note/{collection}/{+path}"


def note_uri(collection: str, relpath: str) -> str:
    return PREFIX + "/".join(quote(part, safe="") for part in [collection, *relpath.split("/")])


def id_from_uri(uri: str) -> str:
    """``collection/relpath`` of a note URI; UsageError for any other URI."""
    if not uri.startswith(PREFIX) or len(uri) <= len(PREFIX):
        raise UsageError(f"Note URIs look like {PREFIX}COLLECTION/PATH; this one does not.")
    return "/".join(unquote(part) for part in uri[len(PREFIX):].split("/"))
