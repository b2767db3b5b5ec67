"""The screen's clipper: a web page clipped into a collection; a duplicate or a failure is
offered again on the next try.

The clip runs in a thread worker of the clipper; as it goes, the clipper posts where it is
(``Clipper.Progressed``: the page's host, the engine's stage, the seconds it has taken, which
the status line shows). The stop key stops a clip: its worker is cancelled and what it
returns is dropped, said once if the page was saved before the stop reached it (the clip of
a large page runs in the engine, bounded there). The dialog offers the collection last
clipped into (remembered in the app state), else the person's first own collection: never,
silently, a collection just added.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from textual import work
from textual.message import Message
from textual.worker import Worker, WorkerState, get_current_worker

from pms_tui.core.config import load_state, save_state
from pms_tui.core.errors import ClipStopped, describe
from pms_tui.core.safe_text import one_line

from ..sample import is_sample_path
from ..widgets.status import Clipping
from . import Part, opened, while_running

if TYPE_CHECKING:
    from textual.timer import Timer

    from ..dialogs.clip import ClipRequest

CLIP_STATE = "clip_collection"  # the collection last clipped into (state.json)


class Clipper(Part):
    """Clipping a web page: the dialog, the worker, its progress, stopping it, what it reports."""

    class Progressed(Message):
        """Where the clip under way is: its host, its stage, the seconds it has taken."""

        def __init__(self, clipping: Clipping) -> None:
            super().__init__()
            self.clipping = clipping

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, Clipper.Progressed)

    class ClipFinished(Message):
        """The page was clipped (``result.status``: created, updated, or a duplicate)."""

        def __init__(self, request: ClipRequest, result) -> None:
            super().__init__()
            self.request = request
            self.result = result

    class ClipFailed(Message):
        def __init__(self, request: ClipRequest, reason: str) -> None:
            super().__init__()
            self.request = request
            self.reason = reason

    class ClipStopped(Message):
        """The stop key stopped the clip under way."""

    def __init__(self, kb, keymap=None, *, read_clipboard: bool = True, **kwargs) -> None:
        super().__init__(kb, keymap, **kwargs)
        self.read_clipboard = read_clipboard
        self._retry: ClipRequest | None = None  # prefills the next dialog
        self._worker: Worker | None = None
        self._host = ""
        self._stage = ""
        self._started = 0.0
        self._clock: Timer | None = None

    @property
    def running(self) -> bool:
        """A clip is under way (until it has said how it ended)."""
        return self._worker is not None

    def targets(self) -> list[str]:
        """Collections a clip may be written into, those the person made writable first (a
        folder of their own notes, not a shared or read-only library), then in the order they
        were added: existing folders, never the bundled guide."""
        kb = self.kb
        if kb is None:
            return []
        try:
            own = [c for c in kb.collections.list() if c.exists and not is_sample_path(c.path)]
        except Exception:  # noqa: BLE001
            return []
        return [c.name for c in sorted(own, key=lambda c: (not c.writable, c.created_at, c.id))]

    def _last_clipped(self) -> str | None:
        try:
            name = load_state(opened(self.kb).home).get(CLIP_STATE)
        except Exception:  # noqa: BLE001 - a state that cannot be read: the first collection
            return None
        return name if isinstance(name, str) else None

    def ask(self) -> None:
        """The dialog, prefilled with the request to try again, if any."""
        from ..dialogs.clip import ClipDialog  # when first asked for, not before the app's first screen

        targets = self.targets()
        if not targets:
            self.notify(f"Clips are saved into a folder of your own: add one first with "
                        f"{self.key('app.add_collection')}.", severity="warning", timeout=8)
            return
        retry, self._retry = self._retry, None
        last = self._last_clipped()
        default = retry.collection if retry else (last if last in targets else targets[0])
        dialog = ClipDialog(targets, collection=default, url=retry.url if retry else "",
                            update=bool(retry), read_clipboard=self.read_clipboard)
        self.app.push_screen(dialog, self._requested)

    @while_running
    def _requested(self, request: ClipRequest | None) -> None:
        if request is not None:
            self.clip(request)

    def clip(self, request: ClipRequest) -> None:
        if self.running:
            self.notify("A page is being clipped; stop it first with "
                        f"{self.key('app.stop_sync')} or wait for it.", severity="warning", timeout=6)
            self._retry = request
            return
        self._started = time.monotonic()
        self._host = one_line(urlsplit(request.url).hostname or request.url)[:60]
        self._stage = ""
        self._clock = self.set_interval(1.0, self._tick, name="clip-clock")
        self._worker = self.clip_worker(request)
        self.post_message(self.Progressed(self._clipping()))
        self.notify(f"Clipping {self._host}; {self.key('app.stop_sync')} stops it.", timeout=4)

    def _clipping(self) -> Clipping:
        return Clipping(self._host, self._stage, int(time.monotonic() - self._started))

    def _tick(self) -> None:
        if self.running:
            self.post_message(self.Progressed(self._clipping()))

    def stop(self) -> bool:
        """The stop key: the clip under way stops. False when none runs."""
        worker = self._worker
        if worker is None:
            return False
        worker.cancel()
        self._ended()
        self.notify(f"Stopped clipping {self._host or 'the page'}; nothing was written unless the note had "
                    "been saved.", title="Clip stopped", timeout=6)
        self.post_message(self.ClipStopped())
        return True

    def _ended(self) -> None:
        self._worker = None
        if self._clock is not None:
            self._clock.stop()
            self._clock = None

    @work(thread=True, group="clip", exit_on_error=False)
    def clip_worker(self, request: ClipRequest) -> None:
        worker = get_current_worker()

        def progress(done: int, total: int, stage: str) -> None:
            if not worker.is_cancelled:
                self._stage = stage
                self.post_message(self.Progressed(self._clipping()))

        try:
            result = opened(self.kb).clipper.clip(request.url, request.collection, update=request.update,
                                          progress=progress, cancel=worker.cancelled_event)
        except ClipStopped:  # stopped before the note was written: nothing to say but the stop's toast
            return
        except Exception as exc:  # noqa: BLE001 - ClipError, CollectionError, database errors
            if not worker.is_cancelled:
                self.post_message(self.ClipFailed(request, describe(exc)))
            return
        if worker.is_cancelled or result.stopped:  # stopped after the note was written: it is whole
            if result.status in ("created", "updated"):
                self.app.call_from_thread(self.notify, f"The page had been saved before the clip stopped: "
                                          f"{result.message} The next sync finishes indexing it.",
                                          title="Clip stopped", timeout=8)
            return
        self.post_message(self.ClipFinished(request, result))

    # -- what the clipper says of its own messages (then they reach the screen) -------------------
    def on_clipper_progressed(self, message: Progressed) -> None:
        if not self.running:
            message.stop()  # posted by the thread before the stop reached it: no clip is under way

    @while_running
    def on_clipper_clip_finished(self, message: ClipFinished) -> None:
        result = message.result
        self._ended()
        if result.status == "duplicate":
            self._retry = replace(message.request, update=True)
            self.notify(result.message_with(f"press {self.key('app.clip')} then enter"),
                        title="Already clipped", severity="warning", timeout=10)
            return
        try:
            save_state(opened(self.kb).home, **{CLIP_STATE: message.request.collection})
        except Exception:  # noqa: BLE001 - the next dialog would only offer the first collection
            pass
        self.notify(result.message, title="Clipped", timeout=6)

    @while_running
    def on_clipper_clip_failed(self, message: ClipFailed) -> None:
        self._ended()
        self._retry = replace(message.request, update=False)
        self.notify(message.reason, title="Clip failed", severity="error", timeout=10)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The clip's worker ended without saying how (the engine stopped it, or it raised past
        its own handling): the clip is no longer under way."""
        if event.state == WorkerState.ERROR:
            event.stop()
            self.notify(describe(event.worker.error or RuntimeError("the clip failed")), title="Clip failed",
                        severity="error", timeout=10)
        if event.worker is self._worker and event.worker.is_finished:
            self._ended()
            self.post_message(self.ClipStopped())
