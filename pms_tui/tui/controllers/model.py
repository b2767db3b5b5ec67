"""The screen's model loader: the embedding model, loaded in a worker after the first screen
is shown, so the first keys are answered by keywords while it loads; it posts
``ModelLoader.Loaded`` or ``ModelLoader.Failed`` (one sentence: search falls back to bm25)."""

from __future__ import annotations

import time

from textual import work
from textual.message import Message
from textual.worker import Worker, WorkerState

from pms_tui.core.errors import describe

from . import Part, opened


class ModelLoader(Part):
    class Loaded(Message):
        def __init__(self, seconds: float) -> None:
            super().__init__()
            self.seconds = seconds

    class Failed(Message):
        def __init__(self, reason: str) -> None:
            super().__init__()
            self.reason = reason

    @work(thread=True, exclusive=True, group="model", exit_on_error=False)
    def load_model(self) -> float:
        started = time.perf_counter()
        opened(self.kb).model.load(serve_queries=True)  # one-shot `pms-tui search`es of this home ask it
        return time.perf_counter() - started

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.SUCCESS:
            self.post_message(self.Loaded(event.worker.result or 0.0))
        elif event.state == WorkerState.ERROR:  # EmbeddingModelError and whatever onnx raises
            event.stop()
            self.post_message(self.Failed(describe(event.worker.error or RuntimeError("the model failed"))))
