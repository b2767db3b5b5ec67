"""The search language in the app: filter chips and completion, notes or passages, sort,
history, saved searches and the evidence panel.

A part of :class:`pms_tui.tui.screens.search.SearchScreen`: it owns the ``view``, ``sort`` and
``evidence_shown`` reactives (controllers.state), the evidence and explain workers, and
what the history and saved searches keep.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from textual import on, work

from pms_tui.core.config import load_state, save_state
from pms_tui.core.errors import describe as sentence
from pms_tui.core.safe_text import one_line

if TYPE_CHECKING:
    from textual.timer import Timer

    from pms_tui.core.results import Hit

from ..history import History, clean_query, fingerprint
from ..hit_place import place
from ..messages import IndexChanged
from ..result_rows import SORTS, VIEWS, group
from ..widgets.results import ResultsList
from . import opened, while_running
from .search_runs import Searcher
from .state import SearchState

VIEW_STATE = "results_view"  # remembered in the app state (state.json), like the theme
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


@dataclass(frozen=True)
class Explained:
    """A note explained in the evidence panel: for which query, and which hit was highlighted."""

    query: str
    note: str  # "collection/relpath"
    chunk_id: int | None


class QueryPart(SearchState):
    """The search language's views, history, saved searches and evidence panel."""

    def init_queries(self) -> None:
        self.query_history: History | None = None
        self._walk: HistoryWalk | None = None  # while ctrl+up / ctrl+down walk the history
        self._read_timer: Timer | None = None
        self._explained: Explained | None = None
        self._pending_saved: str | None = None  # a saved search run, until its results are shown

    def load_query_state(self) -> None:
        """Before the first search: the remembered view, the history, completion values."""
        if self.kb is None:
            return
        try:
            view = load_state(self.kb.home).get(VIEW_STATE, "notes")
        except Exception:  # noqa: BLE001 - a state that cannot be read is the default
            view = "notes"
        self.set_reactive(QueryPart.view, view if view in VIEWS else "notes")  # remembered: not said again
        self.query_history = History(self.kb.home)
        self.searcher.refresh_facets()

    def on_index_changed(self, message: IndexChanged) -> None:
        """After a sync that changed the index."""
        self.searcher.refresh_facets()
        self.recheck_saved()

    # -- views ------------------------------------------------------------------------------
    def action_toggle_view(self) -> None:
        self.view = "passages" if self.view == "notes" else "notes"

    def validate_view(self, view: str) -> str:
        return view if view in VIEWS else self.view

    def watch_view(self, view: str) -> None:
        try:
            save_state(opened(self.kb).home, **{VIEW_STATE: view})
        except Exception:  # noqa: BLE001 - it would only be forgotten next time
            pass
        self.notify(f"Showing {'one row per note' if view == 'notes' else 'every passage'}.", timeout=2)
        self.request_search(immediate=True)

    def action_toggle_sort(self) -> None:
        self.sort = SORTS[(SORTS.index(self.sort) + 1) % len(SORTS)]

    def watch_sort(self, sort: str) -> None:
        self.results.set_layout(self.view, sort)

    # -- the evidence panel -----------------------------------------------------------------
    def action_toggle_evidence(self) -> None:
        self.evidence_shown = not self.evidence_shown

    def watch_evidence_shown(self, shown: bool) -> None:
        self.evidence.set_class(shown, "-shown")
        if shown:
            self.show_evidence(self.results.current)

    @on(ResultsList.HitHighlighted)
    @while_running
    def _hit_highlighted(self, message: ResultsList.HitHighlighted) -> None:
        self.show_evidence(message.hit)
        self.time_reading(message.hit)

    @on(ResultsList.HitChosen)
    @while_running
    def _hit_chosen(self, message: ResultsList.HitChosen) -> None:
        self.remember_query()

    def show_evidence(self, hit) -> None:
        if self._explained and self._explained.query != self.search_bar.value:
            self._explained = None  # a new query: the explanation was of the old one
        if self._explained and self._explained.chunk_id != (hit.chunk_id if hit is not None else None):
            self._explained = None  # another hit highlighted
        if not self.evidence_shown:
            return
        if self._explained:
            return  # the explanation stays until another hit or query
        result = self.searcher.last_result
        if hit is None or result is None:
            self.evidence.show_lines("Evidence", ["Select a search result to see why it ranks where it does."])
            return
        self.evidence_worker(result, hit)

    @work(thread=True, exclusive=True, group="evidence", exit_on_error=False)
    def evidence_worker(self, result, hit) -> None:
        try:
            lines = opened(self.kb).evidence(result, hit).lines()
        except Exception as exc:  # noqa: BLE001
            lines = [sentence(exc)]
        self.app.call_from_thread(self._show_evidence_lines, hit, lines)

    @while_running
    def _show_evidence_lines(self, hit, lines) -> None:
        current = self.results.current
        if current is not None and current.chunk_id == hit.chunk_id and self._explained is None:
            where = place(hit)
            self.evidence.show_lines(f"Why passage #{self._rank_of(hit)}: {where}", lines)

    def _rank_of(self, hit) -> int:
        hits: list[Hit] = list(self.searcher.last_result or [])
        return next((i for i, h in enumerate(hits, 1) if h.chunk_id == hit.chunk_id), 0)

    def action_explain_note(self) -> None:
        """Where the highlighted note ranks for the query, lane by lane (in the evidence panel)."""
        hit = self.results.current
        query = self.search_bar.value
        if hit is None or not query.strip():
            self.notify("Type a query and highlight a note to explain its rank.", severity="warning")
            return
        self.explain(query, _note_of(hit))

    def action_explain_any_note(self) -> None:
        """Ask for any indexed note (completed as typed) and explain its rank for the query:
        the question "why is the note I expected missing?"."""
        query = self.search_bar.value
        if not query.strip():
            self.notify("Type a query first, then ask where a note ranks for it.", severity="warning")
            return
        from textual.suggester import SuggestFromList

        from ..dialogs.name import NameDialog

        hit = self.results.current
        paths = [one_line(p) for p in opened(self.kb).note_names()]  # a file name is shown: never raw escapes
        dialog = NameDialog(f"Where does a note rank for {one_line(query)[:60]!r}? Its path:",
                            _note_of(hit) if hit is not None else "", title="Explain a note",
                            placeholder="folder/note.md", ok="Explain",
                            suggester=SuggestFromList(paths, case_sensitive=False))

        def explain_chosen(note: str | None) -> None:
            if note:
                self.explain(query, note)

        self.app.push_screen(dialog, explain_chosen)

    def explain(self, query: str, note: str) -> None:
        hit = self.results.current
        self._explained = Explained(query, note, hit.chunk_id if hit is not None else None)
        if not self.evidence_shown:
            self.evidence_shown = True
        self.explain_worker(query, note)

    @work(thread=True, exclusive=True, group="explain", exit_on_error=False)
    def explain_worker(self, query: str, note: str) -> None:
        try:
            # as the search it explains ran: its last word a prefix only while being typed
            lines = opened(self.kb).explain(query, note, vector=self.vector_ready, typing=self.searcher.shown_typing).lines()
        except Exception as exc:  # noqa: BLE001
            lines = [sentence(exc)]
        self.app.call_from_thread(self._show_explanation, query, note, lines)

    @while_running
    def _show_explanation(self, query: str, note: str, lines) -> None:
        if self._explained and (self._explained.query, self._explained.note) == (query, note):
            self.evidence.show_lines(f"Explain: {note}", lines)

    # -- history ----------------------------------------------------------------------------
    def remember_query(self) -> None:
        """The current query was acted on (a hit opened, copied or read): keep it."""
        query = self.search_bar.value
        if self.query_history is not None and query.strip() and self.searcher.last_result is not None:
            self.query_history.add(query)

    def _remember_read(self) -> None:
        """A hit read for a while: keep the query, unless the history itself brought it back
        (merely looking at a recalled query would move it to the newest, under the user)."""
        if not self._recalled():
            self.remember_query()

    def _recalled(self) -> bool:
        walk = self._walk
        return walk is not None and walk.pos >= 0 and self.search_bar.value == walk.shown

    def time_reading(self, hit) -> None:
        """A hit highlighted for READ_SECONDS counts as read."""
        if self._read_timer is not None:
            self._read_timer.stop()
            self._read_timer = None
        if hit is not None and self.searcher.last_result is not None:
            self._read_timer = self.set_timer(READ_SECONDS, self._remember_read, name="read-timer")

    def action_history_back(self) -> None:
        self.recall(+1)

    def action_history_forward(self) -> None:
        self.recall(-1)

    def recall(self, step: int) -> None:
        """An older (+1) or newer (-1) query from the history into the search bar."""
        if self.query_history is None:
            return
        bar = self.search_bar.value
        walk = self._walk
        if walk is None or bar != walk.shown:  # a new walk: from the query in the bar now
            draft = clean_query(bar)
            entries = [e for e in self.query_history.recent() if e != draft]  # the first ctrl+up goes back
            walk = self._walk = HistoryWalk(entries, bar, shown=bar)
        if not walk.entries:
            self._walk = None
            self.notify("No other query in the history yet: queries enter it when a result is opened, "
                        "copied or read.", timeout=4)
            return
        walk.pos = max(-1, min(walk.pos + step, len(walk.entries) - 1))
        walk.shown = walk.draft if walk.pos < 0 else walk.entries[walk.pos]
        self.set_query(walk.shown, keep_position=True)

    def set_query(self, query: str, *, keep_position: bool = False) -> None:
        bar = self.search_bar
        bar.value = query
        bar.cursor_position = len(query)
        bar.focus()
        if not keep_position:
            self._walk = None

    # -- saved searches ---------------------------------------------------------------------
    def action_save_search(self) -> None:
        query = self.search_bar.value.strip()
        if not query or self.query_history is None:
            self.notify("Type a query to save first.", severity="warning")
            return
        from ..dialogs.name import NameDialog

        history = self.query_history

        def saved(name: str | None) -> None:
            if name is None:
                return
            hits: list[Hit] = list(self.searcher.last_result or [])
            history.save(name, query, fingerprint(self._notes_of(hits)))
            self.notify(f"Saved the search {name!r}; run it from the command palette.", timeout=4)

        self.app.push_screen(NameDialog("Save this search as", query[:40]), saved)

    @staticmethod
    def _notes_of(hits) -> list[str]:
        return [f"{g[0].collection}/{g[0].relpath}" for g in group(list(hits)[:SAVED_CHECK_K * 3])][:SAVED_CHECK_K]

    def run_saved(self, name: str) -> None:
        item = self.query_history.get(name) if self.query_history else None
        if item is None:
            return
        self._pending_saved = name
        self.set_query(item.query)
        self.request_search(immediate=True)

    def saved_seen(self, message: Searcher.ResultsReady) -> None:
        """A saved search's results were shown: they are its new baseline."""
        result = message.result
        if result is None:
            return
        name, self._pending_saved = self._pending_saved, None
        if name and self.query_history is not None:
            self.query_history.seen(name, fingerprint(self._notes_of(result)))

    @work(thread=True, exclusive=True, group="saved-check", exit_on_error=False)
    def recheck_saved(self) -> None:
        """After a sync: say which saved searches now find other notes."""
        history = self.query_history
        if history is None or not history.saved_items():
            return

        def run(query: str) -> str:
            result = opened(self.kb).search(query, k=SAVED_CHECK_K * 3, vector=self.vector_ready)
            return fingerprint(self._notes_of(result))

        changed = history.recheck(run)
        if changed:
            names = ", ".join(repr(n) for n in changed)
            self.app.call_from_thread(
                self.notify, f"Saved search {names} has changed results since you last ran it.", timeout=8
            )

    def query_commands(self) -> list:
        commands = [
            ("View: one row per note" if self.view == "passages" else "View: every passage",
             self.action_toggle_view, "Toggle notes / passages (remembered)"),
            (f"Sort: {'by date modified' if self.sort == 'relevance' else 'by relevance'}",
             self.action_toggle_sort, "Relevance or most recently modified first"),
            ("Evidence panel: show / hide", self.action_toggle_evidence, "Why the highlighted hit ranks there"),
            ("Explain the highlighted note's rank", self.action_explain_note,
             "Its rank in each lane and the words it lacks"),
            ("Explain any note's rank…", self.action_explain_any_note,
             "Where a note you expected ranks for this query, and why"),
            ("Save this search…", self.action_save_search, "Run it again later from the palette"),
        ]
        if self.query_history is not None:
            for item in self.query_history.saved_items():
                mark = " (changed)" if item.changed else ""
                commands.append((f"Saved: {item.name}{mark}", partial(self.run_saved, item.name), item.query))
            for query in self.query_history.recent(HISTORY_PALETTE):
                commands.append((f"History: {query}", partial(self.set_query, query), "Search again"))
        return commands


def _note_of(hit) -> str:
    return f"{hit.collection}/{hit.relpath}"
