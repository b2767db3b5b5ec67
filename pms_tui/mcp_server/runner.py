"""The KnowledgeBase behind the server, and the threads its calls run on.

SQLite connections belong to the thread that opened them, and a connection's page cache
stays warm when the same thread asks again, so every read runs on one reader thread.
Writing tools (sync, clip) run on a writer thread of their own: a search never queues behind
a sync. The index and the embedding model are opened on a third thread as soon as the
process starts, while the main thread imports the MCP SDK; a search that comes before the
model is ready waits for it (at most ``MODEL_WAIT`` seconds, then BM25 answers alone and the
result says so).

Nothing is cached here: every call reads the index as it is committed, so notes another
process (the app, ``pms-tui watch``) indexes show up in the next search.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.safe_text import safe_text

if TYPE_CHECKING:
    from ..core.kb import KnowledgeBase

# How long a search waits for the model still loading before answering from BM25 alone.
MODEL_WAIT = 10.0


class KbRunner:
    """Opens the KnowledgeBase of ``home`` in the background; runs calls on its threads."""

    def __init__(self, home: str | Path | None, *, allow_writes: bool = False):
        self.home = home
        self.allow_writes = allow_writes
        self.kb: KnowledgeBase | None = None
        self._model_done = threading.Event()
        self._embed_once_loaded = False  # a write came while the model loaded: embed when it has
        self._reader = ThreadPoolExecutor(1, thread_name_prefix="pms-mcp-read")
        self._writer = ThreadPoolExecutor(1, thread_name_prefix="pms-mcp-write")
        self._cancels: list[threading.Event] = []  # all set on shutdown: writers stop between notes
        self._embedding: threading.Thread | None = None
        self._opened: Future = self._reader.submit(self._open)

    # -- opening --------------------------------------------------------------------------
    def _open(self):
        from ..core.kb import KnowledgeBase

        kb = KnowledgeBase(home=self.home)
        for warning in kb.settings.warnings:
            print(safe_text(f"pms-tui mcp: {warning}"), file=sys.stderr, flush=True)
        self.kb = kb
        threading.Thread(target=self._load_model, name="pms-mcp-model", daemon=True).start()
        return kb

    @property
    def _kb(self) -> KnowledgeBase:
        assert self.kb is not None  # what runs here runs once _open has set it
        return self.kb

    def _load_model(self) -> None:
        from ..core.errors import PmsError

        try:
            if not self._kb.model.mismatch:
                self._kb.model.load(serve_queries=True)  # one-shot `pms-tui search`es of this home ask it
        except PmsError as exc:  # the vector lane stays off; status and search say why
            print(safe_text(f"pms-tui mcp: {exc}"), file=sys.stderr, flush=True)
        finally:
            self._model_done.set()
        if self._embed_once_loaded and self._kb.model.ready:
            self.embed_behind()
        try:
            self._reader.submit(self._warm_up)
        except RuntimeError:  # shut down meanwhile
            pass

    def _warm_up(self) -> None:
        """One search on the reader thread before the first call: it loads the vector mirror
        and the BM25 lane's per-connection state, so the first call does not pay for them."""
        try:
            self._kb.search("warm up", k=1, vector=self._kb.model.ready)
        except Exception:  # noqa: BLE001 - only a warm-up; the real call says what is wrong
            pass

    def wait_opened(self):
        """The KnowledgeBase, once open; raises what opening it raised (a PmsError)."""
        return self._opened.result()

    def vector_ready(self, timeout: float = MODEL_WAIT) -> bool:
        """True when the vector lane can run: waits for a model still loading."""
        self._model_done.wait(timeout)
        return bool(self.kb is not None and self.kb.model.ready)

    # -- running calls --------------------------------------------------------------------
    async def read(self, fn, *args):
        """``fn(*args)`` on the reader thread (the KnowledgeBase open first)."""
        await asyncio.wrap_future(self._opened)
        return await asyncio.wrap_future(self._reader.submit(fn, *args))

    async def write(self, fn, *args):
        """``fn(*args)`` on the writer thread."""
        await asyncio.wrap_future(self._opened)
        return await asyncio.wrap_future(self._writer.submit(fn, *args))

    def cancel_event(self) -> threading.Event:
        """An event that shutting down sets (a sync or an embedding run stops at the next note)."""
        event = threading.Event()
        self._cancels = [e for e in self._cancels if not e.is_set()] + [event]
        return event

    def embed_behind(self) -> None:
        """Embed the queued passages on a thread of their own (one at a time per process); asked
        while the model still loads, once it has loaded (a note written in the server's first
        seconds is found by meaning too)."""
        if not self._model_done.is_set():
            self._embed_once_loaded = True
            if not self._model_done.is_set():  # else the loader may have looked already: go on
                return
        if not self._kb.model.ready:
            return
        if self._embedding is not None and self._embedding.is_alive():
            return
        cancel = self.cancel_event()

        def embed() -> None:
            from ..core.errors import describe

            try:
                self._kb.index.embed_pending(cancel=cancel)
            except Exception as exc:  # noqa: BLE001 - said on stderr; search goes on
                print(safe_text(f"pms-tui mcp: embedding stopped: {describe(exc)}"), file=sys.stderr, flush=True)

        self._embedding = threading.Thread(target=embed, name="pms-mcp-embed", daemon=True)
        self._embedding.start()

    def close(self) -> None:
        """Stop a running sync at its next note, let the threads finish, close the index."""
        for event in self._cancels:
            event.set()
        # a process leaving while ONNX Runtime loads the model on a daemon thread aborts in C++
        # ("terminate called without an active exception"): let the load finish first
        if self._opened.done() and not self._opened.exception():
            self._model_done.wait(60)
        if self._embedding is not None:
            self._embedding.join(10)
        self._writer.shutdown(wait=True, cancel_futures=True)
        self._reader.shutdown(wait=True, cancel_futures=True)
        if self.kb is not None:
            self.kb.close()
