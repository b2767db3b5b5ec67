"""The search screen: search bar, results, reader and status line, with their keys.

It is made of parts, one per concern, each with its own actions, workers and message
handlers (:mod:`pms_tui.tui.controllers`), over the state they share, declared as reactives
in :mod:`pms_tui.tui.controllers.state`; it searches as you type (``controllers.search_runs``).
What is left here: the layout, the start, the model, the mode and the collection filter.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from textual import events, on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Input, ProgressBar
from textual.worker import Worker, WorkerState

from pms_tui.core.errors import PmsError, describe
from pms_tui.core.results import MODES, Hit, Link, ModelState
from pms_tui.core.safe_text import one_line

from ..commands import ScreenCommands
from ..controllers import opened, while_running
from ..controllers.clip import ClipPart
from ..controllers.links import LinksPart
from ..controllers.notes import NotePart
from ..controllers.query import QueryPart
from ..controllers.state import SearchState
from ..controllers.sync import SyncPart
from ..keys import SEARCH_BINDINGS
from ..messages import ModelFailed, ModelLoaded
from ..widgets.evidence import EvidencePanel
from ..widgets.footer import FittingFooter
from ..widgets.links_panel import LinksPanel
from ..widgets.query_bits import FilterChips, QuerySuggester
from ..widgets.reader import Reader
from ..widgets.results import ResultsList
from ..widgets.search_bar import SearchBar, search_placeholder
from ..widgets.status import StatusLine, StatusText
from .search_palette import palette_commands

if TYPE_CHECKING:
    from pms_tui.core.kb import KnowledgeBase


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
    """What the reader renders a note's links with (widgets.obsidian.ReaderLinks): the list of
    the note's links kept by the screen's links part, as the index resolved them."""

    def __init__(self, screen: LinksPart) -> None:
        self.screen = screen

    def note_shown(self, hit: Hit, text: str, first_line: int) -> str:
        """The reader is about to render ``text`` of ``hit``'s note: its links are loaded."""
        self.screen.links_note_shown(hit)
        return text

    def links(self) -> list[Link]:
        return [link for found in self.screen.links_by_line.values() for link in found]

    def href(self, link: Link) -> str:
        return self.screen.link_href(link)

    def passage(self, link: Link) -> str:
        kb = self.screen.kb
        try:
            return one_line(kb.graph.passage(link, 300)) if kb is not None else ""
        except PmsError:  # (its collection just removed): the embed shows without its passage
            return ""


