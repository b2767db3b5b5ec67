"""Notes on disk: which files are notes, how they are walked and read, and the one size limit.

Used by sync (what to index), by a collection's file list, and by the clipper (is this page
already in the folder?). Reading never changes a note.
"""

from __future__ import annotations

import codecs
import errno
import hashlib
import os
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..errors import SkipFile
from .document_reader import DOCUMENT_SUFFIXES

NOTE_SUFFIXES = (".md", ".markdown")
# Documents indexed read-only by their text (documents.py reads them, in a child process):
# DOCUMENT_SUFFIXES, the extensions of document_reader.FORMATS.
# The largest note that is indexed by default (``max_note_mb`` in config.toml changes it); a
# bigger file is skipped with the reason. Notes up to 20 MB of any shape (one long line, one
# fence, a 100,000-row table, 200,000 headings, ...) index within 600 MB with the model loaded
# (tests/faults/test_memory.py with -m slow; benchmarks/big_notes.py prints each peak). The
# largest of the 12,386 real notes in ../shared/corpora is 164 KB.
MAX_NOTE_BYTES = 20_000_000


def is_note_name(name: str) -> bool:
    return name.lower().endswith(NOTE_SUFFIXES) and not name.startswith(".")


def is_document_name(name: str) -> bool:
    """A document (PDF, Word, EPUB, ...: by the last part of ``name``): indexed by its text,
    never opened as a note."""
    last = name.rsplit("/", 1)[-1]
    return last.lower().endswith(DOCUMENT_SUFFIXES) and not last.startswith(".")


def walk_notes(
    folder: Path, follow_external_links: bool = False, skipped: list[tuple[str, str]] | None = None,
    documents: bool = False,
) -> Iterator[tuple[str, os.stat_result]]:
    """Yield (relative posix path, os.stat_result) of every note under ``folder`` (and every
    PDF and Word file with ``documents``).

    Recursive; dot-folders (.git, .obsidian, .trash) and dot-files are skipped. A symlink is
    followed only when its target stays inside ``folder`` (anywhere with
    ``follow_external_links``, for people who link folders in on purpose): a notes folder
    must not pull in ``/etc/passwd``. A link not followed (leaving the folder, dangling,
    looping, or to something that is not a file) is added to ``skipped`` as (rel, reason).
    Each real folder is walked once, so link loops cannot hang a sync.
    """
    root = Path(os.path.realpath(folder))
    seen_dirs = {root}
    wanted = (lambda name: is_note_name(name) or is_document_name(name)) if documents else is_note_name
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
                rel = Path(entry.path).relative_to(folder).as_posix()
                if not _utf8(rel):  # undecodable bytes in a name: the index stores UTF-8 text
                    if skipped is not None and wanted(entry.name):
                        shown = rel.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
                        skipped.append((shown, "its file name is not valid UTF-8; rename it to index it"))
                    continue
                if entry.is_symlink():
                    followed = _follow_link(entry.path, root, follow_external_links)
                    if isinstance(followed, str):
                        if skipped is not None and (wanted(entry.name) or "folder" in followed):
                            skipped.append((rel, followed))
                        continue
                    real, info = followed
                    if stat.S_ISDIR(info.st_mode):
                        if real not in seen_dirs:
                            seen_dirs.add(real)
                            stack.append(Path(entry.path))
                    elif wanted(entry.name):
                        if stat.S_ISREG(info.st_mode):
                            yield rel, info
                        elif skipped is not None:
                            skipped.append((rel, "a link to something that is not a file"))
                elif entry.is_dir(follow_symlinks=False):
                    real = Path(os.path.realpath(entry.path))
                    if real not in seen_dirs:
                        seen_dirs.add(real)
                        stack.append(Path(entry.path))
                elif wanted(entry.name) and entry.is_file(follow_symlinks=False):
                    yield rel, entry.stat(follow_symlinks=False)
            except OSError:
                continue


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def _follow_link(path: str, root: Path, follow_external: bool) -> tuple[Path, os.stat_result] | str:
    """(real path, stat) of a link's target, or the reason it is not followed."""
    try:
        info = os.stat(path)
    except OSError as exc:
        return "a link loop" if exc.errno == errno.ELOOP else "a link to a missing file"
    real = Path(os.path.realpath(path))
    if follow_external or real == root or root in real.parents:
        return real, info
    kind = "folder" if stat.S_ISDIR(info.st_mode) else "file"
    return (f"a link to a {kind} outside the collection folder ({real}), not followed; "
            f"set follow_external_links = true in config.toml to follow such links")


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


