"""What may be written where: the one place a write is refused, each refusal one sentence.

A write goes only into a collection the person marked writable (``pms-tui collections
--writable NAME``), never into the bundled guide, and only to a note's path inside the
collection's folder: relative, no ``..``, no part starting with a dot (``.obsidian/``,
``.trash/``, ``.git/``), no symlink on the way, no name Windows reserves (``CON``, ``NUL``, ...)
or cannot hold (``<>:"|?*``, a trailing dot or space), none that breaks a wikilink (``[]#^|``)
(those for a new name: a note already there keeps its own), none that differs only in case or Unicode form from a file already there (one file on a
case-insensitive disk), and a Markdown note (``.md``): PDF and Word files stay read-only.
What one write holds is bounded (``max_write_kb``) and so is how often a client writes
(``writes_per_minute``).
"""

from __future__ import annotations

import os
import re
import threading
import time
import unicodedata
from collections import defaultdict, deque
from pathlib import Path, PurePosixPath

from ..clip.names import WINDOWS_RESERVED
from ..config import Settings
from ..errors import UsageError
from ..indexing.collections import Collection
from ..indexing.guide import is_guide_path
from ..indexing.notes import NOTE_SUFFIXES, is_document_name
from ..safe_text import one_line

MAX_PATH_CHARS = 1024
MAX_PART_BYTES = 255
_FORBIDDEN = re.compile(r'[<>:"|?*\[\]#^\\]')
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_ABSOLUTE = re.compile(r"^(?:/|~|[A-Za-z]:)")


class WriteRefused(UsageError):
    """A write the guard does not allow (one sentence, as every UsageError)."""


def _shown(path: object) -> str:
    return one_line(str(path))[:120]


def check_collection(col: Collection) -> None:
    if is_guide_path(col.path):
        raise WriteRefused("The bundled guide is read-only; write in a collection of your own.")
    if not col.writable:
        raise WriteRefused(f"The collection {col.name!r} is read-only for agents; `pms-tui collections --writable "
                           f"{col.name}` allows writing in it.")
    if not col.exists:
        raise WriteRefused(f"The folder of collection {col.name!r} ({col.path}) does not exist.")


def check_relpath(col: Collection, rel: object, *, new: bool) -> str:
    """``rel`` (a note's path inside ``col``'s folder) as written, when a note may be written
    there; ``new``: the path is one to create (a move's destination too)."""
    if not isinstance(rel, str) or not rel.strip():
        raise WriteRefused("Name the note's path inside its collection, e.g. ideas/plan.md.")
    if len(rel) > MAX_PATH_CHARS:
        raise WriteRefused(f"A note's path may hold up to {MAX_PATH_CHARS:,} characters.")
    if _CONTROL.search(rel):
        raise WriteRefused("A note's path may not hold control or bidirectional-override characters.")
    if "\\" in rel:
        raise WriteRefused(f"{_shown(rel)} holds a backslash; separate folders with '/'.")
    if _ABSOLUTE.match(rel):
        raise WriteRefused(f"{_shown(rel)} is an absolute path; give a path inside the collection's folder.")
    parts = rel.split("/")
    if any(p in ("", ".", "..") for p in parts):
        raise WriteRefused(f"{_shown(rel)} leaves or skips a folder ('..', '.', '//'); give a plain path inside "
                           f"the collection.")
    for part in parts:
        if part.startswith("."):
            raise WriteRefused(f"{_shown(rel)} goes into a hidden file or folder ({_shown(part)}, like .obsidian/); "
                               f"those are never written.")
        if not new:
            continue  # a note already there keeps its name (the rules below are for names pms-tui gives)
        if bad := _FORBIDDEN.search(part):
            raise WriteRefused(f"{_shown(part)} holds a character a note's name cannot ({_shown(bad.group())}).")
        if part != part.rstrip(" .") or part != part.lstrip(" "):
            raise WriteRefused(f"{_shown(part)} starts with a space or ends with a space or dot; Windows cannot "
                               f"keep it.")
        if part.split(".", 1)[0].lower() in WINDOWS_RESERVED:
            raise WriteRefused(f"{_shown(part)} is a name Windows reserves for a device; choose another.")
        if len(part.encode("utf-8", "surrogatepass")) > MAX_PART_BYTES:
            raise WriteRefused(f"A part of {_shown(rel)} is longer than {MAX_PART_BYTES} bytes.")
    if is_document_name(rel):
        raise WriteRefused(f"{_shown(rel)} is a document (PDF or Word); documents stay read-only.")
    if not rel.lower().endswith(NOTE_SUFFIXES):
        raise WriteRefused(f"{_shown(rel)} is not a Markdown note; its name must end with .md.")
    _check_on_disk(col, parts, rel, new)
    return rel


def _check_on_disk(col: Collection, parts: list[str], rel: str, new: bool) -> None:
    root = col.path
    here = root
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        candidate = here / part
        if os.path.islink(candidate):
            raise WriteRefused(f"{_shown(rel)} goes through a symlink ({_shown(PurePosixPath(*parts[:i + 1]))}); "
                               f"notes are written only inside the collection's own folders.")
        if new and here.is_dir():
            twin = _case_twin(here, part)
            if twin is not None:
                raise WriteRefused(f"{_shown(part)} differs only in case or accents from {_shown(twin)}, already "
                                   f"there; on a case-insensitive disk they are one file.")
        if not last and candidate.exists() and not candidate.is_dir():
            raise WriteRefused(f"{_shown(PurePosixPath(*parts[:i + 1]))} is a file, not a folder.")
        here = candidate
    try:
        real_root = root.resolve()
        real = (root / rel).resolve()
    except (OSError, RuntimeError):
        raise WriteRefused(f"{_shown(rel)} cannot be resolved inside the collection's folder.") from None
    if real_root not in real.parents:
        raise WriteRefused(f"{_shown(rel)} leads outside the collection's folder.")
    if not new and (root / rel).exists() and not (root / rel).is_file():
        raise WriteRefused(f"{_shown(rel)} is not a regular file.")


def _fold(name: str) -> str:
    return unicodedata.normalize("NFC", name).casefold()


def _case_twin(folder: Path, name: str) -> str | None:
    """The name of an entry of ``folder`` that is ``name`` on a case-insensitive disk but
    spelled otherwise, or None."""
    key = _fold(name)
    try:
        entries = os.listdir(folder)
    except OSError:
        return None
    return next((e for e in entries if e != name and _fold(e) == key), None)


def check_size(data: bytes, settings: Settings) -> None:
    limit = settings.max_write_kb * 1024
    if len(data) > limit:
        raise WriteRefused(f"The note would be {len(data) / 1024:,.0f} KB; a write may hold up to "
                           f"{settings.max_write_kb:,} KB (max_write_kb in config.toml).")


class RateLimit:
    """At most ``writes_per_minute`` writes per client in any minute, in this process."""

    def __init__(self, settings: Settings, clock=time.monotonic):
        self.settings = settings
        self.clock = clock
        self._times: dict[str, deque[float]] = defaultdict(deque)
        self._lock = threading.Lock()

    def take(self, client: str) -> None:
        now = self.clock()
        with self._lock:
            times = self._times[client]
            while times and now - times[0] >= 60.0:
                times.popleft()
            if len(times) >= self.settings.writes_per_minute:
                wait = 60.0 - (now - times[0])
                raise WriteRefused(f"Too many writes: {self.settings.writes_per_minute} a minute are allowed "
                                   f"(writes_per_minute in config.toml); try again in {wait:.0f} s.")
            times.append(now)
