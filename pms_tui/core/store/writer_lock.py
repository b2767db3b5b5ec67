"""One writer per home, across processes: a lock file holding the writer's pid.

SQLite serialises single transactions, but a sync is thousands of them: two syncs (or a sync
and a ``remove``) interleaving on one home collide on vector hashes and foreign keys. So every
writing operation holds ``<home>/writer.lock`` for its whole length; the embedding drain, whose
writes each stand on their own (one run's vectors, each row checked to still wait for that
text), holds it per run, so other writers get in between (``indexing.embed_queue``). The lock itself is an OS
advisory lock (``fcntl.flock``; ``msvcrt.locking`` on Windows), which the kernel drops when
the process dies, even by kill -9, so a stale file never blocks anyone; the pid written into
the file only serves to say who is writing.

    lock = WriterLock(home)
    with lock.hold(wait=True, on_wait=lambda pid: print(f"waiting for pid {pid}")):
        ...   # sync, reindex, remove, repair

A second holder in the same process (another KnowledgeBase on the same home) is a second
writer too: the lock is per open file, not per process. The same WriterLock object is
re-entrant in one thread (reindex runs a sync inside its own hold).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import PmsError

LOCK_FILE = "writer.lock"
# The same kind of lock, held by whoever drains the embedding queue (see services/index.py, Index._drain).
EMBED_LOCK_FILE = "embed.lock"
POLL_SECONDS = 0.1
_WINDOWS_LOCK_OFFSET = 1 << 30  # msvcrt locks are mandatory: lock a byte the pid never uses

if sys.platform == "win32":  # pragma: no cover - Windows (a platform test the type checker follows)
    import msvcrt
else:
    import fcntl


class WriterBusy(PmsError, RuntimeError):
    """Another process (or KnowledgeBase) is writing to this home; ``pid`` says which."""

    def __init__(self, pid: int | None, home: Path):
        self.pid = pid
        who = f"pid {pid}" if pid else "another pms-tui process"
        super().__init__(
            f"Another pms-tui ({who}) is writing to the index in {home}; "
            f"try again when it has finished."
        )


def _try_lock(fd: int) -> bool:
    try:
        if sys.platform != "win32":
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        else:  # pragma: no cover - Windows
            os.lseek(fd, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        return True
    except OSError:
        return False


def _unlock(fd: int) -> None:
    if sys.platform != "win32":
        fcntl.flock(fd, fcntl.LOCK_UN)
    else:  # pragma: no cover - Windows
        os.lseek(fd, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)


class WriterLock:
    """The writer lock of one home folder."""

    def __init__(self, home: Path, name: str = LOCK_FILE):
        self.home = Path(home)
        self.path = self.home / name
        self._fd: int | None = None
        self._owner: int | None = None  # thread id holding it
        self._depth = 0
        self._guard = threading.Lock()

    # -- who holds it ----------------------------------------------------------------------
    def holder(self) -> int | None:
        """The pid written by the current (or last) writer, or None."""
        try:
            text = self.path.read_text(encoding="ascii", errors="replace").strip()
        except OSError:
            return None
        return int(text) if text.isdigit() else None

    @property
    def held(self) -> bool:
        return self._fd is not None

    # -- taking and releasing --------------------------------------------------------------
    def acquire(
        self,
        wait: bool | float = True,
        on_wait: Callable[[int | None], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> None:
        """Take the lock. ``wait``: True waits as long as it takes, a number waits that many
        seconds, False not at all; when it cannot be had, :class:`WriterBusy`. ``on_wait(pid)``
        is called once if the lock is busy; ``cancel`` (an Event) stops the wait."""
        me = threading.get_ident()
        with self._guard:
            if self._fd is not None and self._owner == me:
                self._depth += 1
                return
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        self.home.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, flags, 0o644)
        deadline = None if wait is True or wait is False else time.monotonic() + float(wait)
        told = False
        try:
            while not _try_lock(fd):
                if wait is False or (deadline is not None and time.monotonic() >= deadline) or (
                    cancel is not None and cancel.is_set()
                ):
                    raise WriterBusy(self.holder(), self.home)
                if not told and on_wait is not None:
                    told = True
                    on_wait(self.holder())
                time.sleep(POLL_SECONDS)
            os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_SET)
            os.write(fd, f"{os.getpid()}\n".encode("ascii"))
        except BaseException:
            os.close(fd)
            raise
        with self._guard:
            if self._fd is not None:  # another thread of ours holds it: cannot happen with flock
                os.close(fd)
                raise WriterBusy(os.getpid(), self.home)
            self._fd, self._owner, self._depth = fd, me, 1

    def release(self) -> None:
        with self._guard:
            if self._fd is None:
                return
            self._depth -= 1
            if self._depth > 0:
                return
            fd, self._fd, self._owner = self._fd, None, None
        try:
            os.ftruncate(fd, 0)  # nobody is writing now
        except OSError:
            pass
        try:
            _unlock(fd)
        finally:
            os.close(fd)

    @contextmanager
    def hold(
        self,
        wait: bool | float = True,
        on_wait: Callable[[int | None], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> Iterator["WriterLock"]:
        self.acquire(wait, on_wait, cancel)
        try:
            yield self
        finally:
            self.release()
