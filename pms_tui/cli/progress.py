"""The progress bar of ``pms-tui sync`` (and reindex, watch): rich's Progress on stderr.

Shown only on a terminal and without ``--quiet``, so a pipe or a log gets the final report
line alone. One bar per phase: scanning (files seen), reading text (files), embedding
(texts), each with its count, rate and time left, redrawn ten times a second.
"""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

UNITS = {"scanning": "files", "reading": "notes", "deleting": "notes", "embedding": "chunks"}
LABELS = {"scanning": "scanning", "reading": "reading text", "deleting": "removing", "embedding": "embedding"}


class SyncProgressBar:
    """``with SyncProgressBar(quiet) as bar: kb.sync(progress=bar)``."""

    def __init__(self, quiet: bool = False, stream=None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = not quiet and self.stream.isatty()
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        self._phase: str | None = None

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
        progress.update(task.id, completed=done, total=total or None, rate=rate)

    def __exit__(self, *exc) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


_upgrade_said = [0.0]  # when the last progress line of an index upgrade was printed


def tell_upgrade(done: int, total: int, phase: str) -> None:
    """An older index being upgraded when opened: a line on stderr every two seconds."""
    now = time.monotonic()
    if done == 0 or done == total or now - _upgrade_said[0] >= 2.0:
        _upgrade_said[0] = now
        print(f"pms-tui: {phase}: {done:,}/{total:,} passages", file=sys.stderr, flush=True)


def upgrade_index(home) -> None:
    """Upgrade an older index before the app takes the screen, so its progress is seen;
    whatever fails here the app reports itself."""
    from ..core.kb import KnowledgeBase

    try:
        KnowledgeBase(home=home, upgrade_progress=tell_upgrade).close()
    except Exception:  # noqa: BLE001 - the app opens the index again and says what is wrong
        pass


def tell_waiting(pid) -> None:
    """A second writer waits its turn, and says for whom."""
    who = f"pid {pid}" if pid else "another pms-tui process"
    print(f"Another pms-tui ({who}) is writing to this index; waiting for it to finish (ctrl+c stops).",
          file=sys.stderr, flush=True)
