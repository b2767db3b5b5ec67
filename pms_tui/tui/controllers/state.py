"""The search screen's state, declared in one place as Textual reactives, and what every
part of the screen shares: the knowledge base, the panes, the collections and the counts.

Each reactive below has one owner, the part of the screen named beside it, which alone
sets it; the others read it. The status line is not told anything: ``status_shown`` is
computed from these reactives and bound to the status line's own ``status`` reactive
(``data_bind`` in ``SearchScreen.compose``), so a change of mode, view, sync progress or
answer reaches it by itself; watchers carry the rest (a panel shown, the progress bar).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.reactive import var
from textual.screen import Screen

from pms_tui.core.errors import describe
from pms_tui.core.results import ModelState, VectorOut

from ..keys import bound_key
from ..sample import is_sample_path
from ..widgets.evidence import EvidencePanel
from ..widgets.links_panel import LinksPanel
from ..widgets.query_bits import FilterChips
from ..widgets.reader import Reader
from ..widgets.results import ResultsList
from ..widgets.search_bar import SearchBar
from ..widgets.status import Status, StatusLine

if TYPE_CHECKING:
    from pms_tui.core.kb import KnowledgeBase

STOPPING = "stopping…"  # the sync's words while a stopped sync finishes its note

# what the status line says of the model, by ``model_state``
MODEL_WORDS = {ModelState.NOT_LOADED: "loading", ModelState.LOADING: "loading", ModelState.READY: "ready",
               ModelState.ERROR: "error (keywords only)", ModelState.MISMATCH: "mismatch: reindex",
               None: "unavailable"}  # None: no knowledge base to search


@dataclass(frozen=True)
class Counts:
    """What is indexed: notes, chunks, vectors waiting to be embedded."""

    documents: int = 0
    chunks: int = 0
    pending: int = 0


@dataclass(frozen=True)
class Answer:
    """How the shown search was answered (what the status line says of it)."""

    lanes: tuple[str, ...] = ()
    hits: int | None = None
    elapsed_ms: float | None = None
    recent: bool = False
    ignored: tuple[str, ...] = ()
    weak: bool = False
    notes: tuple[str, ...] = ()
    vector_out: VectorOut | None = None


class SearchState(Screen[None]):
    """The state of the search screen; the screen's parts subclass it."""

    # the state                                          its owner (who sets it)
    mode = var("hybrid")                                 # search: set_mode
    collection_filter: var[str | None] = var(None)       # search: set_collection_filter, refresh_collections
    aside = var("")                                      # refresh_collections: the guide, when it steps aside
    model_state: var[ModelState | None] = var(ModelState.LOADING)  # search: the model's worker, its messages
    counts = var(Counts())                               # refresh_stats, below
    answer = var(Answer())                               # search_runs: a search shown
    view = var("notes", init=False)                      # controllers.query: notes or passages
    sort = var("relevance", init=False)                  # controllers.query
    evidence_shown = var(False, init=False)              # controllers.query: the evidence panel
    links_shown = var(False, init=False)                 # controllers.links: the links panel
    sync_words = var("")                                 # controllers.sync: the running sync
    text_words = var("")                                 # controllers.sync: text syncs beside it
    watch_words = var("")                                # controllers.sync: how watch mode watches
    clipping = var(False)                                # controllers.clip: a page being clipped
    # computed from the above: what the status line shows, and whether its progress bar is
    status_shown = var(Status())
    progress_shown = var(False)

    kb: KnowledgeBase | None
    keymap: Mapping[str, str]
    collection_names: list[str]
    has_sample_collection: bool
    read_clipboard: bool

    def compute_status_shown(self) -> Status:
        counts, answer = self.counts, self.answer
        sync = " · ".join(words for words in (self.sync_words, self.text_words) if words)
        return Status(documents=counts.documents, chunks=counts.chunks, pending=counts.pending,
                      model=MODEL_WORDS[self.model_state], model_state=self.model_state, sync=sync or "idle",
                      watch=self.watch_words, clip="clipping…" if self.clipping else "", mode=self.mode,
                      collection=self.collection_filter, aside=self.aside, view=self.view, sort=self.sort,
                      lanes=answer.lanes, hits=answer.hits, elapsed_ms=answer.elapsed_ms, recent=answer.recent,
                      ignored=answer.ignored, weak=answer.weak, notes=answer.notes, vector_out=answer.vector_out)

    def compute_progress_shown(self) -> bool:
        return bool(self.sync_words or self.text_words) and self.sync_words != STOPPING

    def watch_progress_shown(self, shown: bool) -> None:
        if self.is_mounted:
            self.status.set_class(shown, "-syncing")

    # -- the panes --------------------------------------------------------------------------------
    @property
    def search_bar(self) -> SearchBar:
        return self.query_one("#search", SearchBar)

    @property
    def results(self) -> ResultsList:
        return self.query_one("#results", ResultsList)

    @property
    def reader(self) -> Reader:
        return self.query_one("#reader", Reader)

    @property
    def status(self) -> StatusLine:
        return self.query_one("#status", StatusLine)

    @property
    def chips(self) -> FilterChips:
        return self.query_one("#chips", FilterChips)

    @property
    def evidence(self) -> EvidencePanel:
        return self.query_one("#evidence", EvidencePanel)

    @property
    def links_panel(self) -> LinksPanel:
        return self.query_one("#links", LinksPanel)

    def key(self, binding_id: str) -> str:
        """The key bound to ``binding_id`` now (remaps applied), for hints."""
        return bound_key(binding_id, self.keymap, self.app.COMMAND_PALETTE_BINDING)

    @property
    def vector_ready(self) -> bool:
        """The vector lane can answer (the engine's word: the model is loaded)."""
        return bool(self.kb and self.kb.model_ready)

    # -- what is indexed --------------------------------------------------------------------------
    def refresh_collections(self) -> None:
        if self.kb is None:
            return
        try:
            collections = self.kb.collections.list()
        except Exception as exc:  # noqa: BLE001
            self.notify(describe(exc), severity="error")
            return
        self.collection_names = [c.name for c in collections]
        self.has_sample_collection = any(is_sample_path(c.path) for c in collections)
        guide = self.kb.guide_aside()
        self.aside = guide.name if guide is not None else ""
        notice = self.kb.guide_notice()  # the guide steps aside: said once, here or by the CLI
        if notice:
            self.notify(notice, title="Your notes first", timeout=12)
        if self.collection_filter and self.collection_filter not in self.collection_names:
            self.collection_filter = None

    def refresh_stats(self) -> None:
        if self.kb is None:
            return
        try:
            stats = self.kb.stats()
        except Exception as exc:  # noqa: BLE001
            self.notify(describe(exc), severity="error")
            return
        self.counts = Counts(stats["documents"], stats["chunks"], stats["vectors_pending"])

