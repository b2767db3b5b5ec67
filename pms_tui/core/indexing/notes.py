"""Notes on disk: which files are notes, how they are walked and read, and the one size limit.

Used by sync (what to index), by a collection's file list, and by the clipper (is this page
already in the folder?). Reading never changes a note.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

from ..errors import SkipFile

NOTE_SUFFIXES = (".md", ".markdown")
# The largest note that is indexed or shown; a bigger file is skipped with the reason.
MAX_NOTE_BYTES = 20_000_000


def is_note_name(name: str) -> bool:
    return name.lower().endswith(NOTE_SUFFIXES) and not name.startswith(".")


def walk_notes(folder: Path) -> Iterator[tuple[str, os.stat_result]]:
    """Yield (relative posix path, os.stat_result) of every note under ``folder``.

    Recursive; dot-folders (.git, .obsidian, .trash) and dot-files are skipped; links to
    folders are not followed, so a link loop cannot hang a sync.
    """
    stack = [folder]
    while stack:
        current = stack.pop()
        try:
            entries = list(os.scandir(current))
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(Path(entry.path))
                elif is_note_name(entry.name) and entry.is_file():
                    rel = Path(entry.path).relative_to(folder).as_posix()
                    yield rel, entry.stat()
            except OSError:
                continue


def note_files(folder: Path) -> list[Path]:
    """Every note under ``folder`` (see :func:`walk_notes`), sorted; [] when it is no folder."""
    if not folder.is_dir():
        return []
    return sorted(folder / rel for rel, _ in walk_notes(folder))


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_note(path: Path) -> tuple[str, str]:
    """(text, sha256) of a note, or SkipFile with the reason it cannot be indexed."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise SkipFile("deleted during sync") from None
    except PermissionError:
        raise SkipFile("permission denied") from None
    except OSError as exc:
        raise SkipFile(f"unreadable ({exc.strerror or exc})") from None
    if len(data) > MAX_NOTE_BYTES:
        raise SkipFile(f"too large ({len(data) // 1_000_000} MB)")
    if b"\x00" in data[:8192]:
        raise SkipFile("binary file, not Markdown")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SkipFile(f"not UTF-8 text (bad byte at offset {exc.start})") from None
    return text, hashlib.sha256(data).hexdigest()
