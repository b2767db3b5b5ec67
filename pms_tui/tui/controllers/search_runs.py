"""Search as you type: a debounce timer, then an exclusive ``search`` worker whose answer is
shown only if it is still the newest. A search whose query was typed over stops at its next
step in SQLite (``KnowledgeBase.search(stop=...)``), so the newest query has the cores to
itself; a stopped search shows nothing and says nothing.

While a query is typed its last word also matches as a prefix ("conf" finds "config"), so
results follow each key; once typing pauses long enough to read them (``SETTLE_SECONDS``
after they are shown), the same query runs again with its words whole, so the results a
person reads are those the CLI and MCP give for the same words. Moving to the list (down,
enter) settles at once: the query is finished.

The part of :class:`~pms_tui.tui.screens.search.SearchScreen` every other part builds on: it
owns the ``answer`` reactive (how the shown search was answered, for the status line) and the
last result shown; Textual finds the worker and ``on_search_completed`` on the screen.
"""

from __future__ import annotations

import time
from collections import deque
from typing import TYPE_CHECKING

from textual import work
from textual.timer import Timer
from textual.worker import get_current_worker

from pms_tui.core.errors import describe
from pms_tui.core.errors import SearchStopped

from ..messages import IndexChanged, SearchCompleted
from . import opened, while_running
from ..widgets.status import Answer
from .state import SearchState

if TYPE_CHECKING:
    from pms_tui.core.results import SearchResult

RESULT_COUNT = 30
SETTLE_SECONDS = 1.0  # a pause after results of a query being typed: it is finished


class SearchRuns(SearchState):
    """The screen's searches: requested, debounced, run in a thread, stopped when replaced, shown."""

    def init_search_runs(self) -> None:
        self.search_generation = 0
        # debounce fired -> results rendered, the last 1,000 (a day of typing must not grow it)
        self.search_latencies_ms: deque[float] = deque(maxlen=1000)
        self.searches_shown = 0  # results rendered since start (benchmarks wait on it)
        self.searches_stopped = 0  # searches ended early because a newer query replaced them
        self._debounce: Timer | None = None
        self._settle: Timer | None = None  # after a typed query's results: run it with its words whole
        self.settle_seconds = SETTLE_SECONDS
        self._search_started = 0.0
        self._shown_query: str | None = None
        self.last_result: SearchResult | None = None  # the last SearchResult shown (None: recent notes)

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

    def request_search(self, immediate: bool = False) -> None:
        """Search the current query after the debounce delay (or now); newer requests win."""
        self.search_generation += 1
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
        collections = [self.collection_filter] if self.collection_filter else None
        self.search(self.search_bar.value, self.search_generation, self.mode, collections, self.vector_ready,
                    typing)

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def search(self, query: str, generation: int, mode: str, collections: list[str] | None,
               vector: bool, typing: bool = True) -> None:
        started = time.perf_counter()
        recent = not query.strip()
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
                result = opened(self.kb).search(query, k=RESULT_COUNT * 3 if self.view == "notes" else RESULT_COUNT, mode=mode,
                                                collections=collections, vector=vector, stop=replaced,
                                                typing=typing)
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
        self.post_message(SearchCompleted(generation, query, hits, lanes, notes, elapsed, recent, error, result))

    @while_running
    def on_search_completed(self, message: SearchCompleted) -> None:
        if message.generation != self.search_generation:
            return  # a newer query is on its way: never show stale results over fresh ones
        same_query = message.query.strip() == self._shown_query
        self._shown_query = message.query.strip()
        self.last_result = message.result
        weak = bool(message.result is not None and message.result.weak and message.hits)
        self.results.show_hits(message.hits, recent=message.recent, empty_message=self._empty_message(message),
                               keep_selection=same_query, view=self.view, sort=self.sort,
                               limit=RESULT_COUNT, weak=weak)
        parsed = message.result.query if message.result is not None else None
        ignored = tuple(i.reason if i.text in i.reason else f"{i.text}: {i.reason}"
                        for i in parsed.ignored) if parsed else ()
        self.chips.show_query(parsed.chips() if parsed else [], [i.text for i in parsed.ignored] if parsed else [])
        self.answer = Answer(lanes=tuple(message.lanes), hits=len(self.results.rows), elapsed_ms=message.elapsed_ms,
                             recent=message.recent, ignored=ignored, weak=weak, notes=tuple(message.notes),
                             vector_out=message.result.vector_out if message.result is not None else None,
                             words=parsed.has_text if parsed is not None else True)
        if message.error:
            self.notify(message.error, severity="error")
        self._stop_settle()
        if message.result is not None and message.result.query.typing:  # its last word read as a prefix
            self._settle = self.set_timer(self.settle_seconds, self.settle_now, name="search-settle")
        started = self._search_started
        self.call_after_refresh(self._search_rendered, started)

    def on_index_changed(self, message: IndexChanged) -> None:
        """A sync (this app's or another process's) changed the index: a search shown without
        its vector lane, waiting for vectors, runs again once none is pending."""
        if self.answer.vector_out is not None and not self.counts.pending and not self.search_pending:
            self.request_search(immediate=True)

    @while_running
    def _search_rendered(self, started: float) -> None:
        if started:
            self.search_latencies_ms.append((time.perf_counter() - started) * 1000)
            self.searches_shown += 1

    def _empty_message(self, message: SearchCompleted) -> str:
        if message.error:
            return message.error
        if message.recent:
            if not self.collection_names:
                return f"No collections yet: press {self.key('app.add_collection')} to add a folder of notes."
            return f"Nothing indexed yet: press {self.key('app.sync')} to sync."
        if self.mode == "vector" and not message.lanes:
            return "The vector lane is waiting for the embedding model to load…"
        where = f" in {self.collection_filter}" if self.collection_filter else ""
        return f"No matches for {message.query.strip()!r}{where}."

