"""Search over one index (``kb.searcher``; ``kb.search`` and ``kb.recent`` are it): the request
checked by the notes' one policy, then retrieval's one search path; why a hit ranks where it
does (``evidence``) and where a named note ranks (``explain``); what an empty query shows
(``recent``); what the completing filters can take (``facet_values``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from ..config import Settings
from ..errors import PmsError
from ..results import (ADD_FROM_CLI, SYNC_FROM_CLI, Evidence, Hit, NoteExplanation, SearchResult,
                       no_collections_notice, nothing_indexed_notice)
from ..search.filter_specs import FILTERS
from ..search.hits import hit_from_row, preview
from ..search.retrieval import Retrieval
from ..search.scope import Scope
from ..store import Store
from ..store import chunks as chunk_rows
from .model import Model
from .notes import Notes

class Searcher:
    """``retrieval``: the lanes and their fusion; ``notes``: what a request may ask and which
    note it names; ``model``: loaded for an explanation's vector part; ``scope``: which
    collections a request means."""

    def __init__(self, settings: Settings, store: Store, retrieval: Retrieval, notes: Notes, model: Model,
                 scope: Scope) -> None:
        self._settings = settings
        self._store = store
        self._retrieval = retrieval
        self._notes = notes
        self._model = model
        self._scope = scope

    def search(self, query: str, k: int = 10, mode: str = "hybrid", collections: Sequence[str] | None = None, *,
               vector: bool = True, stop: Callable[[], bool] | None = None, typing: bool = False) -> SearchResult:
        """Hits (best first) with the lanes that answered; iterate it for the hits.
        ``vector=False`` answers from BM25 alone (while the model is loading). ``stop``: asked
        while the search's SQL runs; once true the search ends with :class:`SearchStopped`
        at its next step in SQLite (the app's search for a query typed over). ``typing``: the
        query is still being typed (search as you type): its last word, with nothing after it,
        also matches as a prefix ("conf" finds "config"); otherwise words match whole.
        UsageError (``Notes.check_request``) for what cannot be asked: an empty query, k < 1."""
        self._notes.check_request(query, k, mode, collections)
        return self._retrieval.search(query, k, mode, collections, vector=vector, typing=typing, stop=stop)

    def recent(self, limit: int = 30, collections: Sequence[str] | None = None) -> list[Hit]:
        """The first chunk of the most recently changed notes: what an empty query shows."""
        ids = self._scope.ids(collections)
        rows = chunk_rows.first_chunks_by_recency(self._store.conn, limit,
                                                  self._scope.default_ids() if ids is None else ids)
        return [hit_from_row(row, preview(row.body)) for row in rows]

    def evidence(self, result: SearchResult, hit: Hit) -> Evidence:
        """Why ``hit`` ranks where it does in ``result``: the evidence panel's facts."""
        return self._retrieval.evidence(result, hit)

    def explain(self, query: str, note: str, collections: Sequence[str] | None = None, *,
                vector: bool = True, typing: bool = False) -> NoteExplanation:
        """Where the note ``note`` (named as ``Notes.note`` takes it) ranks for ``query`` in each
        lane and in what search returns, which query words it lacks, and its best passage's
        similarity (``typing`` as :meth:`search`'s)."""
        self._notes.check_request(query, 1, "hybrid", collections)
        found = self._notes.note(note)
        if vector and not self._model.mismatch and not self._model.embedder.ready:
            try:
                self._model.load()
            except PmsError:
                vector = False  # explained from BM25 alone; the vector part says why
        explanation = self._retrieval.explain(query, found.collection.id, found.relpath, found.id,
                                              collections, vector=vector, typing=typing)
        result = self.search(query, k=self._settings.lane_depth, collections=collections, vector=vector,
                             typing=typing)
        key = (found.collection.name, found.relpath)
        return replace(explanation, fused_rank=next(
            (i for i, h in enumerate(result, 1) if (h.collection, h.relpath) == key), None))

    def facet_values(self) -> dict[str, list[str]]:
        """What the filters that complete (``tag:``, ``path:``, ``in:``) can take, the most used
        first (completion)."""
        return FILTERS.choices(self._store.conn)

    def empty_index_notice(self, how_to_add: str = ADD_FROM_CLI, how_to_sync: str = SYNC_FROM_CLI) -> str | None:
        """The sentence saying the index holds nothing to search (no collections, or none
        synced), or None; ``how_to_add``/``how_to_sync``: the front end's way to do it."""
        if chunk_rows.count(self._store.conn):
            return None
        return nothing_indexed_notice(how_to_sync) if self._scope.names() else no_collections_notice(how_to_add)
