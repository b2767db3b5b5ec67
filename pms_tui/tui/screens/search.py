"""The search screen: search bar, results, reader and status line, with their keys.

It searches as you type (:mod:`.search_runs`) and holds the model, the mode and the
collection filter.
The rest belongs to the controller objects it owns (:mod:`pms_tui.tui.controllers`), each with
its state declared: ``queries``, ``notes``, ``syncing``, ``clips`` and ``links``; the screen
keeps the key actions and message handlers, where Textual looks for them, and hands them on.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Input, Markdown
from textual.worker import Worker, WorkerState

from pms_tui.core.errors import PmsError, describe
from pms_tui.core.results import MODES, Hit, Link, ModelState
from pms_tui.core.safe_text import one_line

from ..commands import ScreenCommands
from ..controllers import opened, while_running
from ..controllers.clip import ClipController
from ..controllers.links import LinksController
from ..controllers.notes import NoteController
from ..controllers.query import QueryController
from ..controllers.sync import SyncController
from ..keys import SEARCH_BINDINGS, bound_key
from ..messages import (
    ClipFailed,
    ClipFinished,
    CollectionAdded,
    CollectionRefused,
    ModelFailed,
    ModelLoaded,
    SyncFailed,
    SyncFinished,
    SyncProgressed,
    TextSynced,
    WatchModeChanged,
)
from ..sample import is_sample_path
from ..widgets.evidence import EvidencePanel
from ..widgets.links_panel import LinksPanel
from ..widgets.query_bits import FilterChips, QuerySuggester
from ..widgets.reader import Reader
from ..widgets.results import ResultsList
from ..widgets.search_bar import SearchBar, search_placeholder
from ..widgets.status import StatusLine
from .search_palette import palette_commands
from .search_runs import SearchRuns

if TYPE_CHECKING:
    from pms_tui.core.kb import KnowledgeBase

    from ..dialogs.add_collection import AddCollectionRequest


def welcome_text(key: Callable[[str], str]) -> str:
    """What the reader shows before a hit is highlighted; ``key(binding_id)`` names the keys."""
    return f"""\
Type in the search bar: results appear as you type.

- **↑ ↓** move through the results; this pane follows
- **{key("app.toggle_document")}** shows the whole note, **{key("app.open_editor")}** opens it in your editor
- **{key("app.cycle_mode")}** changes the mode, **{key("app.cycle_collection")}** the collection filter
- **{key("app.help")}** lists every key, **{key("command_palette")}** every command
"""


class ReaderLinks:
    """What the reader renders a note's links with (widgets.obsidian.ReaderLinks): the links
    controller's list of the note's links, as the index resolved them."""

    def __init__(self, controller: LinksController) -> None:
        self.controller = controller

    def note_shown(self, hit: Hit, text: str, first_line: int) -> str:
        """The reader is about to render ``text`` of ``hit``'s note: its links are loaded."""
        self.controller.note_shown(hit)
        return text

    def links(self) -> list[Link]:
        return [link for found in self.controller.links_by_line.values() for link in found]

    def href(self, link: Link) -> str:
        return self.controller.href(link)

    def passage(self, link: Link) -> str:
        kb = self.controller.kb
        try:
            return one_line(kb.passage(link, 300)) if kb is not None else ""
        except PmsError:  # (its collection just removed): the embed shows without its passage
            return ""


