"""The screen's explainer: why the highlighted hit ranks where it does (the evidence panel)
and where any note ranks for the query, lane by lane, read in workers of their own.

It keeps the note explained, so that the explanation stays until another hit or query; the
screen shows what it posts (``Explainer.EvidenceReady``, ``Explainer.ExplanationReady``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import work
from textual.message import Message
from textual.worker import Worker, WorkerState

from pms_tui.core.errors import describe
from pms_tui.core.safe_text import one_line

from ..hit_place import place
from . import Part, opened

if TYPE_CHECKING:
    from pms_tui.core.results import Hit, SearchResult

NO_HIT = ["Select a search result to see why it ranks where it does."]


@dataclass(frozen=True)
class Explained:
    """A note explained in the evidence panel: for which query, and which hit was highlighted."""

    query: str
    note: str  # "collection/relpath"
    chunk_id: int | None


class Explainer(Part):
    """The evidence of the highlighted hit, and the explanation of a note's rank."""

    class EvidenceReady(Message):
        """Why ``hit`` ranks where it does (None: no hit to explain, ``lines`` say so)."""

        def __init__(self, hit: Hit | None, title: str, lines: list[str]) -> None:
            super().__init__()
            self.hit = hit
            self.title = title
            self.lines = lines

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, Explainer.EvidenceReady)

    class ExplanationReady(Message):
        """Where a note ranks for the query, lane by lane."""

        def __init__(self, title: str, lines: list[str]) -> None:
            super().__init__()
            self.title = title
            self.lines = lines

    def __init__(self, kb, keymap=None, **kwargs) -> None:
        super().__init__(kb, keymap, **kwargs)
        self._explained: Explained | None = None

    def show_evidence(self, hit: Hit | None, query: str, result: SearchResult | None, shown: bool) -> None:
        """``hit`` is highlighted for ``query`` (its search's ``result``); ``shown``: the panel is."""
        if self._explained and self._explained.query != query:
            self._explained = None  # a new query: the explanation was of the old one
        if self._explained and self._explained.chunk_id != (hit.chunk_id if hit is not None else None):
            self._explained = None  # another hit highlighted
        if not shown or self._explained:
            return  # the explanation stays until another hit or query
        if hit is None or result is None:
            self.post_message(self.EvidenceReady(None, "Evidence", NO_HIT))
            return
        self.evidence_worker(result, hit)

    @work(thread=True, exclusive=True, group="evidence", exit_on_error=False)
    def evidence_worker(self, result: SearchResult, hit: Hit) -> tuple[Hit, str, list[str]]:
        try:
            lines = opened(self.kb).searcher.evidence(result, hit).lines()
        except Exception as exc:  # noqa: BLE001
            lines = [describe(exc)]
        rank = next((i for i, h in enumerate(result, 1) if h.chunk_id == hit.chunk_id), 0)
        return hit, f"Why passage #{rank}: {place(hit)}", lines

    def ask_note(self, query: str, current: Hit | None, typing: bool) -> None:
        """Ask for any indexed note (completed as typed) and explain its rank for ``query``:
        the question "why is the note I expected missing?"."""
        if not query.strip():
            self.notify("Type a query first, then ask where a note ranks for it.", severity="warning")
            return
        from textual.suggester import SuggestFromList

        from ..dialogs.name import NameDialog

        paths = [one_line(p) for p in opened(self.kb).notes.note_names()]  # a file name is shown: never raw escapes
        dialog = NameDialog(f"Where does a note rank for {one_line(query)[:60]!r}? Its path:",
                            current.id if current is not None else "",
                            title="Explain a note", placeholder="folder/note.md", ok="Explain",
                            suggester=SuggestFromList(paths, case_sensitive=False))
        self.app.push_screen(dialog, lambda note: self.explain(query, note, current, typing) if note else None)

    def explain(self, query: str, note: str, current: Hit | None, typing: bool) -> None:
        """Where ``note`` ranks for ``query`` (``current``: the hit highlighted now; ``typing``:
        the search shown read the query's last word as a prefix, as this one will)."""
        self._explained = Explained(query, note, current.chunk_id if current is not None else None)
        self.explain_worker(query, note, typing)

    @work(thread=True, exclusive=True, group="explain", exit_on_error=False)
    def explain_worker(self, query: str, note: str, typing: bool) -> tuple[str, str, list[str]]:
        kb = opened(self.kb)
        try:
            # as the search it explains ran: its last word a prefix only while being typed
            lines = kb.searcher.explain(query, note, vector=kb.model.ready, typing=typing).lines()
        except Exception as exc:  # noqa: BLE001
            lines = [describe(exc)]
        return query, note, lines

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state != WorkerState.SUCCESS or event.worker.result is None:
            return
        if event.worker.group == "evidence" and self._explained is None:
            hit, title, lines = event.worker.result
            self.post_message(self.EvidenceReady(hit, title, lines))
        elif event.worker.group == "explain":
            query, note, lines = event.worker.result
            if self._explained and (self._explained.query, self._explained.note) == (query, note):
                self.post_message(self.ExplanationReady(f"Explain: {note}", lines))
