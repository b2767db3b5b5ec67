"""The screen's syncer: sync in the background, watch mode, the bundled guide on first run,
and adding a folder of notes.

A sync writes text first, so new notes are searchable while their vectors are embedded
behind (the status line says which phase, how far, the rate and the time left). The stop
key or the palette stops it between notes or embedding runs; quitting does the same, and
the next sync or start carries on from the queue in the database. Watch mode (``watch =
true``, the default) syncs notes as they are saved. A folder added, or a sync asked for,
while a sync runs gets its text written at once by a text sync of its own (the engine
writes it between two embedding runs) and its vectors join the running embedding.

Each runs in a thread worker of the syncer, and stopping one is cancelling its worker: the
worker's own ``cancelled_event`` is what the engine's loop checks (``kb.sync(cancel=...)``,
``kb.index.watch(stop)``), as toolong hands it to the loop that scans. A cancelled worker's state
changes at once while its thread finishes the note it is on, so the thread itself posts how
the sync ended (``Finished``), not its return value.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual import work
from textual.message import Message
from textual.worker import Worker, WorkerState, get_current_worker

from pms_tui.core.config import load_state, save_state
from pms_tui.core.errors import describe
from pms_tui.core.results import ProgressMeter, SyncReport

from ..sample import OFFERED_STATE, sample_dir
from ..widgets.status import Progress
from . import Part, opened, while_running

if TYPE_CHECKING:
    from ..dialogs.add_collection import AddCollectionRequest

WATCH_GROUP = "watch"  # the watch worker's group: it never completes by itself


class Syncer(Part):
    """Sync, text syncs beside a running one, watch mode, the bundled guide and adding a folder."""

    class Progressed(Message):
        """How far a sync is (``progress.of``: a text sync beside the running one, named)."""

        def __init__(self, progress: Progress) -> None:
            super().__init__()
            self.progress = progress

        def can_replace(self, message: Message) -> bool:  # only the newest progress of each sync matters
            return isinstance(message, Syncer.Progressed) and message.progress.of == self.progress.of

    class TextWritten(Message):
        """The running sync has written every note's text and embeds now: new notes are
        searchable by their words."""

    class Finished(Message):
        """A sync ended (stopped too: ``report.cancelled``); ``quiet``: say only problems."""

        def __init__(self, report: SyncReport, quiet: bool) -> None:
            super().__init__()
            self.report = report
            self.quiet = quiet

    class Failed(Message):
        def __init__(self, reason: str) -> None:
            super().__init__()
            self.reason = reason

    class TextSynced(Message):
        """A text sync started while another sync ran has written its text (or failed: ``error``)."""

        def __init__(self, label: str, report: SyncReport | None, error: str = "") -> None:
            super().__init__()
            self.label = label
            self.report = report
            self.error = error

    class WatchModeChanged(Message):
        """Watch mode says how it watches ("watching", "polling every N s")."""

        def __init__(self, mode: str) -> None:
            super().__init__()
            self.mode = mode

    class CollectionAdded(Message):
        """A folder became a collection (its sync starts next)."""

        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

    class CollectionRefused(Message):
        """The engine refused to add the folder; the dialog opens again with the reason."""

        def __init__(self, request: AddCollectionRequest, reason: str) -> None:
            super().__init__()
            self.request = request
            self.reason = reason

    def __init__(self, kb, keymap=None, **kwargs) -> None:
        super().__init__(kb, keymap, **kwargs)
        self._sync_worker: Worker | None = None  # the last sync started; cancelled to stop it
        self._busy = False  # its thread is still at work (a stopped one finishes its note)
        self._stopping = False  # that sync was stopped: its progress is no news
        self._watch_worker: Worker | None = None  # watch mode, cancelled on quit
        # not a stop: tells the watcher its folders changed (a collection added or removed)
        self._watch_restart = threading.Event()
        self._quitting = False  # the app is closing: nothing more is started or reported
        self._text_workers: list[Worker] = []  # text syncs started while a sync ran
        self.text_done = False  # the running sync has written its text (it embeds now)

    @property
    def running(self) -> bool:
        """A sync is at work (one being stopped too, until it has written its last note)."""
        return self._busy

    def start(self, collections: Sequence[str] | None = None, quiet: bool = False, embed_only: bool = False) -> None:
        """Sync these collections (None: all); while a sync runs, their text goes in now."""
        if self._quitting or self.kb is None:
            return
        if self._busy:
            if not embed_only:  # the running one may embed for minutes: the text goes in now
                self.sync_text(list(collections) if collections else None)
                if not quiet:
                    self.notify("Indexing the changed notes' text now; their vectors join the running "
                                "embedding.", timeout=5)
            return
        self.text_done = self._stopping = False
        self._busy = True
        self.post_message(self.Progressed(Progress()))  # started: no phase yet
        self._sync_worker = self.sync_worker(list(collections) if collections else None, quiet, embed_only)

    def stop(self) -> bool:
        """The stop key: the running sync stops between notes or embedding runs (its text
        syncs too). False when none runs."""
        if not self._busy:
            return False
        for worker in (self._sync_worker, *self._text_workers):
            if worker is not None:
                worker.cancel()
        self._stopping = True
        self.post_message(self.Progressed(Progress(stopping=True)))
        return True

    def stop_all(self) -> None:
        """On quit: the running sync and watching are cancelled, and nothing more starts."""
        self._quitting = True
        for worker in (self._sync_worker, self._watch_worker, *self._text_workers):
            if worker is not None:
                worker.cancel()

    # -- what the syncer says of its own messages (then they reach the screen) ---------------------
    def on_syncer_progressed(self, message: Progressed) -> None:
        if self._stopping and not message.progress.stopping and not message.progress.of:
            message.stop()  # posted by the thread before the stop reached it: it says "stopping" until it ends

    @while_running
    def on_syncer_finished(self, message: Finished) -> None:
        report = message.report
        if report.cancelled:
            self.notify("Sync stopped. What was written stays searchable; the next sync (or the next "
                        "start) carries on.", title="Sync stopped", timeout=6)
        elif not message.quiet:  # a quiet sync (watch mode, after the editor) tells only problems
            self.notify(
                f"+{len(report.added)} new, ~{len(report.modified)} modified, -{len(report.deleted)} deleted, "
                f"{report.skips} ({report.unchanged} unchanged) in {report.seconds:.1f} s.",
                title="Sync done", timeout=6,
            )
        if report.documents and not message.quiet:  # PDF and Word files: which were read (skips below)
            more = f" (and {len(report.documents) - 3} more)" if len(report.documents) > 3 else ""
            self.notify(f"Read {', '.join(report.documents[:3])}{more}.", title="Documents", timeout=6)
        for problem in report.problems:
            self.notify(problem, severity="warning", timeout=10)
        self._say_skipped(report, more_than=3)

    @while_running
    def on_syncer_text_synced(self, message: TextSynced) -> None:
        if message.error:
            self.notify(message.error, title="Sync failed", severity="error", timeout=10)
            return
        report = message.report
        assert report is not None  # a text sync without an error has its report
        if report.changed:
            self.notify(f"Indexed the text of {message.label}: +{len(report.added)} new, "
                        f"~{len(report.modified)} modified, -{len(report.deleted)} deleted; searchable by "
                        "their words now, vectors queued.", timeout=6)
        self._say_skipped(report)

    def _say_skipped(self, report: SyncReport, more_than: int | None = None) -> None:
        if report.skipped:
            shown = "; ".join(f"{path}: {reason}" for path, reason in report.skipped[:3])
            more = f" (and {len(report.skipped) - 3} more)" if more_than and len(report.skipped) > more_than else ""
            self.notify(f"Skipped {shown}{more}.", severity="warning", timeout=10)

    @while_running
    def on_syncer_failed(self, message: Failed) -> None:
        self.notify(message.reason, title="Sync failed", severity="error", timeout=10)

    @while_running
    def on_syncer_collection_refused(self, message: CollectionRefused) -> None:
        self.ask_folder(message.request, message.reason)  # again, with the reason

    @while_running
    def on_syncer_collection_added(self, message: CollectionAdded) -> None:
        if self._busy:
            self.sync_text([message.name])
            self.notify(f"Added the collection {message.name!r}; its text is indexed now, its vectors "
                        "join the running embedding.", timeout=6)
            return
        self.notify(f"Added the collection {message.name!r}; indexing it now.", timeout=5)
        self.start([message.name])

    @work(thread=True, group="sync", exit_on_error=False)
    def sync_worker(self, collections: list[str] | None, quiet: bool, embed_only: bool = False) -> None:
        cancel = get_current_worker().cancelled_event
        meter = ProgressMeter()

        def progress(done: int, total: int, phase: str) -> None:
            if phase == "done" or cancel.is_set():
                return
            meter.update(done, total, phase)
            if phase == "embedding" and not self.text_done:
                self.text_done = True  # every note's text is in: the new notes can be shown
                self.post_message(self.TextWritten())
            self.post_message(self.Progressed(Progress(meter.phase, meter.done, meter.total, meter.rate, meter.eta)))

        def waiting(pid) -> None:
            who = f"pid {pid}" if pid else "another pms-tui"
            self.post_message(self.Progressed(Progress(f"waiting for {who}")))

        try:
            kb = opened(self.kb)
            if embed_only:
                embedded = kb.index.embed_pending(progress=progress, cancel=cancel, on_wait=waiting)
                report = SyncReport(chunks_embedded=embedded, cancelled=cancel.is_set())
            else:
                report = kb.sync(progress=progress, collections=collections, cancel=cancel, on_wait=waiting)
        except Exception as exc:  # noqa: BLE001 - busy, mismatch, locked, model: one sentence
            if not self._quitting:
                self.post_message(self.Failed(describe(exc)))
            return
        finally:
            self._busy = False
        if not self._quitting:
            self.post_message(self.Finished(report, quiet or embed_only))

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
            if phase != "done":
                self.post_message(self.Progressed(Progress(phase, done, total, of=label)))

        try:
            report = opened(self.kb).sync(progress=progress, collections=collections, cancel=cancel, wait=True)
        except Exception as exc:  # noqa: BLE001 - a removed collection, a locked file: one sentence
            self.post_message(self.TextSynced(label, None, describe(exc)))
            return
        if not self._quitting:
            self.post_message(self.TextSynced(label, report))

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

    def folders_changed(self) -> None:
        """A collection was added or removed: the watcher watches the new set of folders."""
        self._watch_restart.set()

    @work(thread=True, group=WATCH_GROUP, exit_on_error=False)
    def folder_watcher(self) -> None:
        def synced(report: SyncReport) -> None:
            self.post_message(self.Finished(report, True))

        def mode(text: str) -> None:
            if not self._quitting:
                self.post_message(self.WatchModeChanged(text))

        try:
            opened(self.kb).index.watch(get_current_worker().cancelled_event, on_sync=synced, on_mode=mode,
                                  restart=self._watch_restart)
        except Exception as exc:  # noqa: BLE001 - the app goes on without watching
            self.post_message(self.Failed(f"Watching the folders stopped: {describe(exc)}"))

    # -- first run: the bundled guide -------------------------------------------------------------
    def sample_offered(self) -> bool:
        """The guide was added once (and maybe removed since): never offer it again."""
        return bool(load_state(opened(self.kb).home).get(OFFERED_STATE))

    def add_guide(self, first_run: bool = False) -> bool:
        """Add the bundled guide as a collection (said unless at the first run); True when it was."""
        if self.kb is None or sample_dir() is None:
            if not first_run:
                self.notify("The bundled guide is missing from this installation.", severity="warning")
            return False
        try:
            self.kb.scope.add_guide()
        except Exception as exc:  # noqa: BLE001 - e.g. a collection already named "guide"
            if not first_run:
                self.notify(describe(exc), severity="warning")
            return False
        try:
            save_state(self.kb.home, **{OFFERED_STATE: True})
        except Exception:  # noqa: BLE001 - it would only be offered again next time
            pass
        self.folders_changed()
        self.notify(
            f"Indexing the bundled user guide so you have something to search. Add your own notes "
            f"with {self.key('app.add_collection')} (or `pms-tui add PATH` in a shell).",
            title="Welcome to pms-tui", timeout=15,
        )
        return True

    # -- add a folder of notes --------------------------------------------------------------------
    def ask_folder(self, request: AddCollectionRequest | None = None, error: str = "") -> None:
        """The dialog that asks for a folder (again, with the engine's reason, if it refused one)."""
        from ..dialogs.add_collection import AddCollectionDialog  # when first asked for

        if self.kb is None:
            self.notify("The index is not open; see the earlier error.", severity="error")
            return
        self.app.push_screen(AddCollectionDialog(request, error), self._folder_chosen)

    @while_running
    def _folder_chosen(self, request: AddCollectionRequest | None) -> None:
        if request is not None:
            self.add_collection(request)

    @work(thread=True, exclusive=True, group="add-collection", exit_on_error=False)
    def add_collection(self, request: AddCollectionRequest) -> None:
        try:
            collection = opened(self.kb).collections.create(request.path, name=request.name)
        except Exception as exc:  # noqa: BLE001 - CollectionError and database errors alike
            self.post_message(self.CollectionRefused(request, describe(exc)))
            return
        self.folders_changed()  # watch its folder too
        self.post_message(self.CollectionAdded(collection.name))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A worker of the syncer that raised past its own handling: one sentence, here."""
        if event.state == WorkerState.ERROR:
            event.stop()
            self.post_message(self.Failed(describe(event.worker.error or RuntimeError("sync failed"))))
