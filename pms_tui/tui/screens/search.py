"""The search screen: search bar, results, reader and status line, with their keys.

It composes the visual widgets and its parts (:mod:`pms_tui.tui.controllers`: non-visual
widgets that own their state and workers): its actions call a part, and its
``on_<part>_<message>`` handlers show what the parts post in the results, the reader and the
panels; what they post into the screen's state (the reactives the status line is bound to)
is set in :mod:`pms_tui.tui.controllers.state`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from textual import events, on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Input, Markdown, ProgressBar
from textual.worker import Worker, WorkerState

from pms_tui.core.config import load_state, save_state
from pms_tui.core.errors import describe
from pms_tui.core.results import MODES, Hit, ModelState, no_collections_notice, nothing_indexed_notice
from pms_tui.core.safe_text import one_line

from ..commands import ScreenCommands
from ..controllers import opened, while_running
from ..controllers.clip import Clipper
from ..controllers.evidence import Explainer
from ..controllers.links import LinkWalker
from ..controllers.model import ModelLoader
from ..controllers.notes import NoteOpener
from ..controllers.query import Historian
from ..controllers.search_runs import RESULT_COUNT, Searcher
from ..controllers.state import SearchState
from ..controllers.sync import Syncer
from ..keys import SEARCH_BINDINGS
from ..messages import IndexChanged
from ..result_rows import SORTS, VIEWS
from ..sample import SAMPLE_NAME
from ..widgets.evidence import EvidencePanel
from ..widgets.footer import FittingFooter
from ..widgets.links_panel import LinksPanel, PanelEntry
from ..widgets.query_bits import FilterChips, QuerySuggester
from ..widgets.reader import Reader
from ..widgets.results import ResultsList
from ..widgets.search_bar import SearchBar, search_placeholder
from ..widgets.status import Answer, StatusLine, StatusText
from ..widgets.welcome import welcome_text
from .search_palette import palette_commands

if TYPE_CHECKING:
    from pms_tui.core.kb import KnowledgeBase

VIEW_STATE = "results_view"  # remembered in the app state (state.json), like the theme


class SearchScreen(SearchState):
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
        self.collection_names = []
        self.has_sample_collection = False
        # the parts (controllers): each owns its state and workers, and posts what happened
        self.link_walker = LinkWalker(kb, self.keymap, id="link-walker")
        self.model_loader = ModelLoader(kb, self.keymap, id="model-loader")
        self.searcher = Searcher(kb, self.keymap, id="searcher")
        self.syncer = Syncer(kb, self.keymap, id="syncer")
        self.note_opener = NoteOpener(kb, self.keymap, id="note-opener")
        self.clipper = Clipper(kb, self.keymap, read_clipboard=read_clipboard, id="clipper")
        self.historian = Historian(kb, self.keymap, id="historian")
        self.explainer = Explainer(kb, self.keymap, id="explainer")

    def compose(self) -> ComposeResult:
        yield SearchBar(placeholder=search_placeholder(self.key), suggester=QuerySuggester(self.searcher.facet_choices),
                        id="search")
        yield FilterChips(id="chips")
        with Horizontal(id="panes"):
            yield ResultsList(id="results")
            yield Reader(empty_text=welcome_text(self.key), decorate=self.link_walker.note_shown,
                         links=self.link_walker, id="reader")
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
        yield self.model_loader
        yield self.searcher
        yield self.syncer
        yield self.clipper
        yield self.note_opener
        yield self.link_walker
        yield self.historian
        yield self.explainer

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
        if self.first_run_sample and not self.collection_names and not self.syncer.sample_offered():
            self.action_add_sample(first_run=True)
        elif not self.kb.model.mismatch and self.kb.index.vectors_pending:
            self.start_sync(embed_only=True, quiet=True)  # vectors left by a quit, crash or kill
        if self.kb.settings.watch:
            self.syncer.start_watch()

    def _first_screen_shown(self) -> None:
        if self.kb is not None and self.load_model_at_start and not self.kb.model.mismatch:
            self.model_loader.load_model()

    # -- model (controllers.model) -----------------------------------------------------------------
    @while_running
    def on_model_loader_loaded(self, message: ModelLoader.Loaded) -> None:
        self.model_state = ModelState.READY
        if self.mode != "bm25" and self.search_bar.value.strip():
            self.request_search(immediate=True)  # the vector ranks fill in

    @while_running
    def on_model_loader_failed(self, message: ModelLoader.Failed) -> None:
        self.model_state = ModelState.ERROR
        self.notify(f"{message.reason} Search falls back to keywords (bm25).", severity="error", timeout=15)

    # -- search -----------------------------------------------------------------------------------
    @on(Input.Changed, "#search")
    def _query_changed(self, event: Input.Changed) -> None:
        self.request_search()

    @on(Input.Submitted, "#search")
    def _query_submitted(self, event: Input.Submitted) -> None:
        self.searcher.settle_now()
        if self.results.hits:
            self.results.focus()

    # -- moving through the results ---------------------------------------------------------------
    @on(events.DescendantFocus, "#results")
    def _results_focused(self) -> None:
        self.searcher.settle_now()  # a click or tab into the list: the query is finished

    @while_running
    def on_searcher_results_ready(self, message: Searcher.ResultsReady) -> None:
        result = message.result
        weak = bool(result is not None and result.weak and message.hits)
        self.results.show_hits(message.hits, recent=message.recent, empty_message=self._empty_message(message),
                               keep_selection=message.same_query, view=self.view, sort=self.sort,
                               limit=RESULT_COUNT, weak=weak)
        parsed = result.query if result is not None else None
        ignored = tuple(i.reason if i.text in i.reason else f"{i.text}: {i.reason}"
                        for i in parsed.ignored) if parsed else ()
        self.chips.show_query(parsed.chips() if parsed else [], [i.text for i in parsed.ignored] if parsed else [])
        self.answer = Answer(lanes=tuple(message.lanes), hits=len(self.results.rows), elapsed_ms=message.elapsed_ms,
                             recent=message.recent, ignored=ignored, weak=weak, notes=tuple(message.notes),
                             vector_out=result.vector_out if result is not None else None,
                             words=parsed.has_text if parsed is not None else True)
        if message.error:
            self.notify(message.error, severity="error")
        self.searcher.results_shown(message)
        self.historian.results_seen(result)

    def _empty_message(self, message: Searcher.ResultsReady) -> str:
        if message.error:
            return message.error
        if message.recent:
            if not self.collection_names:
                return no_collections_notice(f"press {self.key('app.add_collection')}")
            return nothing_indexed_notice(f"press {self.key('app.sync')}")
        if self.mode == "vector" and not message.lanes:
            return "The vector lane is waiting for the embedding model to load…"
        where = f" in {self.collection_filter}" if self.collection_filter else ""
        return f"No matches for “{one_line(message.query.strip())}”{where}."

    def on_index_changed(self, message: IndexChanged) -> None:
        """A sync (this app's or another process's) changed the index: a search shown without
        its vector lane, waiting for vectors, runs again once none is pending."""
        if self.answer.vector_out is not None and not self.counts.pending and not self.searcher.search_pending:
            self.request_search(immediate=True)
        self.searcher.refresh_facets()
        self.historian.recheck_saved()

    @while_running
    def on_results_list_hit_chosen(self, message: ResultsList.HitChosen) -> None:
        self.remember_query()
        self.query_one("#reader-scroll").focus()

    def action_select_next(self) -> None:
        self.searcher.settle_now()  # moving to the results: the query is finished
        self.results.action_cursor_down()

    def action_select_previous(self) -> None:
        self.searcher.settle_now()
        self.results.action_cursor_up()

    def action_select_page_down(self) -> None:
        self.searcher.settle_now()
        self.results.action_page_down()

    def action_select_page_up(self) -> None:
        self.searcher.settle_now()
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
        if mode != "bm25" and not self.searcher.vector_ready and self.model_state is ModelState.LOADING:
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

    # -- sync (controllers.sync) --------------------------------------------------------------------
    def start_sync(self, collections: Sequence[str] | None = None, quiet: bool = False,
                   embed_only: bool = False) -> None:
        if self.kb is None:
            self.notify("The index is not open; see the earlier error.", severity="error")
            return
        if not self.syncer.running:
            self.refresh_collections()
            if not self.collection_names and not embed_only:
                if not quiet:
                    self.notify(no_collections_notice(f"press {self.key('app.add_collection')}"), severity="warning")
                return
        self.syncer.start(collections, quiet, embed_only)

    def action_sync(self) -> None:
        self.start_sync()

    def action_stop_sync(self) -> None:
        """The stop key: the running sync stops between notes or embedding runs, and a clip
        under way stops too."""
        clip = self.clipper.stop()
        if not self.syncer.stop() and not clip:
            self.notify("Nothing to stop: no sync or clip is running.", timeout=3)

    def action_add_sample(self, first_run: bool = False) -> None:
        if self.syncer.add_guide(first_run):
            self.refresh_collections()
            self.start_sync([SAMPLE_NAME])

    def action_add_collection(self) -> None:
        self.syncer.ask_folder()

    # -- clip (controllers.clip) --------------------------------------------------------------------
    def action_clip(self) -> None:
        self.clipper.ask()

    # -- the highlighted note (controllers.notes) ----------------------------------------------------
    def _highlighted(self) -> Hit | None:
        hit = self.reader.hit
        if hit is None:
            self.notify("Highlight a result first.", severity="warning")
        return hit

    def action_toggle_document(self) -> None:
        if self._highlighted() is not None:
            self.reader.whole_note = not self.reader.whole_note

    def action_open_editor(self) -> None:
        if (hit := self._highlighted()) is not None:
            self.note_opener.edit(hit)

    def action_copy_chunk(self) -> None:
        if (hit := self._highlighted()) is not None:
            self.note_opener.copy(hit.text, f"the chunk ({len(hit.text):,} characters)")

    def action_copy_path(self) -> None:
        if (hit := self._highlighted()) is not None:
            self.note_opener.copy(hit.path, "the path")

    @while_running
    def on_note_opener_note_used(self, message: NoteOpener.NoteUsed) -> None:
        self.remember_query()

    @while_running
    def on_note_opener_note_edited(self, message: NoteOpener.NoteEdited) -> None:
        self.start_sync(quiet=True)

    # -- links (controllers.links) ------------------------------------------------------------------
    def action_links(self, what: str) -> None:
        """The keys: ``panel`` (show or hide it, focusing its list), ``back``, ``forward``."""
        if what == "back":
            self.link_walker.back(self.reader.hit)
        elif what == "forward":
            self.link_walker.forward(self.reader.hit)
        else:
            self.links_shown = not self.links_shown
            if self.links_shown:
                self.query_one("#links-list").focus()
            elif self.focused is None or self.focused.id == "links-list":
                self.search_bar.focus()

    def watch_links_shown(self, shown: bool) -> None:
        self.links_panel.set_class(shown, "-shown")
        self.query_one("#panes").set_class(shown, "-links-shown")
        self.link_walker.show_panel(shown, self.reader.hit)

    def open_entry(self, entry: PanelEntry, record: bool = True) -> None:
        """Show ``entry``'s note in the reader, whole, at its line."""
        self.link_walker.open(entry, self.reader.hit, record)

    def follow_href(self, href: str) -> bool:
        """A link clicked in the reader: followed, or refused with one sentence."""
        return self.link_walker.follow(href, self.reader.hit)

    def on_links_panel_entry_chosen(self, message: LinksPanel.EntryChosen) -> None:
        if self.has_class("-narrow"):  # the panel stands in the reader's place (app.tcss): it steps aside
            self.links_shown = False
        self.open_entry(message.entry)

    def on_markdown_link_clicked(self, message: Markdown.LinkClicked) -> None:
        if self.follow_href(message.href):
            message.stop()

    def on_reader_hit_shown(self, message: Reader.HitShown) -> None:
        self.link_walker.note_painted(message.painted_at)

    @while_running
    def on_results_list_hit_highlighted(self, message: ResultsList.HitHighlighted) -> None:
        self.show_result(message.hit, self.searcher.shown_query)
        result = self.searcher.last_result
        self.explainer.show_evidence(message.hit, self.search_bar.value, result, self.evidence_shown)
        self.historian.time_reading(message.hit if result is not None else None, self.search_bar.value)

    def show_result(self, hit: Hit | None, query: str | None) -> None:
        """The results' highlighted ``hit`` in the reader, unless the walk stays (controllers.links)."""
        if self.link_walker.result_highlighted(hit, query, self.reader.hit):
            self.reader.show(hit)

    @while_running
    def on_link_walker_note_opened(self, message: LinkWalker.NoteOpened) -> None:
        self.reader.whole_note_at(message.hit, message.line)

    @while_running
    def on_link_walker_trail_changed(self, message: LinkWalker.TrailChanged) -> None:
        self.links_panel.show_trail(message.trail, message.can_go_back, message.can_go_forward, message.title)

    @while_running
    def on_link_walker_panel_loaded(self, message: LinkWalker.PanelLoaded) -> None:
        if self.links_shown:
            self.links_panel.show(message.content)

    # -- the search language: views, sort, evidence (controllers.evidence), history (controllers.query)
    def load_query_state(self) -> None:
        """Before the first search: the remembered view, the history, completion values."""
        try:
            view = load_state(opened(self.kb).home).get(VIEW_STATE, "notes")
        except Exception:  # noqa: BLE001 - a state that cannot be read is the default
            view = "notes"
        self.set_reactive(SearchState.view, view if view in VIEWS else "notes")  # remembered: not said again
        self.historian.load()
        self.searcher.refresh_facets()

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

    def action_toggle_evidence(self) -> None:
        self.evidence_shown = not self.evidence_shown

    def watch_evidence_shown(self, shown: bool) -> None:
        self.evidence.set_class(shown, "-shown")
        self.explainer.show_evidence(self.results.current, self.search_bar.value, self.searcher.last_result, shown)

    @while_running
    def on_explainer_evidence_ready(self, message: Explainer.EvidenceReady) -> None:
        current = self.results.current
        if message.hit is None or (current is not None and current.chunk_id == message.hit.chunk_id):
            self.evidence.show_lines(message.title, message.lines)

    @while_running
    def on_explainer_explanation_ready(self, message: Explainer.ExplanationReady) -> None:
        self.evidence_shown = True
        self.evidence.show_lines(message.title, message.lines)

    def action_explain_note(self) -> None:
        """Where the highlighted note ranks for the query, lane by lane (in the evidence panel)."""
        hit = self.results.current
        if hit is None or not self.search_bar.value.strip():
            self.notify("Type a query and highlight a note to explain its rank.", severity="warning")
            return
        self.explainer.explain(self.search_bar.value, hit.id, hit,
                               self.searcher.shown_typing)

    def action_explain_any_note(self) -> None:
        """Ask for any indexed note and explain its rank for the query (controllers.evidence)."""
        self.explainer.ask_note(self.search_bar.value, self.results.current, self.searcher.shown_typing)

    def remember_query(self) -> None:
        """The query in the bar was acted on (a hit opened, copied or read): the history keeps it."""
        if self.searcher.last_result is not None:
            self.historian.remember(self.search_bar.value)

    def action_history_back(self) -> None:
        if (query := self.historian.recall(+1, self.search_bar.value)) is not None:
            self.set_query(query, keep_position=True)

    def action_history_forward(self) -> None:
        if (query := self.historian.recall(-1, self.search_bar.value)) is not None:
            self.set_query(query, keep_position=True)

    def set_query(self, query: str, *, keep_position: bool = False) -> None:
        bar = self.search_bar
        bar.value = query
        bar.cursor_position = len(query)
        bar.focus()
        if not keep_position:
            self.historian.end_walk()

    def action_save_search(self) -> None:
        self.historian.ask_to_save(self.search_bar.value, list(self.searcher.last_result or []))

    def run_saved(self, name: str) -> None:
        if (query := self.historian.saved_query(name)) is not None:
            self.set_query(query)
            self.request_search(immediate=True)

    palette_commands = palette_commands  # what ctrl+p offers here (see tui.commands)

    # -- the last line of defence -----------------------------------------------------------------
    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            self.notify(f"{event.worker.name} failed: {describe(event.worker.error)}", severity="error")
