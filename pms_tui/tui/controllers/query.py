"""The screen's historian: the queries a person acted on (ctrl+up / ctrl+down walk them) and
the saved searches, which say when their results change.

A query enters the history when a result it found is opened, copied or read for
``READ_SECONDS`` (the screen says which, with the query in the bar); a saved search keeps a
fingerprint of its first notes, and after a sync the historian runs each again in a worker
and says which now find other notes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import work
from textual.worker import Worker, WorkerState

from ..history import History, clean_query, fingerprint
from ..result_rows import group
from . import Part, opened

if TYPE_CHECKING:
    from collections.abc import Iterable

    from textual.timer import Timer

    from pms_tui.core.results import Hit, SearchResult

READ_SECONDS = 4.0  # a hit highlighted this long counts as read: its query enters the history
HISTORY_PALETTE = 15  # recent queries the command palette lists
SAVED_CHECK_K = 10  # how many hits a saved search's fingerprint covers


@dataclass
class HistoryWalk:
    """ctrl+up / ctrl+down through the history: the list as it was when the walk began (so a
    query used meanwhile does not reorder it under the user), where the walk is, the query
    that was in the bar before it (ctrl+down past the newest brings it back), and the query
    the walk last put in the bar (typing over it begins a new walk)."""

    entries: list[str]
    draft: str
    pos: int = -1  # -1: the draft
    shown: str = ""


def notes_of(hits: Iterable[Hit]) -> list[str]:
    """The first notes of a search's hits, as a saved search's fingerprint covers them."""
    return [f"{g[0].collection}/{g[0].relpath}" for g in group(list(hits)[:SAVED_CHECK_K * 3])][:SAVED_CHECK_K]


class Historian(Part):
    """The query history, its walk, the read timer and the saved searches."""

    def __init__(self, kb, keymap=None, **kwargs) -> None:
        super().__init__(kb, keymap, **kwargs)
        self.history: History | None = None
        self._walk: HistoryWalk | None = None  # while ctrl+up / ctrl+down walk the history
        self._read_timer: Timer | None = None
        self._pending_saved: str | None = None  # a saved search run, until its results are shown

    def load(self) -> None:
        """Before the first search: the history of this home."""
        if self.kb is not None:
            self.history = History(self.kb.home)

    def remember(self, query: str) -> None:
        """``query`` was acted on (a hit opened, copied or read): keep it."""
        if self.history is not None and query.strip():
            self.history.add(query)

    def time_reading(self, hit: Hit | None, query: str) -> None:
        """``hit`` highlighted for READ_SECONDS counts as read: its query is kept, unless the
        history itself brought it back (merely looking at a recalled query would move it to
        the newest, under the user)."""
        if self._read_timer is not None:
            self._read_timer.stop()
            self._read_timer = None
        if hit is not None:
            self._read_timer = self.set_timer(READ_SECONDS, lambda: self._read(query), name="read-timer")

    def _read(self, query: str) -> None:
        walk = self._walk
        if not (walk is not None and walk.pos >= 0 and query == walk.shown):
            self.remember(query)

    def recall(self, step: int, bar: str) -> str | None:
        """An older (+1) or newer (-1) query than ``bar`` (the query in the bar now), for the
        bar; None when the history holds no other."""
        if self.history is None:
            return None
        walk = self._walk
        if walk is None or bar != walk.shown:  # a new walk: from the query in the bar now
            draft = clean_query(bar)
            entries = [e for e in self.history.recent() if e != draft]  # the first ctrl+up goes back
            walk = self._walk = HistoryWalk(entries, bar, shown=bar)
        if not walk.entries:
            self._walk = None
            self.notify("No other query in the history yet: queries enter it when a result is opened, "
                        "copied or read.", timeout=4)
            return None
        walk.pos = max(-1, min(walk.pos + step, len(walk.entries) - 1))
        walk.shown = walk.draft if walk.pos < 0 else walk.entries[walk.pos]
        return walk.shown

    def end_walk(self) -> None:
        """A query was put in the bar by other means: the next ctrl+up begins a new walk."""
        self._walk = None

    # -- saved searches ---------------------------------------------------------------------
    def ask_to_save(self, query: str, hits: list[Hit]) -> None:
        """Ask for a name and save ``query`` with the fingerprint of ``hits`` (its results now)."""
        query = query.strip()
        if not query or self.history is None:
            self.notify("Type a query to save first.", severity="warning")
            return
        from ..dialogs.name import NameDialog

        history = self.history

        def saved(name: str | None) -> None:
            if name is not None:
                history.save(name, query, fingerprint(notes_of(hits)))
                self.notify(f"Saved the search {name!r}; run it from the command palette.", timeout=4)

        self.app.push_screen(NameDialog("Save this search as", query[:40]), saved)

    def saved_query(self, name: str) -> str | None:
        """The query of the saved search ``name``, to run now (its results become its baseline)."""
        item = self.history.get(name) if self.history else None
        if item is None:
            return None
        self._pending_saved = name
        return item.query

    def results_seen(self, result: SearchResult | None) -> None:
        """A search's results were shown: a saved search run just now has a new baseline."""
        if result is None:
            return
        name, self._pending_saved = self._pending_saved, None
        if name and self.history is not None:
            self.history.seen(name, fingerprint(notes_of(result)))

    @work(thread=True, exclusive=True, group="saved-check", exit_on_error=False)
    def recheck_saved(self) -> list[str]:
        """After a sync: which saved searches now find other notes."""
        history = self.history
        if history is None or not history.saved_items():
            return []
        kb = opened(self.kb)

        def run(query: str) -> str:
            return fingerprint(notes_of(kb.search(query, k=SAVED_CHECK_K * 3, vector=kb.model.ready)))

        return history.recheck(run)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "saved-check":
            return
        event.stop()  # a check that fails says nothing: the next sync checks again
        if event.state == WorkerState.SUCCESS and event.worker.result:
            names = ", ".join(repr(n) for n in event.worker.result)
            self.notify(f"Saved search {names} has changed results since you last ran it.", timeout=8)
