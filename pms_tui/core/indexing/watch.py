"""Watch mode: notice new, changed, deleted and renamed notes and hand them to sync.

The kernel's file events (inotify, FSEvents, ReadDirectoryChangesW) come through watchfiles
(MIT, a Rust core with wheels on PyPI). Events are grouped until the folders have been quiet
for ``settle_ms`` (at most ``debounce_ms`` in all), so a burst such as a ``git checkout``
becomes one sync, and an editor's save (write a temporary file, rename it over the note)
becomes one changed note. Only note files count; dot-files and dot-folders (vim's
``.note.md.swp``, ``.git``) and other names (``note.md~``, ``4913``) are ignored, except
that a folder event (a folder renamed or removed) asks for a scan of its collection.

Where the kernel cannot watch (no inotify watches left, some network drives) the fallback
is the size+mtime scan that sync already does, every ``POLL_SECONDS``. Idle cost: nothing
but a wake-up every ``settle_ms`` to look at the stop flag.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from .notes import is_document_name, is_note_name

SETTLE_MS = 300
DEBOUNCE_MS = 1600
POLL_SECONDS = 30.0
# Keep the size+mtime fallback from costing more than ~1% of a core on a big vault.

# What changed, per collection name: the relative paths of notes, or None for "scan it all".
Changes = dict[str, set[str] | None]


@dataclass(frozen=True)
class Folder:
    name: str
    path: Path


def _parts_hidden(rel: str) -> bool:
    return any(part.startswith(".") for part in rel.split("/"))


def classify(folders: Iterable[Folder], events: Iterable[tuple[object, str]]) -> Changes:
    """Group raw events ``(change, absolute path)`` into the notes each collection must sync."""
    roots = sorted(((f, os.path.abspath(f.path)) for f in folders), key=lambda p: -len(p[1]))
    changes: Changes = {}
    for _change, raw in events:
        path = os.path.abspath(raw)
        for folder, root in roots:
            if path == root:
                changes[folder.name] = None  # the folder itself came or went
                break
            if not path.startswith(root + os.sep):
                continue
            rel = Path(os.path.relpath(path, root)).as_posix()
            if _parts_hidden(rel):
                break
            name = rel.rsplit("/", 1)[-1]
            if is_note_name(name) or is_document_name(name):
                wanted = changes.setdefault(folder.name, set())
                if wanted is not None:
                    wanted.add(rel)
            elif os.path.isdir(path) or ("." not in name and not os.path.exists(path) and not name.isdigit()):
                changes[folder.name] = None  # a folder renamed, moved or removed: scan it
            break
    return changes


class _Either:
    """An event-like object set when either of two events is set (watchfiles polls it)."""

    def __init__(self, a: threading.Event, b: threading.Event):
        self.a, self.b = a, b

    def is_set(self) -> bool:
        return self.a.is_set() or self.b.is_set()


def _note_filter(change, path: str) -> bool:
    name = os.path.basename(path)
    if name.startswith("."):
        return False
    return is_note_name(name) or is_document_name(name) or "." not in name


def watch(
    folders: Callable[[], list[Folder]],
    on_changes: Callable[[Changes], None],
    stop: threading.Event,
    *,
    restart: threading.Event | None = None,
    on_mode: Callable[[str], None] | None = None,
    settle_ms: int = SETTLE_MS,
    debounce_ms: int = DEBOUNCE_MS,
    poll_seconds: float = POLL_SECONDS,
    force_polling: bool = False,
) -> None:
    """Run until ``stop`` is set, calling ``on_changes`` after each settled burst.

    ``folders()`` is asked again whenever ``restart`` is set (a collection was added or
    removed). ``on_mode`` hears "watching" or "polling every N s" (for a status line).
    """
    restart = restart or threading.Event()
    while not stop.is_set():
        restart.clear()
        current = [f for f in folders() if f.path.is_dir()]
        if not current:
            _wait(stop, restart, poll_seconds)
            continue
        if force_polling or not _watch_events(current, on_changes, stop, restart, on_mode, settle_ms, debounce_ms):
            if on_mode:
                on_mode(f"polling every {poll_seconds:.0f} s")
            if not _wait(stop, restart, poll_seconds):
                on_changes({f.name: None for f in current})


def _wait(stop: threading.Event, restart: threading.Event, seconds: float) -> bool:
    """Sleep up to ``seconds``; True when woken by stop or restart."""
    either = _Either(stop, restart)
    step = 0.25
    waited = 0.0
    while waited < seconds:
        if either.is_set():
            return True
        stop.wait(step)
        waited += step
    return either.is_set()


def _watch_events(folders, on_changes, stop, restart, on_mode, settle_ms, debounce_ms) -> bool:
    """Watch with kernel events; False when that is not possible here (poll instead)."""
    try:
        import watchfiles
    except ImportError:
        return False
    either = _Either(stop, restart)
    try:
        events = watchfiles.watch(
            *[f.path for f in folders], watch_filter=_note_filter, debounce=debounce_ms, step=settle_ms,
            stop_event=either, rust_timeout=max(1000, settle_ms * 4), yield_on_timeout=False,
            raise_interrupt=False, ignore_permission_denied=True,
        )
        if on_mode:
            on_mode("watching")
        for batch in events:
            changes = classify(folders, batch)
            if changes:
                on_changes(changes)
            if either.is_set():
                break
    except (OSError, RuntimeError):  # watch limit reached, a network drive, a vanished folder
        return stop.is_set() or restart.is_set()
    return True
