"""Sync in the background, the bundled guide on first run, and adding a folder of notes.

A part of :class:`pms_tui.tui.screens.search.SearchScreen`: it owns the ``sync_progress``,
``text_progress`` and ``watch_words`` reactives (controllers.state), the sync, text-sync,
watch and add-a-folder workers, and the messages they post."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from textual import on, work
from textual.worker import Worker, WorkerState, get_current_worker

from pms_tui.core.config import load_state, save_state
from pms_tui.core.errors import describe
from pms_tui.core.results import ProgressMeter, SyncReport

from ..messages import (
    CollectionAdded,
    CollectionRefused,
    IndexChanged,
    SyncFailed,
    SyncFinished,
    SyncProgressed,
    StopRequested,
    SyncRequested,
    TextSynced,
    WatchModeChanged,
)
from ..sample import OFFERED_STATE, SAMPLE_NAME, sample_dir
from . import opened, while_running
from ..widgets.status import Progress
from .search_runs import SearchRuns

if TYPE_CHECKING:
    from ..dialogs.add_collection import AddCollectionRequest

WATCH_GROUP = "watch"  # the watch worker's group: it never completes by itself


class SyncPart(SearchRuns):
    """Sync, watch mode, the bundled guide and adding a folder.

    A sync writes text first, so new notes are searchable while their vectors are embedded
    behind (the status line says which phase, how far, the rate and the time left). ctrl+z
    (``app.stop_sync``) or the palette stops it between notes or embedding runs; quitting
    does the same, and the next sync or start carries on from the queue in the database.
    Watch mode (``watch = true``, the default) syncs notes as they are saved. A folder added,
    or a sync asked for, while a sync runs gets its text written at once by a text sync of its
    own (``sync_text``: the engine writes it between two embedding runs) and its vectors join
    the running embedding; the status line shows both.

    Both run in Textual thread workers, and stopping one is cancelling its worker: the
    worker's own ``cancelled_event`` is what the engine's loop checks (``kb.sync(cancel=...)``,
    ``kb.index.watch(stop)``), as toolong hands it to the loop that scans.
    """

    def init_sync(self) -> None:
        self._sync_worker: Worker | None = None  # the last sync started; cancelled to stop it
        self._sync_busy = False  # its thread is still at work (a stopped one finishes its note)
        self._watch_worker: Worker | None = None  # watch mode, cancelled on quit
        # not a stop: tells the watcher its folders changed (a collection added or removed)
        self._watch_restart = threading.Event()
        self._quitting = False  # the app is closing: nothing more is started or reported
        self._meter = ProgressMeter()
        self._text_done = False
        self._sync_after: list[str] = []  # collections added while a sync ran: synced when it ends
        self._text_workers: list[Worker] = []  # text syncs started while a sync ran (sync_text)

    def stop_sync(self) -> None:
        """On quit: the running sync and watching are cancelled, and nothing more starts."""
        self._quitting = True
        for worker in (self._sync_worker, self._watch_worker, *self._text_workers):
            if worker is not None:
                worker.cancel()

    @property
    def sync_running(self) -> bool:
        """A sync is at work (one being stopped too, until it has written its last note)."""
        return self._sync_busy

    def action_sync(self) -> None:
        self.start_sync()

    def on_sync_requested(self, message: SyncRequested) -> None:
        self.start_sync(message.collections, message.quiet, message.embed_only)

    def action_stop_sync(self) -> None:
        """The stop key: this run stops between notes or embedding runs; a clip under way
        stops too (controllers.clip)."""
        if self.clipping is not None:
            self.post_message(StopRequested())
        if not self.sync_running:
            if self.clipping is None:
                self.notify("Nothing to stop: no sync or clip is running.", timeout=3)
            return
        if self._sync_worker is not None:
            self._sync_worker.cancel()
        for worker in self._text_workers:
            worker.cancel()
        if self.sync_progress is not None:
            self.sync_progress = replace(self.sync_progress, stopping=True)

    def start_sync(self, collections: Sequence[str] | None = None, quiet: bool = False,
                   embed_only: bool = False) -> None:
        if self.kb is None:
            self.notify("The index is not open; see the earlier error.", severity="error")
            return
        if self.sync_running:
            if not embed_only:  # the running one may embed for minutes: the text goes in now
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
        if self._quitting:
            return
        self._meter = ProgressMeter()
        self._text_done = False
        self.sync_progress = Progress()  # started: no phase yet
        self._sync_busy = True
        self._sync_worker = self.sync_worker(list(collections) if collections else None, quiet, embed_only)

    @work(thread=True, group="sync", exit_on_error=False)
    def sync_worker(self, collections: list[str] | None, quiet: bool, embed_only: bool = False) -> None:
        try:
            self._sync_in_worker(get_current_worker().cancelled_event, collections, quiet, embed_only)
        finally:
            self._sync_busy = False

    def _sync_in_worker(self, cancel: threading.Event, collections: list[str] | None, quiet: bool,
                        embed_only: bool) -> None:

        def progress(done: int, total: int, phase: str) -> None:
            self.post_message(SyncProgressed(done, total, phase))

        def waiting(pid) -> None:
            who = f"pid {pid}" if pid else "another pms-tui"
            self.post_message(SyncProgressed(0, 0, f"waiting for {who}"))

        try:
            if embed_only:
                embedded = opened(self.kb).index.embed_pending(progress=progress, cancel=cancel, on_wait=waiting)
                report = SyncReport(chunks_embedded=embedded, cancelled=cancel.is_set())
            else:
                report = opened(self.kb).sync(progress=progress, collections=collections, cancel=cancel,
                                              on_wait=waiting)
        except Exception as exc:  # noqa: BLE001 - busy, mismatch, locked, model: one sentence
            self.post_message(SyncFailed(describe(exc)))
            return
        if not self._quitting:
            self.post_message(SyncFinished(report, quiet or embed_only))

    def sync_text(self, collections: list[str] | None) -> None:
        """The text of these collections (None: all) while another sync runs, in a worker of
        its own (group ``sync-text``): written after that sync's own text, between two of its
        embedding runs; the new texts join its queue (or are embedded here if it ended)."""
        if self._quitting or self.kb is None:
            return
        self._text_workers = [w for w in self._text_workers if w.is_running] + [self.sync_text_worker(collections)]

    @work(thread=True, group="sync-text", exit_on_error=False)
    def sync_text_worker(self, collections: list[str] | None) -> None:
        cancel = get_current_worker().cancelled_event
        label = ", ".join(repr(name) for name in collections) if collections else "changed notes"

        def progress(done: int, total: int, phase: str) -> None:
            self.post_message(SyncProgressed(done, total, phase, text_of=label))

        try:
            report = opened(self.kb).sync(progress=progress, collections=collections, cancel=cancel, wait=True)
        except Exception as exc:  # noqa: BLE001 - a removed collection, a locked file: one sentence
            self.post_message(TextSynced(label, None, describe(exc)))
            return
        if not self._quitting:
            self.post_message(TextSynced(label, report))

    @while_running
    def on_text_synced(self, message: TextSynced) -> None:
        self.text_progress = None
        if message.error:
            self.notify(message.error, title="Sync failed", severity="error", timeout=10)
            return
        report = message.report
        assert report is not None  # a text sync without an error has its report
        self.refresh_collections()
        self.refresh_stats()
        if report.changed:
            self.notify(f"Indexed the text of {message.label}: +{len(report.added)} new, "
                             f"~{len(report.modified)} modified, -{len(report.deleted)} deleted; searchable by "
                             "their words now, vectors queued.", timeout=6)
            self.reader.refresh_view()
            self.request_search(immediate=True)
            self.post_message(IndexChanged())
        if report.skipped:
            shown = "; ".join(f"{path}: {reason}" for path, reason in report.skipped[:3])
            self.notify(f"Skipped {shown}.", severity="warning", timeout=10)

    @while_running
    def on_sync_progressed(self, message: SyncProgressed) -> None:
        if message.phase == "done":
            return
        if message.text_of is not None and message.phase != "embedding":
            self.text_progress = Progress(message.phase, message.done, message.total, of=message.text_of)
            return
        self._meter.update(message.done, message.total, message.phase)
        if message.phase == "embedding" and not self._text_done:
            self._text_done = True  # every note's text is in: show the new notes now
            self.refresh_stats()
            self.request_search(immediate=True)
        if self.sync_progress is not None and self.sync_progress.stopping:
            return  # stopped: it says so until it has finished its note
        meter = self._meter
        self.sync_progress = Progress(meter.phase, meter.done, meter.total, meter.rate, meter.eta)

    @while_running
    def on_sync_finished(self, message: SyncFinished) -> None:
        report = message.report
        self.sync_progress = None
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
        if report.documents and not message.quiet:  # PDF and Word files: which were read (skips below)
            more = f" (and {len(report.documents) - 3} more)" if len(report.documents) > 3 else ""
            self.notify(f"Read {', '.join(report.documents[:3])}{more}.", title="Documents", timeout=6)
        for problem in report.problems:
            self.notify(problem, severity="warning", timeout=10)
        if report.skipped:
            shown = "; ".join(f"{path}: {reason}" for path, reason in report.skipped[:3])
            more = f" (and {len(report.skipped) - 3} more)" if len(report.skipped) > 3 else ""
            self.notify(f"Skipped {shown}{more}.", severity="warning", timeout=10)
        if report.changed or report.chunks_embedded:
            self.reader.refresh_view()
            self.request_search(immediate=True)
            self.post_message(IndexChanged())  # saved searches, completion values (controllers.query)

    @while_running
    def on_watch_mode_changed(self, message: WatchModeChanged) -> None:
        self.watch_words = message.mode

    @while_running
    def on_sync_failed(self, message: SyncFailed) -> None:
        self.sync_progress = None
        self.notify(message.reason, title="Sync failed", severity="error", timeout=10)

    @on(Worker.StateChanged)
    def _sync_worker_ended(self, event: Worker.StateChanged) -> None:
        """The sync worker has finished: start the sync of the folders added meanwhile, unless
        the user stopped syncing."""
        if event.worker.group != "sync" or event.state not in (WorkerState.SUCCESS, WorkerState.ERROR,
                                                               WorkerState.CANCELLED):
            return
        names, self._sync_after = self._sync_after, []
        stopped = self._sync_worker is not None and self._sync_worker.is_cancelled
        if names and not stopped and not self._quitting:
            self.start_sync(names)

    # -- watch mode -------------------------------------------------------------------------------
    def start_watch(self) -> None:
        """Watch in a worker of its own group, ``watch``: it runs until cancelled (on quit), so
        whoever waits for the app's work to finish leaves that group out."""
        if self.kb is None or self.kb.model.mismatch:
            return
        # after the next paint (the app's first screen, at start): watchfiles sets up its watches
        # holding the GIL (over a vault of tens of thousands of files the UI thread stops while it does).
        # Right after the paint, no one has reacted to the screen yet (only keys typed ahead
        # wait); a timer would land on the first query instead.
        self.app.call_after_refresh(self._start_watch_worker)

    def _start_watch_worker(self) -> None:
        if not self._quitting:
            self._watch_worker = self.folder_watcher()

    @work(thread=True, group=WATCH_GROUP, exit_on_error=False)
    def folder_watcher(self) -> None:
        def synced(report: SyncReport) -> None:
            self.post_message(SyncFinished(report, True))

        def mode(text: str) -> None:
            if not self._quitting:
                self.post_message(WatchModeChanged(text))

        try:
            opened(self.kb).index.watch(get_current_worker().cancelled_event, on_sync=synced, on_mode=mode,
                                  restart=self._watch_restart)
        except Exception as exc:  # noqa: BLE001 - the app goes on without watching
            self.post_message(SyncFailed(f"Watching the folders stopped: {describe(exc)}"))

    # -- first run: the bundled guide -------------------------------------------------------------
    def sample_offered(self) -> bool:
        """The guide was added once (and maybe removed since): never offer it again."""
        return bool(load_state(opened(self.kb).home).get(OFFERED_STATE))

    def _remember_sample_offered(self) -> None:
        try:
            save_state(opened(self.kb).home, **{OFFERED_STATE: True})
        except Exception:  # noqa: BLE001 - it would only be offered again next time
            pass

    def action_add_sample(self, first_run: bool = False) -> None:
        folder = sample_dir()
        if self.kb is None or folder is None:
            if not first_run:
                self.notify("The bundled guide is missing from this installation.", severity="warning")
            return
        try:
            self.kb.scope.add_guide()
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
        from ..dialogs.add_collection import AddCollectionDialog  # when first asked for

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
            collection = opened(self.kb).collections.create(request.path, name=request.name)
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
