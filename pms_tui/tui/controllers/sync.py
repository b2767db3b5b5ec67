"""Sync in the background, the bundled guide on first run, and adding a folder of notes."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from textual import work

from pms_tui.core.config import load_state, save_state
from pms_tui.core.errors import describe
from pms_tui.core.results import ProgressMeter, SyncReport

from ..dialogs.add_collection import AddCollectionDialog, AddCollectionRequest
from ..messages import (
    CollectionAdded,
    CollectionRefused,
    SyncFailed,
    SyncFinished,
    SyncProgressed,
    TextSynced,
)
from ..sample import OFFERED_STATE, SAMPLE_DESCRIPTION, SAMPLE_NAME, sample_dir
from . import while_running


class SyncActions:
    """Mixed into the search screen (which supplies ``kb``, the panes and ``request_search``).

    A sync writes text first, so new notes are searchable while their vectors are embedded
    behind (the status line says which phase, how far, the rate and the time left). ctrl+z
    (``app.stop_sync``) or the palette stops it between notes or embedding runs; quitting
    does the same, and the next sync or start carries on from the queue in the database.
    Watch mode (``watch = true``, the default) syncs notes as they are saved. A folder added,
    or a sync asked for, while a sync embeds gets its text written at once by a text sync of
    its own (``sync_text``: the engine writes it between two embedding runs) and its vectors
    join the running embedding; the status line shows both.
    """

    def init_sync(self) -> None:
        self._cancel_sync = threading.Event()  # this run's; set by the stop key or on quit
        self._quitting = threading.Event()  # set on quit: stops the watcher too
        self._watch_restart = threading.Event()
        self._meter = ProgressMeter()
        self._text_done = False
        self._sync_after: list[str] = []  # collections added while a sync ran: synced when it ends
        self._sync_words = ""  # the running sync's part of the status line
        self._text_words = ""  # the text syncs' part ("text of 'x' 40/100")

    def stop_sync(self) -> None:
        self._quitting.set()
        self._cancel_sync.set()

    def action_sync(self) -> None:
        self.start_sync()

    @property
    def sync_running(self) -> bool:
        return any(w.group == "sync" and w.is_running for w in self.app.workers)

    def action_stop_sync(self) -> None:
        if not self.sync_running:
            self.notify("No sync is running.", timeout=3)
            return
        self._cancel_sync.set()
        self.status.update_status(sync="stopping…")

    def start_sync(self, collections: Sequence[str] | None = None, quiet: bool = False,
                   embed_only: bool = False) -> None:
        if self.kb is None:
            self.notify("The index is not open; see the earlier error.", severity="error")
            return
        if self.sync_running:
            if not embed_only:  # the running one may be embedding for minutes: the text goes in now
                self.sync_text(list(collections) if collections else None)
                if not quiet:
                    self.notify("Indexing the changed notes' text now; their vectors join the running "
                                "embedding.", timeout=5)
            return
        self.refresh_collections()
        if not self.collection_names and not embed_only:
            if not quiet:
                self.notify(f"No collections yet: press {self.key('app.add_collection')} to add a folder "
                            "of notes.", severity="warning")
            return
        self._cancel_sync = threading.Event()
        if self._quitting.is_set():
            return
        self._meter = ProgressMeter()
        self._text_done = False
        self.status.reset_progress()
        self._sync_words = "syncing"
        self.status.update_status(sync="syncing")
        self.sync(list(collections) if collections else None, quiet, embed_only)

    @work(thread=True, group="sync", exit_on_error=False)
    def sync(self, collections: list[str] | None, quiet: bool, embed_only: bool = False) -> None:
        cancel = self._cancel_sync

        def progress(done: int, total: int, phase: str) -> None:
            self.post_message(SyncProgressed(done, total, phase))

        def waiting(pid) -> None:
            who = f"pid {pid}" if pid else "another pms-tui"
            self.post_message(SyncProgressed(0, 0, f"waiting for {who}"))

        try:
            if embed_only:
                embedded = self.kb.embed_pending(progress=progress, cancel=cancel, on_wait=waiting)
                report = SyncReport(chunks_embedded=embedded, cancelled=cancel.is_set())
            else:
                report = self.kb.sync(progress=progress, collections=collections, cancel=cancel, on_wait=waiting)
        except Exception as exc:  # noqa: BLE001 - busy, mismatch, locked, model: one sentence
            self.post_message(SyncFailed(describe(exc)))
            return
        if not self._quitting.is_set():
            self.post_message(SyncFinished(report, quiet or embed_only))

    @work(thread=True, group="sync-text", exit_on_error=False)
    def sync_text(self, collections: list[str] | None) -> None:
        """The text of these collections (None: all) while another sync runs: written after
        that sync's own text, between two of its embedding runs; the new texts join its queue
        (or are embedded here if it ended meanwhile)."""
        cancel = self._cancel_sync
        label = ", ".join(repr(name) for name in collections) if collections else "changed notes"

        def progress(done: int, total: int, phase: str) -> None:
            self.post_message(SyncProgressed(done, total, phase, text_of=label))

        try:
            report = self.kb.sync(progress=progress, collections=collections, cancel=cancel, wait=True)
        except Exception as exc:  # noqa: BLE001 - a removed collection, a locked file: one sentence
            self.post_message(TextSynced(label, None, describe(exc)))
            return
        if not self._quitting.is_set():
            self.post_message(TextSynced(label, report))

    @while_running
    def on_text_synced(self, message: TextSynced) -> None:
        self._text_words = ""
        self._show_sync_words()
        if message.error:
            self.notify(message.error, title="Sync failed", severity="error", timeout=10)
            return
        report = message.report
        self.refresh_collections()
        self.refresh_stats()
        if report.changed:
            self.notify(f"Indexed the text of {message.label}: +{len(report.added)} new, "
                        f"~{len(report.modified)} modified, -{len(report.deleted)} deleted; searchable by "
                        "their words now, vectors queued.", timeout=6)
            self.reader.refresh_view()
            self.request_search(immediate=True)
            self.after_index_changed()
        if report.skipped:
            shown = "; ".join(f"{path}: {reason}" for path, reason in report.skipped[:3])
            self.notify(f"Skipped {shown}.", severity="warning", timeout=10)

    def _show_sync_words(self) -> None:
        parts = [p for p in (self._sync_words, self._text_words) if p]
        self.status.update_status(sync=" · ".join(parts) if parts else "idle")
        if parts:
            self.status.set_class(True, "-syncing")

    @while_running
    def on_sync_progressed(self, message: SyncProgressed) -> None:
        if message.phase == "done":
            return
        if message.text_of is not None and message.phase != "embedding":
            counts = f" {message.done:,}/{message.total:,}" if message.total else ""
            self._text_words = f"text of {message.text_of}: {message.phase}{counts}"
            self._show_sync_words()
            return
        self._meter.update(message.done, message.total, message.phase)
        if message.total:
            self.status.set_progress(message.done, message.total)
        if message.phase == "embedding" and not self._text_done:
            self._text_done = True  # every note's text is in: show the new notes now
            self.refresh_stats()
            self.request_search(immediate=True)
        self._sync_words = f"syncing: {self._meter.describe()}"
        self._show_sync_words()

    @while_running
    def on_sync_finished(self, message: SyncFinished) -> None:
        report = message.report
        self._sync_words = ""
        self._show_sync_words()
        self.refresh_collections()
        self.refresh_stats()
        if report.cancelled:
            self.notify("Sync stopped. What was written stays searchable; the next sync (or the next "
                        "start) carries on.", title="Sync stopped", timeout=6)
        elif not message.quiet:  # a quiet sync (watch mode, after the editor) tells only problems
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
        if report.changed or report.chunks_embedded:
            self.reader.refresh_view()
            self.request_search(immediate=True)
            self.after_index_changed()  # saved searches, completion values (controllers.query)

    @while_running
    def on_sync_failed(self, message: SyncFailed) -> None:
        self._sync_words = ""
        self._show_sync_words()
        self.notify(message.reason, title="Sync failed", severity="error", timeout=10)

    def sync_ended(self) -> None:
        """The sync worker has finished (called by the screen when its state changes): start
        the sync of the folders added meanwhile, unless the user stopped syncing."""
        names, self._sync_after = self._sync_after, []
        if names and not self._cancel_sync.is_set() and not self._quitting.is_set():
            self.start_sync(names)

    # -- watch mode -------------------------------------------------------------------------------
    def start_watch(self) -> None:
        """Watch on a plain daemon thread, not a worker: it never completes, and workers are
        what "wait until the app is idle" waits for."""
        if self.kb is None or self.kb.model_mismatch:
            return
        self._watcher = threading.Thread(target=self.watch_folders, name="pms-watch", daemon=True)
        self._watcher.start()

    def watch_folders(self) -> None:
        def synced(report: SyncReport) -> None:
            self.post_message(SyncFinished(report, True))

        def mode(text: str) -> None:
            if not self._quitting.is_set():
                try:
                    self.app.call_from_thread(self.status.update_status, watch=text)
                except Exception:  # noqa: BLE001 - the app is closing
                    pass

        try:
            self.kb.watch(self._quitting, on_sync=synced, on_mode=mode, restart=self._watch_restart)
        except Exception as exc:  # noqa: BLE001 - the app goes on without watching
            self.post_message(SyncFailed(f"Watching the folders stopped: {describe(exc)}"))

    # -- first run: the bundled guide -------------------------------------------------------------
    def sample_offered(self) -> bool:
        """The guide was added once (and maybe removed since): never offer it again."""
        return bool(load_state(self.kb.home).get(OFFERED_STATE))

    def _remember_sample_offered(self) -> None:
        try:
            save_state(self.kb.home, **{OFFERED_STATE: True})
        except Exception:  # noqa: BLE001 - it would only be offered again next time
            pass

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
                self.notify(describe(exc), severity="warning")
            return
        self._remember_sample_offered()
        self._watch_restart.set()
        self.notify(
            f"Indexing the bundled user guide so you have something to search. Add your own notes "
            f"with {self.key('app.add_collection')} (or `pms-tui add PATH` in a shell).",
            title="Welcome to pms-tui", timeout=15,
        )
        self.refresh_collections()
        self.start_sync([SAMPLE_NAME])

    # -- add a folder of notes --------------------------------------------------------------------
    def action_add_collection(self, request: AddCollectionRequest | None = None, error: str = "") -> None:
        if self.kb is None:
            self.notify("The index is not open; see the earlier error.", severity="error")
            return
        self.app.push_screen(AddCollectionDialog(request, error), self._add_collection_requested)

    @while_running
    def _add_collection_requested(self, request: AddCollectionRequest | None) -> None:
        if request is not None:
            self.add_collection(request)

    @work(thread=True, exclusive=True, group="add-collection", exit_on_error=False)
    def add_collection(self, request: AddCollectionRequest) -> None:
        try:
            collection = self.kb.collections.create(request.path, name=request.name)
        except Exception as exc:  # noqa: BLE001 - CollectionError and database errors alike
            self.post_message(CollectionRefused(request, describe(exc)))
            return
        self.post_message(CollectionAdded(collection.name))

    @while_running
    def on_collection_refused(self, message: CollectionRefused) -> None:
        self.action_add_collection(message.request, message.reason)  # again, with the reason

    @while_running
    def on_collection_added(self, message: CollectionAdded) -> None:
        self._watch_restart.set()  # watch its folder too
        self.refresh_collections()
        if self.sync_running:
            self.sync_text([message.name])
            self.notify(f"Added the collection {message.name!r}; its text is indexed now, its vectors "
                        "join the running embedding.", timeout=6)
            return
        self.notify(f"Added the collection {message.name!r}; indexing it now.", timeout=5)
        self.start_sync([message.name])
