"""Clip a web page into a collection; a duplicate or a failure is offered again on the next try."""

from __future__ import annotations

from dataclasses import replace

from textual import work

from pms_tui.core.errors import describe

from ..dialogs.clip import ClipDialog, ClipRequest
from ..messages import ClipFailed, ClipFinished
from ..sample import is_sample_path
from . import while_running


class ClipActions:
    """Mixed into the search screen (which supplies ``kb``, the panes and ``request_search``)."""

    def init_clip(self) -> None:
        self._clip_retry: ClipRequest | None = None  # prefills the next dialog

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
        self.status.update_status(clip="clipping…")
        self.clip(request)

    @work(thread=True, group="clip", exit_on_error=False)
    def clip(self, request: ClipRequest) -> None:
        try:
            result = self.kb.clip(request.url, request.collection, update=request.update)
        except Exception as exc:  # noqa: BLE001 - ClipError, CollectionError, database errors
            self.post_message(ClipFailed(request, describe(exc)))
            return
        self.post_message(ClipFinished(request, result))

    @while_running
    def on_clip_finished(self, message: ClipFinished) -> None:
        result = message.result
        self.status.update_status(clip="")
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
        self.status.update_status(clip="")
        self._clip_retry = replace(message.request, update=False)
        self.notify(message.reason, title="Clip failed", severity="error", timeout=10)