class SearchScreen(SearchRuns, Screen[None]):
    """``SearchScreen(kb, keymap=...)``; ``kb`` is None when the index could not be opened."""

    BINDINGS = [*SEARCH_BINDINGS]  # a list of Textual's wider BindingType
    # below 150 columns the links panel takes the results' place (app.tcss): results, reader
    # and panel side by side would leave the reader too narrow to read (or no room at all)
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-medium"), (150, "-wide")]
    COMMANDS = {ScreenCommands}

    def __init__(self, kb: KnowledgeBase | None, *, keymap: Mapping[str, str] | None = None, show_timings: bool = True,
                 load_model: bool = True, first_run_sample: bool = True, read_clipboard: bool = True) -> None:
        super().__init__()
        self.kb: KnowledgeBase | None = kb
        self.keymap = keymap if keymap is not None else {}
        self.show_timings = show_timings
        self.load_model_at_start = load_model
        self.first_run_sample = first_run_sample
        self.read_clipboard = read_clipboard
        self.mode = "hybrid"
        self.collection_filter: str | None = None
        self.collection_names: list[str] = []
        self.has_sample_collection = False
        self.model_state = "loading"
        self.init_search_runs()
        # the controllers: each owns its state and reaches this screen through controllers.Host
        self.queries = QueryController(self)
        self.notes = NoteController(self)
        self.syncing = SyncController(self)
        self.clips = ClipController(self)
        self.links = LinksController(self)

    def key(self, binding_id: str) -> str:
        """The key bound to ``binding_id`` now (remaps applied), for hints."""
        return bound_key(binding_id, self.keymap, self.app.COMMAND_PALETTE_BINDING)

    def compose(self) -> ComposeResult:
        yield SearchBar(placeholder=search_placeholder(self.key), suggester=QuerySuggester(self.queries.facet_choices),
                        id="search")
        yield FilterChips(id="chips")
        with Horizontal(id="panes"):
            yield ResultsList(id="results")
            links = ReaderLinks(self.links)
            yield Reader(empty_text=welcome_text(self.key), decorate=links.note_shown, links=links, id="reader")
            yield LinksPanel(id="links")
        yield EvidencePanel(id="evidence")
        yield StatusLine(show_timings=self.show_timings, id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.search_bar.focus()
        self.call_after_refresh(self._first_screen_shown)
        if self.kb is None:
            self.status.update_status(model="unavailable")
            return
        self.refresh_collections()
        self.refresh_stats()
        self.queries.mount()
        if self.kb.model_mismatch:
            self.model_state = "mismatch"
            self.status.update_status(model="mismatch: reindex", model_state=ModelState.MISMATCH)
            self.notify(self.kb.model_mismatch, severity="warning", timeout=15)
        self.request_search(immediate=True)
        if self.first_run_sample and not self.collection_names and not self.syncing.sample_offered():
            self.syncing.add_sample(first_run=True)
        elif not self.kb.model_mismatch and self.kb.vectors_pending:
            self.start_sync(embed_only=True, quiet=True)  # vectors left by a quit, crash or kill
        if self.kb.settings.watch:
            self.syncing.start_watch()

    def _first_screen_shown(self) -> None:
        if self.kb is not None and self.load_model_at_start and not self.kb.model_mismatch:
            self.load_model()

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
        notice = self.kb.guide_notice()  # the guide steps aside: said once, here or by the CLI
        if notice:
            self.notify(notice, title="Your notes first", timeout=12)
        if self.collection_filter and self.collection_filter not in self.collection_names:
            self.collection_filter = None
            self.status.update_status(collection=None)

    def refresh_stats(self) -> None:
        if self.kb is None:
            return
        try:
            stats = self.kb.stats()
        except Exception as exc:  # noqa: BLE001
            self.notify(describe(exc), severity="error")
            return
        self.status.update_status(documents=stats["documents"], chunks=stats["chunks"],
                                  pending=stats["vectors_pending"])

    # -- model ------------------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="model", exit_on_error=False)
    def load_model(self) -> None:
        started = time.perf_counter()
        try:
            opened(self.kb).load_model(serve_queries=True)  # one-shot `pms-tui search`es of this home ask it
        except Exception as exc:  # noqa: BLE001 - EmbeddingModelError and whatever onnx raises
            self.post_message(ModelFailed(describe(exc)))
            return
        self.post_message(ModelLoaded(time.perf_counter() - started))

    @while_running
    def on_model_loaded(self, message: ModelLoaded) -> None:
        self.model_state = "ready"
        self.status.update_status(model="ready")
        if self.mode != "bm25" and self.search_bar.value.strip():
            self.request_search(immediate=True)  # the vector ranks fill in

    @while_running
    def on_model_failed(self, message: ModelFailed) -> None:
        self.model_state = "error"
        self.status.update_status(model="error (keywords only)")
        self.notify(f"{message.reason} Search falls back to keywords (bm25).", severity="error", timeout=15)

    @property
    def vector_ready(self) -> bool:
        return bool(self.kb and self.kb.model_ready)

    # -- search -----------------------------------------------------------------------------------
    @on(Input.Changed, "#search")
    def _query_changed(self, event: Input.Changed) -> None:
        self.request_search()

    @on(Input.Submitted, "#search")
    def _query_submitted(self, event: Input.Submitted) -> None:
        if self.results.hits:
            self.results.focus()

    # -- moving through the results ---------------------------------------------------------------
    @while_running
    def on_results_list_hit_highlighted(self, message: ResultsList.HitHighlighted) -> None:
        self.links.show_result(message.hit, self._shown_query)
        self.queries.show_evidence(message.hit)
        self.queries.watch_reading(message.hit)

    @while_running
    def on_results_list_hit_chosen(self, message: ResultsList.HitChosen) -> None:
        self.remember_query()
        self.query_one("#reader-scroll").focus()

    def action_select_next(self) -> None:
        self.results.action_cursor_down()

    def action_select_previous(self) -> None:
        self.results.action_cursor_up()

    def action_select_page_down(self) -> None:
        self.results.action_page_down()

    def action_select_page_up(self) -> None:
        self.results.action_page_up()

    def action_clear(self) -> None:
        if self.focused is not self.search_bar:
            self.search_bar.focus()
        elif self.search_bar.value:
            self.search_bar.value = ""

    # -- the link graph (controllers.links) -------------------------------------------------------
    def action_links(self, what: str) -> None:
        self.links.act(what)  # f6: the links panel; alt+left / alt+right: back / forward

    def on_links_panel_entry_chosen(self, message: LinksPanel.EntryChosen) -> None:
        self.links.open(message.entry)

    def on_markdown_link_clicked(self, message: Markdown.LinkClicked) -> None:
        if self.links.follow_href(message.href):
            message.stop()

    def on_reader_hit_shown(self, message: Reader.HitShown) -> None:
        self.links.shown(message.painted_at)

    # -- modes and filters ------------------------------------------------------------------------
    def set_mode(self, mode: str) -> None:
        if mode not in MODES:
            return
        self.mode = mode
        self.status.update_status(mode=mode)
        if mode != "bm25" and not self.vector_ready and self.model_state in ("loading",):
            self.notify("The embedding model is still loading; vector ranks follow when it is ready.",
                        timeout=4)
        self.request_search(immediate=True)

    def action_cycle_mode(self) -> None:
        self.set_mode(MODES[(MODES.index(self.mode) + 1) % len(MODES)])

    def set_collection_filter(self, name: str | None) -> None:
        self.refresh_collections()
        if name is not None and name not in self.collection_names:
            self.notify(f"There is no collection named {name!r}.", severity="warning")
            return
        self.collection_filter = name
        self.status.update_status(collection=name)
        self.request_search(immediate=True)

    def action_cycle_collection(self) -> None:
        self.refresh_collections()
        choices: list[str | None] = [None, *self.collection_names]
        current = choices.index(self.collection_filter) if self.collection_filter in choices else 0
        self.set_collection_filter(choices[(current + 1) % len(choices)])

    # -- what the controllers ask of each other (controllers.Host) ------------------------------------
    def remember_query(self) -> None:
        self.queries.remember()

    def start_sync(self, collections: Sequence[str] | None = None, quiet: bool = False,
                   embed_only: bool = False) -> None:
        self.syncing.start_sync(collections, quiet, embed_only)

    def stop_sync(self) -> None:
        """On quit: stop the running sync and watching."""
        self.syncing.stop_sync()

    @property
    def sync_running(self) -> bool:
        return self.syncing.sync_running

    def index_changed(self) -> None:
        self.queries.index_changed()

    # -- keys and messages, handed to the controller that owns them ---------------------------------
    def action_sync(self) -> None:
        self.syncing.start_sync()

    def action_stop_sync(self) -> None:
        self.syncing.stop_running_sync()

    def action_add_sample(self, first_run: bool = False) -> None:
        self.syncing.add_sample(first_run)

    def action_add_collection(self, request: AddCollectionRequest | None = None, error: str = "") -> None:
        self.syncing.ask_for_collection(request, error)

    def action_clip(self) -> None:
        self.clips.open_dialog()

    def action_toggle_document(self) -> None:
        self.notes.toggle_document()

    def action_open_editor(self) -> None:
        self.notes.open_editor()

    def action_copy_chunk(self) -> None:
        self.notes.copy_chunk()

    def action_copy_path(self) -> None:
        self.notes.copy_path()

    def action_toggle_view(self) -> None:
        self.queries.toggle_view()

    def action_toggle_sort(self) -> None:
        self.queries.toggle_sort()

    def action_toggle_evidence(self) -> None:
        self.queries.toggle_evidence()

    def action_explain_note(self) -> None:
        self.queries.explain_note()

    def action_explain_any_note(self) -> None:
        self.queries.explain_any_note()

    def action_history_back(self) -> None:
        self.queries.recall(+1)

    def action_history_forward(self) -> None:
        self.queries.recall(-1)

    def action_save_search(self) -> None:
        self.queries.save_search()

    def on_sync_progressed(self, message: SyncProgressed) -> None:
        self.syncing.progressed(message)

    def on_sync_finished(self, message: SyncFinished) -> None:
        self.syncing.finished(message)

    def on_watch_mode_changed(self, message: WatchModeChanged) -> None:
        self.syncing.watch_mode_changed(message)

    def on_sync_failed(self, message: SyncFailed) -> None:
        self.syncing.failed(message)

    def on_text_synced(self, message: TextSynced) -> None:
        self.syncing.text_synced(message)

    def on_collection_added(self, message: CollectionAdded) -> None:
        self.syncing.collection_added(message)

    def on_collection_refused(self, message: CollectionRefused) -> None:
        self.syncing.collection_refused(message)

    def on_clip_finished(self, message: ClipFinished) -> None:
        self.clips.finished(message)

    def on_clip_failed(self, message: ClipFailed) -> None:
        self.clips.failed(message)

    palette_commands = palette_commands  # what ctrl+p offers here (see tui.commands)

    # -- workers ending: the next queued sync, and the last line of defence -----------------------
    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "sync" and event.state in (WorkerState.SUCCESS, WorkerState.ERROR,
                                                            WorkerState.CANCELLED):
            self.syncing.sync_ended()  # folders added while it ran
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            self.notify(f"{event.worker.name} failed: {describe(event.worker.error)}", severity="error")
