"""The progress bar of ``pms-tui sync`` (and reindex, watch): rich's Progress on stderr.

Shown only on a terminal and without ``--quiet``, so a pipe or a log gets the final report
line alone. One bar per phase: scanning (files seen), reading text (files), embedding
(texts), each with its count, rate and time left, redrawn ten times a second.
"""

from __future__ import annotations

import sys
import time

UNITS = {"scanning": "files", "reading": "notes", "deleting": "notes", "embedding": "chunks"}
LABELS = {"scanning": "scanning", "reading": "reading text", "deleting": "removing", "embedding": "embedding"}


class SyncProgressBar:
    """``with SyncProgressBar(quiet) as bar: kb.sync(progress=bar)``."""

    def __init__(self, quiet: bool = False, stream=None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = not quiet and self.stream.isatty()
        self._progress = None
        self._task = None
        self._phase = None

    def __enter__(self) -> "SyncProgressBar":
        if self.enabled:
            from rich.console import Console
            from rich.progress import (
                BarColumn, MofNCompleteColumn, Progress, TaskProgressColumn, TextColumn,
                TimeRemainingColumn,
            )

            self._progress = Progress(
                TextColumn("{task.description:<12}"), BarColumn(bar_width=30), MofNCompleteColumn(),
                TextColumn("{task.fields[unit]}"), TaskProgressColumn(),
                TextColumn("{task.fields[rate]}"), TimeRemainingColumn(),
                console=Console(file=self.stream), transient=True, refresh_per_second=10,
            )
            self._progress.start()
        return self

    def __call__(self, done: int, total: int, phase: str) -> None:
        if self._progress is None or phase == "done":
            return
        progress = self._progress
        if phase != self._phase or self._task is None:
            self._phase = phase
            if self._task is not None:
                progress.remove_task(self._task)
            self._task = progress.add_task(
                LABELS.get(phase, phase), total=total or None, unit=UNITS.get(phase, ""), rate="",
                started_at=time.monotonic(),
            )
        task = progress.tasks[-1]
        elapsed = time.monotonic() - task.fields["started_at"]
        rate = f"{done / elapsed:,.0f}/s" if elapsed > 0.5 and done else ""
        progress.update(self._task, completed=done, total=total or None, rate=rate)

    def __exit__(self, *exc) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
