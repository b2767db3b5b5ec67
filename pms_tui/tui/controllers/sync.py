"""Sync in the background, the bundled guide on first run, and adding a folder of notes."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from textual import work

from pms_tui.core.config import load_state, save_state
from pms_tui.core.errors import describe

from ..dialogs.add_collection import AddCollectionDialog, AddCollectionRequest
from ..messages import CollectionAdded, CollectionRefused, SyncFailed, SyncFinished, SyncProgressed
from ..sample import OFFERED_STATE, SAMPLE_DESCRIPTION, SAMPLE_NAME, sample_dir
from . import while_running


class SyncActions:
    """Mixed into the search screen (which supplies ``kb``, the panes and ``request_search``)."""

    def init_sync(self) -> None:
        self._stop_sync = threading.Event()  # set on quit: a running sync stops at its next step

    def stop_sync(self) -> None:
        self._stop_sync.set()

    def action_sync(self) -> None:
        self.start_sync()

    def start_sync(self, collections: Sequence[str] | None = None, quiet: bool = False) -> None:
        if self.kb is None:
            self.notify("The index is not open; see the earlier error.", severity="error")
            return
        if any(w.group == "sync" and w.is_running for w in self.app.workers):
            if not quiet:
                self.notify("A sync is already running.", severity="warning")
            return
        self.refresh_collections()
        if not self.collection_names:
            if not quiet:
                self.notify(f"No collections yet: press {self.key('app.add_collection')} to add a folder "
                            "of notes.", severity="warning")
            return
        self.status.reset_progress()
        self.status.update_status(sync="syncing")
        self.sync(list(collections) if collections else None, quiet)

    @work(thread=True, group="sync", exit_on_error=False)
    def sync(self, collections: list[str] | None, quiet: bool) -> None:
        def progress(done: int, total: int, phase: str) -> None:
            self.post_message(SyncProgressed(done, total, phase))

        try:
            # quitting sets the event: the sync stops between notes, each its own transaction
            report = self.kb.sync(progress=progress, collections=collections, cancel=self._stop_sync)
        except Exception as exc:  # noqa: BLE001 - busy, mismatch, locked, model: one sentence
            self.post_message(SyncFailed(describe(exc)))
            return
        if not report.cancelled:
            self.post_message(SyncFinished(report, quiet))

    @while_running
    def on_sync_progressed(self, message: SyncProgressed) -> None:
        if message.phase == "done":
            return
        self.status.set_progress(message.done, message.total)
        detail = f" {message.done}/{message.total}" if message.total else ""
        self.status.update_status(sync=f"syncing: {message.phase}{detail}")
        self.status.set_class(True, "-syncing")

    @while_running
    def on_sync_finished(self, message: SyncFinished) -> None:
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
    def on_sync_failed(self, message: SyncFailed) -> None:
        self.status.update_status(sync="idle")
        self.notify(message.reason, title="Sync failed", severity="error", timeout=10)

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
        self.refresh_collections()
        self.notify(f"Added the collection {message.name!r}; indexing it now.", timeout=5)
        self.start_sync([message.name])
