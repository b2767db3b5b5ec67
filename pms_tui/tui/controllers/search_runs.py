"""The screen's searcher: search as you type. A debounce timer, then an exclusive ``search``
worker whose answer is posted only if it is still the newest. A search whose query was
typed over stops at its next step in SQLite (``KnowledgeBase.search(stop=...)``), so the
newest query has the cores to itself; a stopped search posts nothing.

While a query is typed its last word also matches as a prefix ("conf" finds "config"), so
results follow each key; once typing pauses long enough to read them (``SETTLE_SECONDS``
after they are shown), the same query runs again with its words whole, so the results a
person reads are those the CLI and MCP give for the same words. Moving to the list (down,
enter) settles at once: the query is finished.

It owns the searches' state (the newest request, the last result shown, the timers, the
counts the benchmarks read) and the values the search bar completes (``facet_choices``);
the screen asks it to search and shows what it posts (``Searcher.ResultsReady``).
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import work
from textual.message import Message
from textual.timer import Timer
from textual.worker import Worker, WorkerState, get_current_worker

from pms_tui.core.errors import SearchStopped, describe

from . import Part, opened, while_running

if TYPE_CHECKING:
    from pms_tui.core.results import Hit, SearchResult

RESULT_COUNT = 30
SETTLE_SECONDS = 1.0  # a pause after results of a query being typed: it is finished


@dataclass(frozen=True)
class SearchRequest:
    """What to search: the query as typed, the mode, the collections (None: all), the view."""

    query: str
    mode: str = "hybrid"
    collections: tuple[str, ...] | None = None
    view: str = "notes"


class Searcher(Part):
    """The screen's searches: requested, debounced, run in a thread, stopped when replaced, posted."""

    class ResultsReady(Message):
        """A search (or the recent-notes list for an empty query) came back, and it is the
        newest: ``same_query`` when its query is the one shown before (the selection stays)."""

        def __init__(self, generation: int, query: str, hits: list[Hit], lanes: list[str],
                     notes: list[str], elapsed_ms: float, recent: bool, error: str | None = None,
                     result: SearchResult | None = None) -> None:
            super().__init__()
            self.result = result  # the SearchResult (its parsed query, for chips and evidence); None: recent
            self.generation = generation
            self.query = query
            self.hits = hits
            self.lanes = lanes
            self.notes = notes
            self.elapsed_ms = elapsed_ms
            self.recent = recent
            self.error = error
            self.same_query = False

    def __init__(self, kb, keymap=None, **kwargs) -> None:
        super().__init__(kb, keymap, **kwargs)
        self.search_generation = 0
        # debounce fired -> results rendered, the last 1,000 (a day of typing must not grow it)
        self.search_latencies_ms: deque[float] = deque(maxlen=1000)
        self.searches_shown = 0  # results rendered since start (benchmarks wait on it)
        self.searches_stopped = 0  # searches ended early because a newer query replaced them
        self.settle_seconds = SETTLE_SECONDS
        self.shown_query: str | None = None  # the query of the results shown, stripped
        self.last_result: SearchResult | None = None  # the last SearchResult shown (None: recent notes)
        self._request = SearchRequest("")
        self._debounce: Timer | None = None
        self._settle: Timer | None = None  # after a typed query's results: run it with its words whole
        self._search_started = 0.0
        self._facets: dict[str, list[str]] = {}

    @property
    def search_pending(self) -> bool:
        """A search is waiting for the debounce timer."""
        return self._debounce is not None

    @property
    def shown_typing(self) -> bool:
        """The results shown were searched as typed (their last word read as a prefix)."""
        return bool(self.last_result is not None and self.last_result.query.typing)

    @property
    def settle_pending(self) -> bool:
        """Results of a query being typed are shown; its settled search waits for a pause."""
        return self._settle is not None

    @property
    def vector_ready(self) -> bool:
        """The vector lane can answer (the engine's word: the model is loaded)."""
        return bool(self.kb and self.kb.model.ready)

    def request(self, request: SearchRequest, immediate: bool = False) -> None:
        """Search ``request`` after the debounce delay (or now); newer requests win."""
        self.search_generation += 1
        self._request = request
        self._stop_settle()
        if self._debounce is not None:
            self._debounce.stop()
            self._debounce = None
        if self.kb is None:
            return
        if immediate:
            self._start_search()
        else:
            delay = max(0, self.kb.settings.debounce_ms) / 1000
            self._debounce = self.set_timer(delay, self._start_search, name="search-debounce")

    def _stop_settle(self) -> None:
        if self._settle is not None:
            self._settle.stop()
            self._settle = None

    def settle_now(self) -> None:
        """The query is finished (a pause, or the person moved to the list): if the results
        shown were searched as typed, search it again with its words whole."""
        if self._settle is None:
            return
        self._stop_settle()
        if self._debounce is None:
            self._start_search(typing=False)

    @while_running
    def _start_search(self, typing: bool = True) -> None:
        self._debounce = None
        self._search_started = time.perf_counter()
        self.search(self._request, self.search_generation, self.vector_ready, typing)

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def search(self, request: SearchRequest, generation: int, vector: bool, typing: bool = True) -> None:
        started = time.perf_counter()
        query = request.query
        recent = not query.strip()
        collections = list(request.collections) if request.collections else None
        result = None
        worker = get_current_worker()

        def replaced() -> bool:  # a newer query was typed (or this worker was cancelled)
            return generation != self.search_generation or worker.is_cancelled

        lanes: list[str]
        notes: list[str]
        try:
            if recent:
                hits, lanes, notes = opened(self.kb).recent(limit=RESULT_COUNT, collections=collections), [], []
            else:
                k = RESULT_COUNT * 3 if request.view == "notes" else RESULT_COUNT
                result = opened(self.kb).search(query, k=k, mode=request.mode, collections=collections,
                                                vector=vector, stop=replaced, typing=typing)
                hits, lanes, notes = list(result.hits), list(result.lanes), list(result.notes)
            error = None
        except SearchStopped:
            self.searches_stopped += 1
            return  # its results would be dropped anyway: the newer query's search shows
        except Exception as exc:  # noqa: BLE001 - a database error must not end the app
            hits, lanes, notes, error = [], [], [], describe(exc)
        if worker.is_cancelled:
            return
        elapsed = (time.perf_counter() - started) * 1000
        self.post_message(self.ResultsReady(generation, query, hits, lanes, notes, elapsed, recent, error, result))

    @while_running
    def on_searcher_results_ready(self, message: ResultsReady) -> None:
        if message.generation != self.search_generation:
            message.stop()  # a newer query is on its way: never show stale results over fresh ones
            return
        message.same_query = message.query.strip() == self.shown_query
        self.shown_query = message.query.strip()
        self.last_result = message.result

    def results_shown(self, message: ResultsReady) -> None:
        """The screen showed ``message``'s results: a typed query settles after a pause, and
        the time from the debounce to the paint is kept."""
        self._stop_settle()
        if message.result is not None and message.result.query.typing:  # its last word read as a prefix
            self._settle = self.set_timer(self.settle_seconds, self.settle_now, name="search-settle")
        # asked of the screen, in its queue behind this render: asked of the searcher, the request
        # would reach the screen after this frame's paint and time the next one (a frame late)
        self.screen.call_after_refresh(self._search_rendered, self._search_started)

    @while_running
    def _search_rendered(self, started: float) -> None:
        if started:
            self.search_latencies_ms.append((time.perf_counter() - started) * 1000)
            self.searches_shown += 1

    # -- completion ---------------------------------------------------------------------------
    def facet_choices(self, kind: str) -> list[str]:
        """The values the search bar completes after ``kind:`` (tags, folders, collections)."""
        return self._facets.get(kind, [])

    @work(thread=True, exclusive=True, group="facets", exit_on_error=False)
    def refresh_facets(self) -> dict[str, list[str]]:
        return opened(self.kb).searcher.facet_values()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "facets":
            event.stop()  # completion is a convenience: a failure leaves the values as they were
            if event.state == WorkerState.SUCCESS and isinstance(event.worker.result, dict):
                self._facets = event.worker.result