class SearchScreen(LinksPart, QueryPart, NotePart, SyncPart, ClipPart):
    """``SearchScreen(kb, keymap=...)``; ``kb`` is None when the index could not be opened."""

    BINDINGS = [*SEARCH_BINDINGS]  # a list of Textual's wider BindingType
    # below 150 columns the links panel takes the results' place (app.tcss): results, reader
    # and panel side by side would leave the reader too narrow to read (or no room at all)
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-medium"), (150, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (32, "-tall")]
    COMMANDS = {ScreenCommands}

    def __init__(self, kb: KnowledgeBase | None, *, keymap: Mapping[str, str] | None = None, show_timings: bool = True,
                 load_model: bool = True, first_run_sample: bool = True, read_clipboard: bool = True) -> None:
        super().__init__()
        self.kb = kb
        self.keymap = keymap if keymap is not None else {}
        self.show_timings = show_timings
        self.load_model_at_start = load_model
        self.first_run_sample = first_run_sample
        self.read_clipboard = read_clipboard
        self.collection_names = []
        self.has_sample_collection = False
        # each part's own attributes (its reactives are declared in controllers.state)
        self.init_search_runs()
        self.init_queries()
        self.init_sync()
        self.init_clips()
        self.init_links()

    def compose(self) -> ComposeResult:
        yield SearchBar(placeholder=search_placeholder(self.key), suggester=QuerySuggester(self.facet_choices),
                        id="search")
        yield FilterChips(id="chips")
        with Horizontal(id="panes"):
            yield ResultsList(id="results")
            links = ReaderLinks(self)
            yield Reader(empty_text=welcome_text(self.key), decorate=links.note_shown, links=links, id="reader")
            yield LinksPanel(id="links")
        yield EvidencePanel(id="evidence")
        with StatusLine(id="status").data_bind(sync=SearchState.sync_progress, text_sync=SearchState.text_progress):
            yield StatusText(show_timings=self.show_timings, id="status-text").data_bind(
                counts=SearchState.counts, model=SearchState.model_state, sync=SearchState.sync_progress,
                text_sync=SearchState.text_progress, watching=SearchState.watch_words, clip=SearchState.clipping,
                mode=SearchState.mode, collection=SearchState.collection_filter, aside=SearchState.aside,
                view=SearchState.view, sort=SearchState.sort, answer=SearchState.answer)
            # determinate: the indeterminate bar animates at 15 frames a second, CPU taken from the model
            yield ProgressBar(total=100, show_eta=False, id="sync-progress")
        yield FittingFooter()

    def on_mount(self) -> None:
        self.search_bar.focus()
        self.call_after_refresh(self._first_screen_shown)
        if self.kb is None:
            self.model_state = None
            return
        self.refresh_collections()
        self.refresh_stats()
        self.follow_the_index()
        self.load_query_state()
        if self.kb.model.mismatch:
            self.model_state = ModelState.MISMATCH
            self.notify(self.kb.model.mismatch, severity="warning", timeout=15)
        self.request_search(immediate=True)
        if self.first_run_sample and not self.collection_names and not self.sample_offered():
            self.action_add_sample(first_run=True)
        elif not self.kb.model.mismatch and self.kb.index.vectors_pending:
            self.start_sync(embed_only=True, quiet=True)  # vectors left by a quit, crash or kill
        if self.kb.settings.watch:
            self.start_watch()

    def _first_screen_shown(self) -> None:
        if self.kb is not None and self.load_model_at_start and not self.kb.model.mismatch:
            self.load_model()

    # -- model ------------------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="model", exit_on_error=False)
    def load_model(self) -> None:
        started = time.perf_counter()
        try:
            opened(self.kb).model.load(serve_queries=True)  # one-shot `pms-tui search`es of this home ask it
        except Exception as exc:  # noqa: BLE001 - EmbeddingModelError and whatever onnx raises
            self.post_message(ModelFailed(describe(exc)))
            return
        self.post_message(ModelLoaded(time.perf_counter() - started))

    @while_running
    def on_model_loaded(self, message: ModelLoaded) -> None:
        self.model_state = ModelState.READY
        if self.mode != "bm25" and self.search_bar.value.strip():
            self.request_search(immediate=True)  # the vector ranks fill in

    @while_running
    def on_model_failed(self, message: ModelFailed) -> None:
        self.model_state = ModelState.ERROR
        self.notify(f"{message.reason} Search falls back to keywords (bm25).", severity="error", timeout=15)

    # -- search -----------------------------------------------------------------------------------
    @on(Input.Changed, "#search")
    def _query_changed(self, event: Input.Changed) -> None:
        self.request_search()

    @on(Input.Submitted, "#search")
    def _query_submitted(self, event: Input.Submitted) -> None:
        self.settle_now()
        if self.results.hits:
            self.results.focus()

    # -- moving through the results ---------------------------------------------------------------
    @on(events.DescendantFocus, "#results")
    def _results_focused(self) -> None:
        self.settle_now()  # a click or tab into the list: the query is finished

    @while_running
    def on_results_list_hit_chosen(self, message: ResultsList.HitChosen) -> None:
        self.query_one("#reader-scroll").focus()

    def action_select_next(self) -> None:
        self.settle_now()  # moving to the results: the query is finished
        self.results.action_cursor_down()

    def action_select_previous(self) -> None:
        self.settle_now()
        self.results.action_cursor_up()

    def action_select_page_down(self) -> None:
        self.settle_now()
        self.results.action_page_down()

    def action_select_page_up(self) -> None:
        self.settle_now()
        self.results.action_page_up()

    def action_clear(self) -> None:
        if self.focused is not self.search_bar:
            self.search_bar.focus()
        elif self.search_bar.value:
            self.search_bar.value = ""

    # -- modes and filters ------------------------------------------------------------------------
    def set_mode(self, mode: str) -> None:
        if mode not in MODES:
            return
        self.mode = mode
        if mode != "bm25" and not self.vector_ready and self.model_state is ModelState.LOADING:
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
        self.request_search(immediate=True)

    def action_cycle_collection(self) -> None:
        self.refresh_collections()
        choices: list[str | None] = [None, *self.collection_names]
        current = choices.index(self.collection_filter) if self.collection_filter in choices else 0
        self.set_collection_filter(choices[(current + 1) % len(choices)])

    palette_commands = palette_commands  # what ctrl+p offers here (see tui.commands)

    # -- the last line of defence -----------------------------------------------------------------
    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            self.notify(f"{event.worker.name} failed: {describe(event.worker.error)}", severity="error")