# A file modified this recently may still change within the same mtime tick (ext4 keeps
# coarse timestamps): its stat is not trusted as "indexed", so the next sync hashes it again.
RACY_SECONDS = 2.0
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"),
)


@dataclass(frozen=True)
class NoteData:
    """What was read: the text, the sha256 of exactly those bytes, and the stat to record
    (taken before reading; ``mtime_ns`` is -1 when the file changed while it was read or was
    changed too recently to trust, so the next sync looks at it again)."""

    text: str
    sha256: str
    size: int
    mtime_ns: int


def trusted_mtime(mtime_ns: int) -> int:
    """``mtime_ns``, or -1 when it is too recent to prove that no write follows in the same
    timestamp tick (the next sync then hashes the file again)."""
    return -1 if time.time() - mtime_ns / 1e9 < RACY_SECONDS else mtime_ns


def byte_order_mark(data: bytes) -> tuple[bytes, str]:
    """(the BOM ``data`` starts with, or b"", and the codec it names; UTF-8 without one)."""
    return next(((bom, codec) for bom, codec in _BOMS if data.startswith(bom)), (b"", "utf-8"))


def decode_note(data: bytes) -> str:
    """UTF-8 with or without a BOM, or UTF-16/32 with a BOM; else SkipFile with the reason."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom):].decode(codec)
            except UnicodeDecodeError as exc:
                raise SkipFile(f"not valid {codec.upper()} text (bad bytes at offset {exc.start + len(bom)})") from None
    if b"\x00" in data[:8192]:
        raise SkipFile("binary file, not Markdown")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SkipFile(f"not UTF-8 text (bad byte at offset {exc.start}); save it as UTF-8") from None


TOO_LARGE = "too large"  # how a skip for size begins (plan.py retries it when the limit grows)


def _too_large(size: str, max_bytes: int) -> SkipFile:
    return SkipFile(f"{TOO_LARGE} ({size}; notes up to {max_bytes / 1e6:g} MB are indexed: "
                    f"max_note_mb in config.toml)")


def read_note(path: str | os.PathLike[str], max_bytes: int = MAX_NOTE_BYTES) -> NoteData:
    """Read a note once, recording the stat of exactly what was read, or SkipFile (also when
    it is larger than ``max_bytes``)."""
    try:
        # non-blocking: a FIFO put in a note's place must not hang the sync
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        with open(fd, "rb") as handle:
            before = os.fstat(handle.fileno())
            if not stat.S_ISREG(before.st_mode):
                raise SkipFile("not a regular file")
            if before.st_size > max_bytes:
                raise _too_large(f"{before.st_size / 1e6:.1f} MB", max_bytes)
            data = handle.read(max_bytes + 1)
            after = os.fstat(handle.fileno())
    except FileNotFoundError:
        raise SkipFile("deleted during sync") from None
    except PermissionError:
        raise SkipFile("permission denied", passing=True) from None
    except IsADirectoryError:
        raise SkipFile("a folder, not a file") from None
    except OSError as exc:
        raise SkipFile(f"unreadable ({exc.strerror or exc})", passing=True) from None
    if len(data) > max_bytes:
        raise _too_large(f"over {max_bytes / 1e6:g} MB", max_bytes)
    text = decode_note(data)
    mtime_ns = before.st_mtime_ns
    changed = (after.st_size, after.st_mtime_ns) != (before.st_size, before.st_mtime_ns) or len(data) != before.st_size
    if changed:
        mtime_ns = -1
    else:
        mtime_ns = trusted_mtime(mtime_ns)
    return NoteData(text, hashlib.sha256(data).hexdigest(), len(data), mtime_ns)
