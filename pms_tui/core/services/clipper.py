"""Web pages clipped into a collection (``kb.clipper``): the page fetched and written as a note
(``clip.note``), then indexed at once by the index's sync."""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import TYPE_CHECKING

from ..errors import CollectionError, UsageError
from ..indexing.collections import Collection, Collections
from ..results import SyncProgress, no_collections_notice
from .index import Index

if TYPE_CHECKING:
    from ..clip.note import ClipResult


class Clipper:
    """``collections``: where a clip may go; ``index``: what indexes it."""

    def __init__(self, collections: Collections, index: Index) -> None:
        self._collections = collections
        self._index = index

    def default_collection(self, name: str | None = None) -> Collection:
        """The collection a clip goes into: the one named, or the only one."""
        if name:
            return self._collections.get(name)
        cols = self._collections.list()
        if len(cols) == 1:
            return cols[0]
        raise UsageError("Say which collection to clip into: there are several." if cols else no_collections_notice())

    def clip(self, url: str, collection: str | Collection, *, update: bool = False,
             progress: SyncProgress | None = None, cancel: threading.Event | None = None,
             **fetch_options) -> ClipResult:
        """Save a web page as a note in a collection's folder and index it at once.
        ``fetch_options``: timeout, max_bytes, max_redirects (see clip.fetch.fetch).
        ``progress(done, total, stage)``, stage by stage: "fetching" (bytes read, of those
        announced or 0), "extracting" (of the page's characters), "writing", "indexing" (the
        note's text), "embedding" (passages, as a sync's), then "done". ``cancel`` (the CLI's
        ctrl+c, the app's stop): set before the note is written, ClipStopped and nothing is
        written; set while it is indexed, the note is kept whole and the result says
        ``stopped``: the next sync finishes indexing it (its text first, then its vectors)."""
        col = self._collections.get(collection) if isinstance(collection, str) else collection
        if not col.exists:
            raise CollectionError(f"The folder of collection {col.name!r} ({col.path}) does not exist.")
        from ..clip.note import clip_url

        tell = progress or (lambda done, total, stage: None)
        result = clip_url(url, col.path, update=update, progress=tell, cancel=cancel, **fetch_options)
        if result.status in ("created", "updated"):
            rel = result.path.resolve().relative_to(col.path.resolve()).as_posix()

            def indexing(done: int, total: int, phase: str) -> None:
                if phase != "done":  # said once, below, when the clip is done
                    tell(done, total, "embedding" if phase == "embedding" else "indexing")

            tell(0, 1, "indexing")
            report = self._index.sync(progress=indexing, collections=[col.name], only_paths={rel}, cancel=cancel,
                                      wait=True)  # after a running sync's text
            result = replace(result, stopped=report.cancelled, vectors_pending=report.vectors_pending)
        tell(1, 1, "done")
        return result
