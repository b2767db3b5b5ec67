"""The pms-tui terminal app: search as you type, ranked passages, a Markdown reader.

The app is a thin layer over :class:`pms_tui.core.kb.KnowledgeBase`. Everything that may
block (search, model loading, sync, clipping, the clipboard) runs in a named thread
worker group and reports back with one of the app's messages; the UI thread only renders.
"""

from __future__ import annotations

import functools
import os
import shlex
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import replace

from textual import on, work
from textual.app import App, ComposeResult, SuspendNotSupported
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.theme import Theme
from textual.widgets import Footer, Input
from textual.worker import Worker, WorkerState, get_current_worker

from pms_tui.core.results import Hit, SyncReport

from .commands import PmsCommands
from .errors import sentence
from .keys import APP_BINDINGS, RESULTS_BINDINGS, keymap_from_settings
from .sample import OFFERED_SETTING, SAMPLE_DESCRIPTION, SAMPLE_NAME, is_sample_path, sample_dir
from .screens.add_collection import AddCollectionDialog
from .screens.clip import ClipDialog, ClipRequest
from .screens.help import HelpScreen, KeyRow
from .themes import DEFAULT_DARK, bundled_theme_dir, load_themes
from .widgets.reader import Reader
from .widgets.results import ResultsList
from .widgets.search_bar import SearchBar
from .widgets.status import StatusLine

MODES = ("hybrid", "bm25", "vector")
RESULT_COUNT = 30
# actions that act on the main screen; disabled while a dialog is open
MAIN_SCREEN_ACTIONS = {
    "sync", "clip", "add_collection", "cycle_mode", "cycle_collection", "toggle_document",
    "open_editor", "copy_chunk", "copy_path", "help", "clear", "select_next", "select_previous",
    "select_page_down", "select_page_up",
}


def while_running(handler):
    """Drop messages that arrive while the app is shutting down (no screen to update)."""

    @functools.wraps(handler)
    def guarded(self, *args, **kwargs):
        if not self.screen_stack or not self.is_running:
            return None
        return handler(self, *args, **kwargs)

    return guarded


class SyncStopped(Exception):
    """Raised inside a running sync's progress callback to stop it when the app quits."""


