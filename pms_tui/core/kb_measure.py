"""What an evaluation reads from a KnowledgeBase beyond search: the one named interface of
``pms-tui eval`` (``pms_tui/eval/``) and the research scripts (``research/``).

    measure = Measure(kb)
    measure.clear_query_cache()                  # time a query with a cold embedding
    parsed, lanes = measure.lanes(text, depth)   # each lane's ranking, as search fuses it
    signals = measure.signals(parsed, lanes)     # what query-aware fusion reads off them

A front end never needs these; they live here so that the KnowledgeBase carries what the
front ends use, and an evaluation does not reach into ``kb.retrieval`` or the store.
"""

from __future__ import annotations

from collections.abc import Sequence

from .search.retrieval import Retrieval
from .search.lane_trust import Signals
from .search.query_syntax import ParsedQuery
from .store import chunks as chunk_rows
from .store import documents as document_rows

Ranked = list[tuple[int, float]]  # (chunk id, the lane's score) best first


class Measure:
    """An evaluation's view of one open KnowledgeBase ``kb``: only its retrieval is kept (it
    holds the store and the model)."""

    def __init__(self, kb) -> None:
        self._retrieval: Retrieval = kb.retrieval

    def clear_query_cache(self) -> None:
        """Forget cached query vectors, so a timed search pays for its embedding."""
        self._retrieval.embedder.clear_query_cache()

    def lanes(self, query: str | ParsedQuery, depth: int, mode: str = "hybrid",
              collections: Sequence[str] | None = None, *,
              typing: bool = False) -> tuple[ParsedQuery, dict[str, Ranked]]:
        """(the parsed query, {lane: ranking}): what ``search`` fuses at lane depth ``depth``
        (``typing`` as ``search``'s)."""
        return self._retrieval.lanes(query, depth, mode, collections, typing=typing)

    def signals(self, query: str | ParsedQuery, lanes: dict[str, Ranked]) -> Signals:
        """Query-aware fusion's two signals for one query's lanes (``lane_trust.Signals``)."""
        return self._retrieval.lane_signals(query, lanes.get("bm25", []), lanes.get("vector", []))

    def chunk_notes(self) -> dict[int, str]:
        """Chunk id -> relative path of its note (ranked chunks become ranked notes)."""
        return chunk_rows.note_paths(self._retrieval.store.conn)

    def indexed_paths(self) -> set[str]:
        """Relative paths of every indexed note, all collections together."""
        return document_rows.all_paths(self._retrieval.store.conn)
