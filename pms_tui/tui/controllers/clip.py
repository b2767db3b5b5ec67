"""Clip a web page into a collection; a duplicate or a failure is offered again on the next try."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from pms_tui.core.errors import describe

from ..messages import ClipFailed, ClipFinished
from ..sample import is_sample_path
from . import Host, opened, thread_worker, while_running

if TYPE_CHECKING:
    from ..dialogs.clip import ClipRequest


class ClipController:
    """Owned by the search screen as ``screen.clips``; the screen hands it ``ClipFinished``
    and ``ClipFailed``."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self._clip_retry: ClipRequest | None = None  # prefills the next dialog

    def clip_targets(self) -> list[str]:
        """Collections a clip may be written into: existing folders, never the bundled guide."""
        kb = self.host.kb
        if kb is None:
            return []
        try:
            return [c.name for c in kb.collections.list() if c.exists and not is_sample_path(c.path)]
        except Exception:  # noqa: BLE001
            return []

    def open_dialog(self) -> None:
        from ..dialogs.clip import ClipDialog  # when first asked for, not before the app's first screen

        targets = self.clip_targets()
        if not targets:
            self.host.notify(f"Clips are saved into a folder of your own: add one first with "
                             f"{self.host.key('app.add_collection')}.", severity="warning", timeout=8)
            return
        retry = self._clip_retry
        self._clip_retry = None
        default = retry.collection if retry else (self.host.collection_filter or targets[0])
        dialog = ClipDialog(targets, collection=default, url=retry.url if retry else "",
                            update=bool(retry), read_clipboard=self.host.read_clipboard)
        self.host.app.push_screen(dialog, self._clip_requested)

    @while_running
    def _clip_requested(self, request: ClipRequest | None) -> None:
        if request is None:
            return
        self.host.status.update_status(clip="clipping…")
        thread_worker(self.host, "clip", "clip", self._clip, request)

    def _clip(self, request: ClipRequest) -> None:
        try:
            result = opened(self.host.kb).clip(request.url, request.collection, update=request.update)
        except Exception as exc:  # noqa: BLE001 - ClipError, CollectionError, database errors
            self.host.post_message(ClipFailed(request, describe(exc)))
            return
        self.host.post_message(ClipFinished(request, result))

    @while_running
    def finished(self, message: ClipFinished) -> None:
        result = message.result
        self.host.status.update_status(clip="")
        if result.status == "duplicate":
            self._clip_retry = replace(message.request, update=True)
            self.host.notify(f"{result.message} Press {self.host.key('app.clip')} then enter to update it.",
                             title="Already clipped", severity="warning", timeout=10)
            return
        self.host.notify(result.message, title="Clipped", timeout=6)
        self.host.refresh_collections()
        self.host.refresh_stats()
        self.host.request_search(immediate=True)

    @while_running
    def failed(self, message: ClipFailed) -> None:
        self.host.status.update_status(clip="")
        self._clip_retry = replace(message.request, update=False)
        self.host.notify(message.reason, title="Clip failed", severity="error", timeout=10)
