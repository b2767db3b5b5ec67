"""Clip a web page into a collection; a duplicate or a failure is offered again on the next try.

A part of :class:`pms_tui.tui.screens.search.SearchScreen`: it owns the ``clipping`` reactive
(controllers.state), the clip worker and its messages."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from textual import work

from pms_tui.core.errors import describe

from ..messages import ClipFailed, ClipFinished
from ..sample import is_sample_path
from . import opened, while_running
from .search_runs import SearchRuns

if TYPE_CHECKING:
    from ..dialogs.clip import ClipRequest


class ClipPart(SearchRuns):
    """Clipping a web page: the dialog, the worker, what it reports."""

    def init_clips(self) -> None:
        self._clip_retry: ClipRequest | None = None  # prefills the next dialog

    def clip_targets(self) -> list[str]:
        """Collections a clip may be written into: existing folders, never the bundled guide."""
        kb = self.kb
        if kb is None:
            return []
        try:
            return [c.name for c in kb.collections.list() if c.exists and not is_sample_path(c.path)]
        except Exception:  # noqa: BLE001
            return []

    def action_clip(self) -> None:
        from ..dialogs.clip import ClipDialog  # when first asked for, not before the app's first screen

        targets = self.clip_targets()
        if not targets:
            self.notify(f"Clips are saved into a folder of your own: add one first with "
                             f"{self.key('app.add_collection')}.", severity="warning", timeout=8)
            return
        retry = self._clip_retry
        self._clip_retry = None
        default = retry.collection if retry else (self.collection_filter or targets[0])
        dialog = ClipDialog(targets, collection=default, url=retry.url if retry else "",
                            update=bool(retry), read_clipboard=self.read_clipboard)
        self.app.push_screen(dialog, self._clip_requested)

    @while_running
    def _clip_requested(self, request: ClipRequest | None) -> None:
        if request is None:
            return
        self.clipping = True
        self.clip_worker(request)

    @work(thread=True, group="clip", exit_on_error=False)
    def clip_worker(self, request: ClipRequest) -> None:
        try:
            result = opened(self.kb).clip(request.url, request.collection, update=request.update)
        except Exception as exc:  # noqa: BLE001 - ClipError, CollectionError, database errors
            self.post_message(ClipFailed(request, describe(exc)))
            return
        self.post_message(ClipFinished(request, result))

    @while_running
    def on_clip_finished(self, message: ClipFinished) -> None:
        result = message.result
        self.clipping = False
        if result.status == "duplicate":
            self._clip_retry = replace(message.request, update=True)
            self.notify(f"{result.message} Press {self.key('app.clip')} then enter to update it.",
                             title="Already clipped", severity="warning", timeout=10)
            return
        self.notify(result.message, title="Clipped", timeout=6)
        self.refresh_collections()
        self.refresh_stats()
        self.request_search(immediate=True)

    @while_running
    def on_clip_failed(self, message: ClipFailed) -> None:
        self.clipping = False
        self._clip_retry = replace(message.request, update=False)
        self.notify(message.reason, title="Clip failed", severity="error", timeout=10)