class PmsApp(App[int]):
    """``PmsApp(home=path)``; ``run_app()`` is the entry point of ``pms-tui``."""

    CSS_PATH = "app.tcss"
    TITLE = "pms-tui"
    BINDINGS = APP_BINDINGS
    COMMANDS = App.COMMANDS | {PmsCommands}

    # -- messages: what the workers report ---------------------------------------------------
    class SearchCompleted(Message):
        def __init__(self, generation: int, query: str, hits: list[Hit], lanes: list[str],
                     notes: list[str], elapsed_ms: float, recent: bool, error: str | None = None) -> None:
            super().__init__()
            self.generation = generation
            self.query = query
            self.hits = hits
            self.lanes = lanes
            self.notes = notes
            self.elapsed_ms = elapsed_ms
            self.recent = recent
            self.error = error

    class ModelLoaded(Message):
        def __init__(self, seconds: float) -> None:
            super().__init__()
            self.seconds = seconds

    class ModelFailed(Message):
        def __init__(self, reason: str) -> None:
            super().__init__()
            self.reason = reason

    class SyncProgressed(Message):
        def __init__(self, done: int, total: int, phase: str) -> None:
            super().__init__()
            self.done = done
            self.total = total
            self.phase = phase

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, PmsApp.SyncProgressed)

    class SyncFinished(Message):
        def __init__(self, report: SyncReport, quiet: bool) -> None:
            super().__init__()
            self.report = report
            self.quiet = quiet

    class SyncFailed(Message):
        def __init__(self, reason: str) -> None:
            super().__init__()
            self.reason = reason

    class ClipFinished(Message):
        def __init__(self, request: ClipRequest, result) -> None:
            super().__init__()
            self.request = request
            self.result = result

    class ClipFailed(Message):
        def __init__(self, request: ClipRequest, reason: str) -> None:
            super().__init__()
            self.request = request
            self.reason = reason

    # -- setup ----------------------------------------------------------------------------------
    def __init__(self, home: str | os.PathLike | None = None, *, show_timings: bool = True,
                 load_model: bool = True, first_run_sample: bool = True, read_clipboard: bool = True) -> None:
        super().__init__()
        self.started_at = time.perf_counter()
        self.show_timings = show_timings
        self.load_model_at_start = load_model
        self.first_run_sample = first_run_sample
        self.read_clipboard = read_clipboard
        self.startup_problems: list[tuple[str, str]] = []  # (sentence, severity)
        self.kb = None
        self.settings = None
        try:
            from pms_tui.core.kb import KnowledgeBase

            self.kb = KnowledgeBase(home=home)
            self.settings = self.kb.settings
        except Exception as exc:  # noqa: BLE001 - a locked or damaged index: say so in the UI
            self.startup_problems.append((f"The index cannot be opened: {sentence(exc)}", "error"))
        self.mode = "hybrid"
        self.collection_filter: str | None = None
        self.collection_names: list[str] = []
        self.has_sample_collection = False
        self.user_theme_names: set[str] = set()
        self.keymap: dict[str, str] = {}
        self.search_generation = 0
        self.search_latencies_ms: list[float] = []  # debounce fired -> results rendered
        self.first_screen_ms: float | None = None
        self.model_state = "loading"
        self._debounce = None
        self._search_started = 0.0
        self._shown_query: str | None = None
        self._clip_retry: ClipRequest | None = None
        self._stop_sync = threading.Event()  # set on quit: a running sync stops at its next step
        self._register_themes()

    def _register_themes(self) -> None:
        home = self.kb.home if self.kb else None
        bundled, problems = load_themes(bundled_theme_dir())
        user, user_problems = load_themes(home / "themes" if home else None)
        for theme in bundled + user:
            self.register_theme(theme)
        self.user_theme_names = {t.name for t in user}
        self.startup_problems += [(p, "warning") for p in problems + user_problems]
        wanted = self.settings.theme if self.settings else DEFAULT_DARK
        if wanted not in self.available_themes:
            self.startup_problems.append((f"There is no theme named {wanted!r}; using {DEFAULT_DARK}.", "warning"))
            wanted = DEFAULT_DARK if DEFAULT_DARK in self.available_themes else "textual-dark"
        self.theme = wanted

    def compose(self) -> ComposeResult:
        yield SearchBar(id="search")
        with Horizontal(id="panes"):
            yield ResultsList(id="results")
            yield Reader(id="reader")
        yield StatusLine(show_timings=self.show_timings, id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.search_bar.focus()
        if self.settings is not None:
            keymap, problems = keymap_from_settings(self.settings.extra.get("keys", {}))
            self.keymap = keymap
            if keymap:
                self.set_keymap(keymap)
            self.startup_problems += [(p, "warning") for p in problems]
        for text, severity in self.startup_problems:
            self.notify(text, severity=severity, timeout=10)
        self.theme_changed_signal.subscribe(self, self._on_theme_changed)
        self.call_after_refresh(self._first_screen_shown)
        if self.kb is None:
            self.status.update_status(model="unavailable")
            return
        self.refresh_collections()
        self.refresh_stats()
        if self.kb.model_mismatch:
            self.model_state = "mismatch"
            self.status.update_status(model="mismatch: reindex")
            self.notify(self.kb.model_mismatch, severity="warning", timeout=15)
        self.request_search(immediate=True)
        if self.first_run_sample and not self.collection_names and not self.settings.extra.get(OFFERED_SETTING):
            self.action_add_sample(first_run=True)

    def _first_screen_shown(self) -> None:
        self.first_screen_ms = (time.perf_counter() - self.started_at) * 1000
        if self.kb is not None and self.load_model_at_start and not self.kb.model_mismatch:
            self.load_model()

    # -- shortcuts --------------------------------------------------------------------------------
    @property
    def main_screen(self):
        """The search screen, under any dialog or the command palette (App.query_one looks at
        the screen on top)."""
        return self.screen_stack[0]

    @property
    def search_bar(self) -> SearchBar:
        return self.main_screen.query_one("#search", SearchBar)

    @property
    def results(self) -> ResultsList:
        return self.main_screen.query_one("#results", ResultsList)

    @property
    def reader(self) -> Reader:
        return self.main_screen.query_one("#reader", Reader)

    @property
    def status(self) -> StatusLine:
        return self.main_screen.query_one("#status", StatusLine)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in MAIN_SCREEN_ACTIONS and len(self.screen_stack) > 1:
            return False
        return True

    def refresh_collections(self) -> None:
        if self.kb is None:
            return
        try:
            collections = self.kb.collections.list()
        except Exception as exc:  # noqa: BLE001
            self.notify(sentence(exc), severity="error")
            return
        self.collection_names = [c.name for c in collections]
        self.has_sample_collection = any(is_sample_path(c.path) for c in collections)
        if self.collection_filter and self.collection_filter not in self.collection_names:
            self.collection_filter = None
            self.status.update_status(collection=None)

    def refresh_stats(self) -> None:
        if self.kb is None:
            return
        try:
            stats = self.kb.stats()
        except Exception as exc:  # noqa: BLE001
            self.notify(sentence(exc), severity="error")
            return
        self.status.update_status(documents=stats["documents"], chunks=stats["chunks"])

    # -- model ------------------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="model", exit_on_error=False)
    def load_model(self) -> None:
        started = time.perf_counter()
        try:
            self.kb.embedder.load()
        except Exception as exc:  # noqa: BLE001 - EmbeddingModelError and whatever onnx raises
            self.post_message(self.ModelFailed(sentence(exc)))
            return
        self.post_message(self.ModelLoaded(time.perf_counter() - started))

    @while_running
    def on_pms_app_model_loaded(self, message: ModelLoaded) -> None:
        self.model_state = "ready"
        self.status.update_status(model="ready")
        if self.mode != "bm25" and self.search_bar.value.strip():
            self.request_search(immediate=True)  # the vector ranks fill in

    @while_running
    def on_pms_app_model_failed(self, message: ModelFailed) -> None:
        self.model_state = "error"
        self.status.update_status(model="error (keywords only)")
        self.notify(f"{message.reason} Search falls back to keywords (bm25).", severity="error", timeout=15)

    @property
    def search_pending(self) -> bool:
        """A search is waiting for the debounce timer."""
        return self._debounce is not None

    @property
    def vector_ready(self) -> bool:
        return bool(self.kb and self.kb.embedder.ready and not self.kb.model_mismatch)

    # -- search -----------------------------------------------------------------------------------
    @on(Input.Changed, "#search")
    def _query_changed(self, event: Input.Changed) -> None:
        self.request_search()

    @on(Input.Submitted, "#search")
    def _query_submitted(self, event: Input.Submitted) -> None:
        if self.results.hits:
            self.results.focus()

    def request_search(self, immediate: bool = False) -> None:
        """Search the current query after the debounce delay (or now); newer requests win."""
        self.search_generation += 1
        if self._debounce is not None:
            self._debounce.stop()
            self._debounce = None
        if self.kb is None:
            return
        if immediate:
            self._start_search()
        else:
            delay = max(0, self.settings.debounce_ms) / 1000
            self._debounce = self.set_timer(delay, self._start_search, name="search-debounce")

    @while_running
    def _start_search(self) -> None:
        self._debounce = None
        self._search_started = time.perf_counter()
        collections = [self.collection_filter] if self.collection_filter else None
        self.search(self.search_bar.value, self.search_generation, self.mode, collections, self.vector_ready)

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def search(self, query: str, generation: int, mode: str, collections: list[str] | None,
               vector: bool) -> None:
        started = time.perf_counter()
        recent = not query.strip()
        try:
            if recent:
                hits, lanes, notes = self.kb.recent(limit=RESULT_COUNT, collections=collections), [], []
            else:
                result = self.kb.retrieval.search(query, k=RESULT_COUNT, mode=mode, collections=collections,
                                                  vector=vector)
                hits, lanes, notes = result.hits, result.lanes, result.notes
            error = None
        except Exception as exc:  # noqa: BLE001 - a database error must not end the app
            hits, lanes, notes, error = [], [], [], sentence(exc)
        if get_current_worker().is_cancelled:
            return
        elapsed = (time.perf_counter() - started) * 1000
        self.post_message(self.SearchCompleted(generation, query, hits, lanes, notes, elapsed, recent, error))

    @while_running
    def on_pms_app_search_completed(self, message: SearchCompleted) -> None:
        if message.generation != self.search_generation:
            return  # a newer query is on its way: never show stale results over fresh ones
        same_query = message.query.strip() == self._shown_query
        self._shown_query = message.query.strip()
        self.results.show_hits(message.hits, recent=message.recent, empty_message=self._empty_message(message),
                               keep_selection=same_query)
        self.status.update_status(
            mode=self.mode, collection=self.collection_filter, lanes=tuple(message.lanes),
            hits=len(message.hits), elapsed_ms=message.elapsed_ms, recent=message.recent,
        )
        if message.error:
            self.notify(message.error, severity="error")
        started = self._search_started
        self.call_after_refresh(self._search_rendered, started)

    @while_running
    def _search_rendered(self, started: float) -> None:
        if started:
            self.search_latencies_ms.append((time.perf_counter() - started) * 1000)

    def _empty_message(self, message: SearchCompleted) -> str:
        if message.error:
            return message.error
        if message.recent:
            if not self.collection_names:
                return "No collections yet: press ctrl+n to add a folder of notes."
            return "Nothing indexed yet: press ctrl+s to sync."
        if self.mode == "vector" and not message.lanes:
            return "The vector lane is waiting for the embedding model to load…"
        where = f" in {self.collection_filter}" if self.collection_filter else ""
        return f"No matches for {message.query.strip()!r}{where}."

    # -- reader -----------------------------------------------------------------------------------
    @while_running
    def on_results_list_hit_highlighted(self, message: ResultsList.HitHighlighted) -> None:
        self.reader.show(message.hit)

    @while_running
    def on_results_list_hit_chosen(self, message: ResultsList.HitChosen) -> None:
        self.main_screen.query_one("#reader-scroll").focus()

    def action_select_next(self) -> None:
        self.results.action_cursor_down()

    def action_select_previous(self) -> None:
        self.results.action_cursor_up()

    def action_select_page_down(self) -> None:
        self.results.action_page_down()

    def action_select_page_up(self) -> None:
        self.results.action_page_up()

    def action_toggle_document(self) -> None:
        if self.reader.hit is None:
            self.notify("Highlight a result first.", severity="warning")
            return
        self.reader.whole_note = not self.reader.whole_note

    def action_clear(self) -> None:
        if self.focused is not self.search_bar:
            self.search_bar.focus()
        elif self.search_bar.value:
            self.search_bar.value = ""

    def action_open_editor(self) -> None:
        hit = self.reader.hit
        if hit is None:
            self.notify("Highlight a result first.", severity="warning")
            return
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
        if not editor:
            self.notify("Set the EDITOR environment variable to open notes, for example "
                        "`export EDITOR=nano` in your shell profile.", severity="warning", timeout=10)
            return
        line = hit.start_line
        try:
            with self.suspend():
                subprocess.call([*shlex.split(editor), f"+{line}", hit.path])
        except SuspendNotSupported:
            self.notify("This terminal cannot hand over to an editor.", severity="warning")
            return
        except (OSError, ValueError) as exc:
            self.notify(f"Cannot start the editor {editor!r}: {sentence(exc)}", severity="error")
            return
        self.start_sync(quiet=True)  # the note may have changed

    def action_copy_chunk(self) -> None:
        hit = self.reader.hit
        if hit is None:
            self.notify("Highlight a result first.", severity="warning")
            return
        self.copy_text(hit.text, f"the chunk ({len(hit.text):,} characters)")

    def action_copy_path(self) -> None:
        hit = self.reader.hit
        if hit is None:
            self.notify("Highlight a result first.", severity="warning")
            return
        self.copy_text(hit.path, "the path")

    def copy_text(self, text: str, what: str) -> None:
        """OSC 52 through the terminal, and pyperclip where the terminal does not do OSC 52."""
        self.copy_to_clipboard(text)
        self.copy_with_pyperclip(text, what)

    @work(thread=True, group="clipboard", exit_on_error=False)
    def copy_with_pyperclip(self, text: str, what: str) -> None:
        try:
            import pyperclip

            pyperclip.copy(text)
        except Exception:  # noqa: BLE001 - no clipboard program: the OSC 52 copy is all we have
            pass
        self.call_from_thread(self.notify, f"Copied {what}.", timeout=3)

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

    # -- themes -----------------------------------------------------------------------------------
    def set_theme(self, name: str) -> None:
        self.theme = name

    def _on_theme_changed(self, theme: Theme) -> None:
        if self.kb is None or self.settings is None or self.settings.theme == theme.name:
            return
        try:
            from pms_tui.core.config import save_setting

            save_setting(self.kb.home, "theme", theme.name)
            self.settings.theme = theme.name
        except Exception as exc:  # noqa: BLE001 - a read-only home: keep the theme for this run
            self.notify(f"The theme could not be remembered: {sentence(exc)}", severity="warning")

    # -- help -------------------------------------------------------------------------------------
    def key_rows(self) -> list[KeyRow]:
        """Every key of the main screen, with remaps applied."""
        rows = [
            KeyRow("↑ ↓ pgup pgdn", "Move through the results (from the search bar too)", ""),
            KeyRow("enter", "Search bar → results → reader", ""),
            KeyRow("tab / shift+tab", "Move focus between search bar, results and reader", ""),
            KeyRow(self.get_key_display(Binding("ctrl+p", "")), "Command palette", ""),
        ]
        for binding in APP_BINDINGS + RESULTS_BINDINGS:
            if not binding.id:
                continue
            keys = self.keymap.get(binding.id, binding.key)
            shown = " ".join(self.get_key_display(Binding(k.strip(), "")) for k in keys.split(","))
            rows.append(KeyRow(shown, binding.tooltip or binding.description, binding.id))
        return rows

    def action_help(self) -> None:
        self.push_screen(HelpScreen(self.key_rows()))

    # -- sync -------------------------------------------------------------------------------------
    def action_sync(self) -> None:
        self.start_sync()

    def start_sync(self, collections: Sequence[str] | None = None, quiet: bool = False) -> None:
        if self.kb is None:
            self.notify("The index is not open; see the earlier error.", severity="error")
            return
        if any(w.group == "sync" and w.is_running for w in self.workers):
            if not quiet:
                self.notify("A sync is already running.", severity="warning")
            return
        self.refresh_collections()
        if not self.collection_names:
            if not quiet:
                self.notify("No collections yet: press ctrl+n to add a folder of notes.", severity="warning")
            return
        self.status.reset_progress()
        self.status.update_status(sync="syncing")
        self.sync(list(collections) if collections else None, quiet)

    @work(thread=True, group="sync", exit_on_error=False)
    def sync(self, collections: list[str] | None, quiet: bool) -> None:
        def progress(done: int, total: int, phase: str) -> None:
            if self._stop_sync.is_set():
                raise SyncStopped  # each note is its own transaction: the index stays consistent
            self.post_message(self.SyncProgressed(done, total, phase))

        try:
            report = self.kb.sync(progress=progress, collections=collections)
        except SyncStopped:
            return
        except Exception as exc:  # noqa: BLE001 - busy, mismatch, locked, model: one sentence
            self.post_message(self.SyncFailed(sentence(exc)))
            return
        self.post_message(self.SyncFinished(report, quiet))

    @while_running
    def on_pms_app_sync_progressed(self, message: SyncProgressed) -> None:
        if message.phase == "done":
            return
        self.status.set_progress(message.done, message.total)
        detail = f" {message.done}/{message.total}" if message.total else ""
        self.status.update_status(sync=f"syncing: {message.phase}{detail}")
        self.status.set_class(True, "-syncing")

    @while_running
    def on_pms_app_sync_finished(self, message: SyncFinished) -> None:
        report = message.report
        self.status.update_status(sync="idle")
        self.refresh_collections()
        self.refresh_stats()
        if not message.quiet or report.changed or report.skipped or report.problems:
            self.notify(
                f"+{len(report.added)} new, ~{len(report.modified)} modified, -{len(report.deleted)} deleted, "
                f"{len(report.skipped)} skipped ({report.unchanged} unchanged) in {report.seconds:.1f} s.",
                title="Sync done", timeout=6,
            )
        for problem in report.problems:
            self.notify(problem, severity="warning", timeout=10)
        if report.skipped:
            shown = "; ".join(f"{path}: {reason}" for path, reason in report.skipped[:3])
            more = f" (and {len(report.skipped) - 3} more)" if len(report.skipped) > 3 else ""
            self.notify(f"Skipped {shown}{more}.", severity="warning", timeout=10)
        if report.changed:
            self.reader.refresh_view()
            self.request_search(immediate=True)

    @while_running
    def on_pms_app_sync_failed(self, message: SyncFailed) -> None:
        self.status.update_status(sync="idle")
        self.notify(message.reason, title="Sync failed", severity="error", timeout=10)

    # -- first run: the bundled guide -------------------------------------------------------------
    def action_add_sample(self, first_run: bool = False) -> None:
        folder = sample_dir()
        if self.kb is None or folder is None:
            if not first_run:
                self.notify("The bundled guide is missing from this installation.", severity="warning")
            return
        try:
            self.kb.collections.create(folder, name=SAMPLE_NAME, description=SAMPLE_DESCRIPTION)
        except Exception as exc:  # noqa: BLE001 - e.g. a collection already named "guide"
            if not first_run:
                self.notify(sentence(exc), severity="warning")
            return
        try:
            from pms_tui.core.config import save_setting

            save_setting(self.kb.home, OFFERED_SETTING, True)
            self.settings.extra[OFFERED_SETTING] = True
        except Exception:  # noqa: BLE001 - it would only be offered again next time
            pass
        self.notify(
            "Indexing the bundled user guide so you have something to search. Add your own notes "
            "with ctrl+n (or `pms-tui add PATH` in a shell).",
            title="Welcome to pms-tui", timeout=15,
        )
        self.refresh_collections()
        self.start_sync([SAMPLE_NAME])

    # -- add a collection -------------------------------------------------------------------------
    def action_add_collection(self) -> None:
        if self.kb is None:
            self.notify("The index is not open; see the earlier error.", severity="error")
            return
        self.push_screen(AddCollectionDialog(self.kb), self._collection_added)

    @while_running
    def _collection_added(self, name: str | None) -> None:
        if not name:
            return
        self.refresh_collections()
        self.notify(f"Added the collection {name!r}; indexing it now.", timeout=5)
        self.start_sync([name])

    # -- clip -------------------------------------------------------------------------------------
    def clip_targets(self) -> list[str]:
        """Collections a clip may be written into: existing folders, never the bundled guide."""
        if self.kb is None:
            return []
        try:
            return [c.name for c in self.kb.collections.list() if c.exists and not is_sample_path(c.path)]
        except Exception:  # noqa: BLE001
            return []

    def action_clip(self) -> None:
        targets = self.clip_targets()
        if not targets:
            self.notify("Clips are saved into a folder of your own: add one first with ctrl+n.",
                        severity="warning", timeout=8)
            return
        retry = self._clip_retry
        self._clip_retry = None
        default = retry.collection if retry else (self.collection_filter or targets[0])
        dialog = ClipDialog(targets, collection=default, url=retry.url if retry else "",
                            update=bool(retry), read_clipboard=self.read_clipboard)
        self.push_screen(dialog, self._clip_requested)

    @while_running
    def _clip_requested(self, request: ClipRequest | None) -> None:
        if request is None:
            return
        self.status.update_status(clip="clipping…")
        self.clip(request)

    @work(thread=True, group="clip", exit_on_error=False)
    def clip(self, request: ClipRequest) -> None:
        try:
            collection = self.kb.collections.get(request.collection)
            result = collection.add_from_url(request.url, update=request.update)
        except Exception as exc:  # noqa: BLE001 - ClipError, CollectionError, database errors
            self.post_message(self.ClipFailed(request, sentence(exc)))
            return
        self.post_message(self.ClipFinished(request, result))

    @while_running
    def on_pms_app_clip_finished(self, message: ClipFinished) -> None:
        result = message.result
        self.status.update_status(clip="")
        if result.status == "duplicate":
            self._clip_retry = replace(message.request, update=True)
            key = self.get_key_display(Binding(self.keymap.get("app.clip", "ctrl+o").split(",")[0], ""))
            self.notify(f"{result.message} Press {key} then enter to update it.",
                        title="Already clipped", severity="warning", timeout=10)
            return
        self.notify(result.message, title="Clipped", timeout=6)
        self.refresh_collections()
        self.refresh_stats()
        self.request_search(immediate=True)

    @while_running
    def on_pms_app_clip_failed(self, message: ClipFailed) -> None:
        self.status.update_status(clip="")
        self._clip_retry = replace(message.request, update=False)
        self.notify(message.reason, title="Clip failed", severity="error", timeout=10)

    # -- the last line of defence ---------------------------------------------------------------
    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            self.notify(f"{event.worker.name} failed: {sentence(event.worker.error)}", severity="error")

    def on_unmount(self) -> None:
        self._stop_sync.set()
        if self.kb is not None:
            try:
                self.kb.close()
            except Exception:  # noqa: BLE001
                pass


def run_app(home: str | None = None) -> int:
    """Open the terminal UI on ``home`` (None: PMS_TUI_HOME or the user data dir)."""
    app = PmsApp(home=home)
    result = app.run()
    return result if isinstance(result, int) else (app.return_code or 0)
