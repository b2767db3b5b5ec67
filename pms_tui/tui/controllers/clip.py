"""Clip a web page into a collection; a duplicate or a failure is offered again on the next try.

A part of :class:`pms_tui.tui.screens.search.SearchScreen`: it owns the ``clipping`` reactive
(controllers.state: the page's host, the clip's stage and the seconds it has taken, which the
status line shows), the clip worker and its messages. The stop key (ctrl+z) stops a clip: its
worker is cancelled and what it returns is dropped, said once if the page was saved before
the stop reached it (the clip of a large page runs in the engine, bounded there). The dialog
offers the collection last clipped into (remembered in the app state), else the person's
first own collection: never, silently, a collection just added.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from textual import work
from textual.worker import Worker, get_current_worker

from pms_tui.core.config import load_state, save_state
from pms_tui.core.errors import ClipStopped, describe
from pms_tui.core.safe_text import one_line

from ..messages import ClipFailed, ClipFinished, StopRequested
from ..sample import is_sample_path
from ..widgets.status import Clipping
from . import opened, while_running
from .search_runs import SearchRuns

if TYPE_CHECKING:
    from textual.timer import Timer

    from ..dialogs.clip import ClipRequest

CLIP_STATE = "clip_collection"  # the collection last clipped into (state.json)


class ClipPart(SearchRuns):
    """Clipping a web page: the dialog, the worker, its progress, stopping it, what it reports."""

    def init_clips(self) -> None:
        self._clip_retry: ClipRequest | None = None  # prefills the next dialog
        self._clip_worker: Worker | None = None
        self._clip_started = 0.0
        self._clip_clock: Timer | None = None

    def clip_targets(self) -> list[str]:
        """Collections a clip may be written into, the person's first first (the order they
        were added in): existing folders, never the bundled guide."""
        kb = self.kb
        if kb is None:
            return []
        try:
            own = [c for c in kb.collections.list() if c.exists and not is_sample_path(c.path)]
        except Exception:  # noqa: BLE001
            return []
        return [c.name for c in sorted(own, key=lambda c: (c.created_at, c.id))]

    def _last_clipped(self) -> str | None:
        try:
            name = load_state(opened(self.kb).home).get(CLIP_STATE)
        except Exception:  # noqa: BLE001 - a state that cannot be read: the first collection
            return None
        return name if isinstance(name, str) else None

    def action_clip(self) -> None:
        from ..dialogs.clip import ClipDialog  # when first asked for, not before the app's first screen

        targets = self.clip_targets()
        if not targets:
            self.notify(f"Clips are saved into a folder of your own: add one first with "
                             f"{self.key('app.add_collection')}.", severity="warning", timeout=8)
            return
        retry = self._clip_retry
        self._clip_retry = None
        last = self._last_clipped()
        default = retry.collection if retry else (last if last in targets else targets[0])
        dialog = ClipDialog(targets, collection=default, url=retry.url if retry else "",
                            update=bool(retry), read_clipboard=self.read_clipboard)
        self.app.push_screen(dialog, self._clip_requested)

    @while_running
    def _clip_requested(self, request: ClipRequest | None) -> None:
        if request is None:
            return
        if self._clip_worker is not None and self._clip_worker.is_running:
            self.notify("A page is being clipped; stop it first with "
                        f"{self.key('app.stop_sync')} or wait for it.", severity="warning", timeout=6)
            self._clip_retry = request
            return
        self._clip_started = time.monotonic()
        self.clipping = Clipping(one_line(urlsplit(request.url).hostname or request.url)[:60])
        self._clip_clock = self.set_interval(1.0, self._clip_tick, name="clip-clock")
        self._clip_worker = self.clip_worker(request)
        self.notify(f"Clipping {self.clipping.host}; {self.key('app.stop_sync')} stops it.", timeout=4)

    def _clip_tick(self) -> None:
        if self.clipping is not None:
            self.clipping = replace(self.clipping, seconds=int(time.monotonic() - self._clip_started))

    def _clip_ended(self) -> None:
        self.clipping = None
        self._clip_worker = None
        if self._clip_clock is not None:
            self._clip_clock.stop()
            self._clip_clock = None

    @work(thread=True, group="clip", exit_on_error=False)
    def clip_worker(self, request: ClipRequest) -> None:
        worker = get_current_worker()

        def progress(done: int, total: int, stage: str) -> None:
            if not worker.is_cancelled:
                self.app.call_from_thread(self._clip_stage, stage)

        try:
            result = opened(self.kb).clipper.clip(request.url, request.collection, update=request.update,
                                          progress=progress, cancel=worker.cancelled_event)
        except ClipStopped:  # stopped before the note was written: nothing to say but the stop's toast
            return
        except Exception as exc:  # noqa: BLE001 - ClipError, CollectionError, database errors
            if not worker.is_cancelled:
                self.post_message(ClipFailed(request, describe(exc)))
            return
        if worker.is_cancelled or result.stopped:  # stopped after the note was written: it is whole
            if result.status in ("created", "updated"):
                self.app.call_from_thread(self.notify, f"The page had been saved before the clip stopped: "
                                          f"{result.message} The next sync finishes indexing it.",
                                          title="Clip stopped", timeout=8)
            return
        self.post_message(ClipFinished(request, result))

    def on_stop_requested(self, message: StopRequested) -> None:
        worker = self._clip_worker
        if worker is None or not worker.is_running:
            return
        worker.cancel()
        host = self.clipping.host if self.clipping is not None else "the page"
        self._clip_ended()
        self.notify(f"Stopped clipping {host}; nothing was written unless the note had been saved.",
                    title="Clip stopped", timeout=6)

    def _clip_stage(self, stage: str) -> None:
        if self.clipping is not None:
            self.clipping = replace(self.clipping, stage=stage)

    @while_running
    def on_clip_finished(self, message: ClipFinished) -> None:
        result = message.result
        self._clip_ended()
        if result.status == "duplicate":
            self._clip_retry = replace(message.request, update=True)
            self.notify(result.message_with(f"press {self.key('app.clip')} then enter"),
                             title="Already clipped", severity="warning", timeout=10)
            return
        try:
            save_state(opened(self.kb).home, **{CLIP_STATE: message.request.collection})
        except Exception:  # noqa: BLE001 - the next dialog would only offer the first collection
            pass
        self.notify(result.message, title="Clipped", timeout=6)
        self.refresh_collections()
        self.refresh_stats()
        self.request_search(immediate=True)

    @while_running
    def on_clip_failed(self, message: ClipFailed) -> None:
        self._clip_ended()
        self._clip_retry = replace(message.request, update=False)
        self.notify(message.reason, title="Clip failed", severity="error", timeout=10)
