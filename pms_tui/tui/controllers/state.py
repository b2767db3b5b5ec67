"""The search screen's state, declared in one place as Textual reactives, and what the
screen's handlers share: the knowledge base, the panes, the collections and the counts.

Each reactive below is set in one place, named beside it: a key's action, or the handler of
the part's message that carries it (below: the syncer's progress, the clipper's stage). The
status line is not told anything: each of its fields is bound to the reactive here that it
shows (``data_bind`` in ``SearchScreen.compose``), so a change of mode, view, sync progress
or answer reaches it by itself, as a typed value (no text is parsed back).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from textual import work
from textual.reactive import var
from textual.screen import Screen

from pms_tui.core.errors import describe
from pms_tui.core.results import ModelState

from ..keys import bound_key
from ..messages import IndexChanged
from ..sample import is_sample_path
from ..widgets.evidence import EvidencePanel
from ..widgets.links_panel import LinksPanel
from ..widgets.query_bits import FilterChips
from ..widgets.reader import Reader
from ..widgets.results import ResultsList
from ..widgets.search_bar import SearchBar
from ..widgets.status import Answer, Clipping, Counts, Progress, StatusLine
from . import while_running
from .search_runs import SearchRequest

if TYPE_CHECKING:
    from pms_tui.core.kb import KnowledgeBase

    from .clip import Clipper
    from .search_runs import Searcher
    from .sync import Syncer

INDEX_POLL_SECONDS = 2.0  # how soon the counts follow a change made by another process

class SearchState(Screen[None]):
    """The state of the search screen; the screen's parts subclass it."""

    # the state                                          who sets it
    mode = var("hybrid")                                 # screen: set_mode
    collection_filter: var[str | None] = var(None)       # screen: set_collection_filter, refresh_collections
    aside = var("")                                      # refresh_collections: the guide, when it steps aside
    model_state: var[ModelState | None] = var(ModelState.LOADING)  # screen: ModelLoader's messages
    counts = var(Counts())                               # refresh_stats, below
    answer = var(Answer())                               # search_runs: a search shown
    view = var("notes", init=False)                      # screen: its key (notes or passages)
    sort = var("relevance", init=False)                  # screen: its key
    evidence_shown = var(False, init=False)              # screen: its key, an explanation shown
    links_shown = var(False, init=False)                 # screen: its key, the panel chosen from
    sync_progress: var[Progress | None] = var(None)      # Syncer.Progressed, Finished, Failed (below)
    text_progress: var[Progress | None] = var(None)      # Syncer.Progressed of a text sync, TextSynced
    watch_words = var("")                                # Syncer.WatchModeChanged
    clipping: var[Clipping | None] = var(None)           # Clipper.Progressed, and how the clip ended

    kb: KnowledgeBase | None
    keymap: Mapping[str, str]
    searcher: Searcher
    syncer: Syncer
    clipper: Clipper
    collection_names: list[str]
    has_sample_collection: bool

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

    def request_search(self, immediate: bool = False) -> None:
        """Search the query in the bar, as the mode, the filter and the view say (after the
        debounce delay, or now); the searcher runs it."""
        collections = (self.collection_filter,) if self.collection_filter else None
        self.searcher.request(SearchRequest(self.search_bar.value, self.mode, collections, self.view), immediate)

    def key(self, binding_id: str) -> str:
        """The key bound to ``binding_id`` now (remaps applied), for hints."""
        return bound_key(binding_id, self.keymap, self.app.COMMAND_PALETTE_BINDING)

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
        guide = self.kb.scope.guide_aside()
        self.aside = guide.name if guide is not None else ""
        notice = self.kb.scope.guide_notice()  # the guide steps aside: said once, here or by the CLI
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

    # -- what other processes change --------------------------------------------------------------
    def follow_the_index(self) -> None:
        """Poll the index's data version (``kb.index.data_version``: one pragma) every
        ``INDEX_POLL_SECONDS``; when another process changed it (a CLI sync or clip, a new
        collection), the counts follow, and the collections when their number changed. The
        app's own syncs and clips refresh both when they finish, as before."""
        try:
            self._data_version: int | None = self.kb.index.data_version() if self.kb is not None else None
        except Exception:  # noqa: BLE001 - the first poll takes it
            self._data_version = None
        self.set_interval(INDEX_POLL_SECONDS, self._poll_index, name="index-poll")

    @work(thread=True, exclusive=True, group="index-poll", exit_on_error=False)
    def _poll_index(self) -> None:
        kb = self.kb
        if kb is None:
            return
        try:
            version = kb.index.data_version()
            if version == self._data_version:
                return
            stats = kb.stats()
        except Exception:  # noqa: BLE001 - a busy or closing index: the next poll tries again
            return
        self._data_version = version
        self.app.call_from_thread(self._index_moved, stats)

    def _index_moved(self, stats: dict) -> None:
        if not self.is_attached:
            return
        self.counts = Counts(stats["documents"], stats["chunks"], stats["vectors_pending"])
        if stats["collections"] != len(self.collection_names):
            self.refresh_collections()
        self.post_message(IndexChanged())  # completion values, saved searches, a search waiting for vectors

    # -- what the parts post, into the state above ------------------------------------------------
    @while_running
    def on_syncer_collection_added(self, message: Syncer.CollectionAdded) -> None:
        self.refresh_collections()

    @while_running
    def on_syncer_progressed(self, message: Syncer.Progressed) -> None:
        if message.progress.of:
            self.text_progress = message.progress
        else:
            self.sync_progress = message.progress

    @while_running
    def on_syncer_text_written(self, message: Syncer.TextWritten) -> None:
        self.refresh_stats()
        self.request_search(immediate=True)  # the new notes, by their words

    @while_running
    def on_syncer_text_synced(self, message: Syncer.TextSynced) -> None:
        self.text_progress = None
        if message.report is not None:
            self._index_synced(message.report.changed)

    @while_running
    def on_syncer_finished(self, message: Syncer.Finished) -> None:
        self.sync_progress = None
        self._index_synced(message.report.changed or bool(message.report.chunks_embedded))

    def _index_synced(self, changed: bool) -> None:
        self.refresh_collections()
        self.refresh_stats()
        if changed:
            self.reader.refresh_view()
            self.request_search(immediate=True)
            self.post_message(IndexChanged())  # saved searches, completion values (controllers.query)

    @while_running
    def on_syncer_failed(self, message: Syncer.Failed) -> None:
        self.sync_progress = None

    @while_running
    def on_syncer_watch_mode_changed(self, message: Syncer.WatchModeChanged) -> None:
        self.watch_words = message.mode

    @while_running
    def on_clipper_progressed(self, message: Clipper.Progressed) -> None:
        self.clipping = message.clipping

    @while_running
    def on_clipper_clip_finished(self, message: Clipper.ClipFinished) -> None:
        self.clipping = None
        if message.result.status != "duplicate":
            self.refresh_collections()
            self.refresh_stats()
            self.request_search(immediate=True)

    @while_running
    def on_clipper_clip_failed(self, message: Clipper.ClipFailed) -> None:
        self.clipping = None

    @while_running
    def on_clipper_clip_stopped(self, message: Clipper.ClipStopped) -> None:
        self.clipping = None
