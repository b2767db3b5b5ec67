"""What one request may ask, each limit with the sentence every front end gives for a value
past it: how many hits (``k``), the search mode, the query, a note's name. Retrieval checks the
mode with this module, the notes' service checks a whole request with it, and the MCP server
states the same limits in its input schemas (``KnowledgeBase.limits``, mcp_server/limits.py).
"""

from __future__ import annotations

from ..config import MAX_DEPTH
from ..errors import UsageError
from ..results import MODES
from ..safe_text import one_line

# A query longer than this is refused: a mistake, not a question (the parser reads far less of
# a query: query_syntax.PARSED_QUERY_CHARS; a pasted page is cut there, not refused).
MAX_QUERY_CHARS = 100_000
MAX_K = MAX_DEPTH  # hits one request may ask for: as deep as a lane may rank
MAX_REF_CHARS = 4096  # a note's name or path


def check_k(k: object, what: str = "hits") -> None:
    """UsageError, in the sentence every front end shows, unless ``k`` (how many hits, or
    ``what`` else, a request asks for) is a whole number from 1 to MAX_K."""
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
        raise UsageError(f"k (how many {what}) must be at least 1 and at most {MAX_K:,}.")


def check_mode(mode: object) -> None:
    """UsageError, in the sentence every front end shows, unless ``mode`` is a search mode."""
    if mode not in MODES:
        raise UsageError(f"Unknown search mode {one_line(str(mode))[:40]!r}; use one of {', '.join(MODES)}.")


def check_query(query: object) -> None:
    """UsageError, in the sentence every front end shows, for an empty query or one longer
    than any page pasted into a search bar."""
    if not isinstance(query, str) or not query.strip():
        raise UsageError("The query is empty; give words, a \"phrase\" or a filter such as tag:NAME.")
    if len(query) > MAX_QUERY_CHARS:
        raise UsageError(f"The query is {len(query):,} characters long; a query may hold up to {MAX_QUERY_CHARS:,}.")


def check_ref_length(ref: object) -> None:
    """UsageError unless ``ref`` could name a note (not too long, no NUL)."""
    if isinstance(ref, str) and (len(ref) > MAX_REF_CHARS or "\x00" in ref):
        raise UsageError("That is not a note name: too long, or it holds a NUL character.")


class RequestLimits:
    """The limits and their checks, as one name a front end reaches through the KnowledgeBase
    (``kb.limits``, or ``KnowledgeBase.limits`` with no index open)."""

    MAX_K = MAX_K
    MAX_QUERY_CHARS = MAX_QUERY_CHARS
    MAX_REF_CHARS = MAX_REF_CHARS
    check_k = staticmethod(check_k)
    check_mode = staticmethod(check_mode)
    check_query = staticmethod(check_query)
    check_ref_length = staticmethod(check_ref_length)
