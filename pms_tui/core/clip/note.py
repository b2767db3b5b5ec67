"""Save an extracted web page as a Markdown note in a collection folder.

A clip is ``YYYY-MM-DD-<slug>.md``: YAML frontmatter (title, url, source, author, published,
description, clipped_at, sha256) followed by the Markdown body. Notes are written atomically
and never overwrite another note; clipping a page that is already in the folder (same final
URL or same body hash) is reported as a duplicate unless ``update=True`` asks to refresh it.

No index and no UI here: the KnowledgeBase calls :func:`clip_url` and then indexes the note.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import yaml

from ..errors import ClipError, ClipStopped
from ..output_rules import note_id, note_uri
from ..indexing.notes import walk_notes
from .leftovers import remove_leftovers, write_atomic as _write_atomic
from .names import inside as _inside, numbered, slugify
from .yaml_out import dump as dump_yaml
from .html_to_markdown import ExtractedPage, extract_from_url

__all__ = ["ClipError", "ClipResult", "clip_page", "clip_url", "render_note", "slugify", "UPDATE_WORDS"]

_FRONTMATTER_SCAN_CHARS = 65_536
_CLIP_KEYS = frozenset({"title", "url", "source", "author", "published", "description", "clipped_at", "sha256"})


# How the engine asks for a refresh of a page already clipped; a front end says its own words
# instead (``ClipResult.message_with``): the CLI its flag, the app its key, MCP its argument.
UPDATE_WORDS = "clip it again with update"


def _duplicate_message(shown: str, how: str) -> str:
    return f"This page is already saved as {shown}; {how} to refresh it."


@dataclass
class ClipResult:
    path: Path
    status: str  # "created" | "duplicate" | "updated"
    title: str
    url: str
    message: str  # one sentence for the user
    saved_as: str = ""  # a duplicate: the note that holds the page, as the message names it
    # Indexing the note was stopped by the clip's cancel: the note is whole, and the next sync
    # finishes indexing it; ``vectors_pending``: passages of the index waiting for a vector.
    stopped: bool = False
    vectors_pending: int = 0

    def message_with(self, how_to_update: str) -> str:
        """The message, a duplicate's in a front end's words for asking the refresh
        (``"run it again with --update"``) instead of the engine's (:data:`UPDATE_WORDS`)."""
        return _duplicate_message(self.saved_as, how_to_update) if self.status == "duplicate" else self.message

    def to_json(self, collection: Any, how_to_update: str | None = None) -> dict:
        """The one way a clip's outcome is written out; ``collection`` is the one clipped into
        (its name and folder), ``how_to_update`` the front end's words for asking a refresh."""
        rel = None
        try:
            rel = self.path.resolve().relative_to(Path(collection.path).resolve()).as_posix()
        except (ValueError, OSError):
            pass
        return {"status": self.status, "title": self.title, "url": self.url,
                "message": self.message_with(how_to_update) if how_to_update else self.message,
                "id": note_id(collection.name, rel) if rel else None,
                "uri": note_uri(collection.name, rel) if rel else None, "collection": collection.name,
                "path": rel, "file": str(self.path),
                "stopped": self.stopped, "vectors_pending": self.vectors_pending}


# --------------------------------------------------------------------------------------
# Note text
# --------------------------------------------------------------------------------------


def _body(page: ExtractedPage) -> str:
    """The Markdown body exactly as written after the frontmatter (ends with one newline)."""
    content = page.content.replace("\r\n", "\n").replace("\r", "\n")
    text = re.sub(r"^(?:[ \t]*\n)+", "", content).rstrip()
    return text + "\n"


def body_sha256(page: ExtractedPage) -> str:
    """sha256 (hex) of the UTF-8 body that :func:`render_note` writes after the blank line
    following the frontmatter, i.e. the note's bytes after its first ``\\n---\\n\\n``."""
    return hashlib.sha256(_body(page).encode("utf-8")).hexdigest()


def _hostname(url: str) -> str | None:
    try:
        return urlsplit(url).hostname
    except ValueError:
        return None


def render_note(page: ExtractedPage, clipped_at: datetime) -> str:
    """Full note text: ``---`` YAML frontmatter ``---``, a blank line, the Markdown body.

    Values are written by PyYAML's safe dumper so any title (colons, quotes, ``#``, ``---``,
    newlines) reads back unchanged with ``yaml.safe_load``. Unknown fields are left out.
    """
    return _render(page, clipped_at)


def _render(page: ExtractedPage, clipped_at: datetime, extra: dict | None = None) -> str:
    """:func:`render_note`, plus ``extra`` keys (a user's own tags etc.) after the clip's keys."""
    meta: dict = {"title": page.title, "url": page.url}
    source = page.sitename or _hostname(page.url)
    if source:
        meta["source"] = source
    if page.author:
        meta["author"] = page.author
    if page.date:
        meta["published"] = page.date
    if page.description:
        meta["description"] = page.description
    meta["clipped_at"] = clipped_at.isoformat(timespec="seconds")
    meta["sha256"] = body_sha256(page)
    for key, value in (extra or {}).items():
        if key not in _CLIP_KEYS:
            meta[key] = value
    frontmatter = dump_yaml(meta)
    return f"---\n{frontmatter}---\n\n{_body(page)}"


# --------------------------------------------------------------------------------------
# Duplicates
# --------------------------------------------------------------------------------------


def _url_key(url: str) -> str:
    """Compare URLs the way servers do: scheme/host case, default port and fragment ignored."""
    try:
        parts = urlsplit(url.strip())
        scheme = parts.scheme.lower()
        host = (parts.hostname or "").lower()
        port = parts.port
    except (ValueError, AttributeError):
        return url
    default = {"http": 80, "https": 443}.get(scheme)
    netloc = host if port in (None, default) else f"{host}:{port}"
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))


def _read_frontmatter(path: Path) -> dict | None:
    """The frontmatter mapping of a note, or None; reads only as far as the closing fence."""
    lines: list[str] = []
    budget = _FRONTMATTER_SCAN_CHARS
    try:
        with path.open("r", encoding="utf-8", errors="replace", newline=None) as handle:
            if handle.readline(16).lstrip("\ufeff").rstrip() != "---":
                return None
            while True:
                line = handle.readline(budget + 1)
                budget -= len(line)
                if not line or budget < 0:
                    return None  # no closing fence within reach: not a clip's frontmatter
                if line.rstrip() in ("---", "..."):
                    break
                lines.append(line)
    except OSError:
        return None
    try:
        meta = yaml.safe_load("".join(lines))
    except Exception:  # noqa: BLE001 - someone else's broken note is simply not a match
        return None
    return meta if isinstance(meta, dict) else None


def find_existing(folder: Path, url: str, sha256: str) -> Path | None:
    """The first note in ``folder`` (recursive) clipped from ``url`` or with the same body hash."""
    return next(iter(_clips_of(folder, url, sha256)), None)


def _clips_of(folder: Path, url: str, sha256: str) -> list[Path]:
    """Every note in ``folder`` (recursive) clipped from ``url`` or with the same body hash, in
    path order."""
    key = _url_key(url) if url else None
    found = []
    for rel in sorted(rel for rel, _ in walk_notes(folder)):
        path = folder / rel
        meta = _read_frontmatter(path)
        if not meta:
            continue
        stored_url, stored_sha = meta.get("url"), meta.get("sha256")
        same_url = key is not None and isinstance(stored_url, str) and _url_key(stored_url) == key
        if (same_url or stored_sha == sha256) and _inside(folder, path):
            found.append(path)
    return found


def _holds_its_clip(path: Path) -> bool:
    """Whether the note's body is still the one clipped: the hash its frontmatter records is the
    hash of its bytes after the frontmatter (``body_sha256``). False for a note edited since, or
    one that names the page's URL but was never clipped (no ``sha256``)."""
    meta = _read_frontmatter(path)
    recorded = meta.get("sha256") if meta else None
    try:
        data = path.read_bytes()
    except OSError:
        return False
    at = data.find(b"\n---\n\n")
    return isinstance(recorded, str) and at >= 0 and hashlib.sha256(data[at + 6:]).hexdigest() == recorded


# --------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------


def _prepare_folder(folder: Path | str) -> Path:
    folder = Path(folder).expanduser()
    if folder.exists() and not folder.is_dir():
        raise ClipError(f"Cannot save the note: {folder} is a file, not a folder.")
    return folder


def _display(folder: Path, path: Path) -> str:
    try:
        return path.relative_to(folder).as_posix()
    except ValueError:
        return str(path)


# --------------------------------------------------------------------------------------
# Clipping
# --------------------------------------------------------------------------------------


def clip_page(page: ExtractedPage, folder: Path, *, update: bool = False, today: date | None = None,
              cancel: threading.Event | None = None) -> ClipResult:
    """Save ``page`` as a new note in ``folder`` (created if missing).

    If the folder already holds it (same final URL, or same body sha256), nothing is
    written and the status is ``"duplicate"``; with ``update=True`` that note is rewritten
    in place (keeping frontmatter keys the user added) and the status is ``"updated"``, unless
    its body is no longer the one clipped (the person edited it, or wrote it): then it is left
    as it is and the page is saved as a new note beside it (``"created"``), as nothing the
    person wrote is replaced. ``cancel`` set before the note is written: ClipStopped, and
    nothing is written.
    """
    folder = _prepare_folder(folder)
    remove_leftovers(folder)  # of clips killed while writing
    clipped_at = datetime.now().astimezone()
    clips = _clips_of(folder, page.url, body_sha256(page)) if folder.is_dir() else []
    edited = ""
    if clips:
        shown = _display(folder, clips[0])
        if not update:
            return ClipResult(clips[0], "duplicate", page.title, page.url,
                              _duplicate_message(shown, UPDATE_WORDS), saved_as=shown)
        existing = next((path for path in clips if _holds_its_clip(path)), None)
        if existing is None:
            edited = shown
        else:
            shown = _display(folder, existing)
            # Keys the user added to the note (tags, rating…) survive a refresh; the clip's own are renewed.
            data = _render(page, clipped_at, _read_frontmatter(existing)).encode("utf-8")
            if cancel is not None and cancel.is_set():
                raise ClipStopped()
            try:
                _write_atomic(existing, data, replace=True)
            except OSError as exc:
                raise ClipError(f"Could not update {shown}: {exc.strerror or exc}.") from None
            return ClipResult(existing, "updated", page.title, page.url, f"Refreshed {shown} from {page.url}.")

    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ClipError(f"Could not create the folder {folder}: {exc.strerror or exc}.") from None
    stem = f"{(today or date.today()).isoformat()}-{slugify(page.title)}"
    for name in numbered(stem):
        target = folder / name
        if os.path.lexists(target):
            continue
        if not _inside(folder, target) or target.parent.resolve() != folder.resolve():
            raise ClipError(f"Refusing to write {name} outside the folder {folder}.")
        if cancel is not None and cancel.is_set():
            raise ClipStopped()
        try:
            _write_atomic(target, render_note(page, clipped_at).encode("utf-8"), replace=False)
        except FileExistsError:
            continue  # someone took the name between the check and the link
        except OSError as exc:
            raise ClipError(f"Could not save the note {name}: {exc.strerror or exc}.") from None
        message = (f"{edited} was changed since it was clipped, so it is left as it is; the page as it is now "
                   f"is saved as {name}." if edited else f'Clipped "{page.title}" to {name}.')
        return ClipResult(target, "created", page.title, page.url, message)
    raise ClipError(f"Could not find a free file name for {stem}.md in {folder}.")


def clip_url(url: str, folder: Path, *, update: bool = False,
             progress: Callable[[int, int, str], None] | None = None,
             cancel: threading.Event | None = None, **fetch_options) -> ClipResult:
    """Fetch, extract and save ``url`` in ``folder``; see :func:`clip_page` and ``extract.fetch``.
    ``progress(done, total, stage)``: "fetching" (bytes), "extracting", then "writing";
    ``cancel`` set before the note is written ends it with ClipStopped, nothing written."""
    folder = _prepare_folder(folder)
    page = extract_from_url(url, progress=progress, cancel=cancel, **fetch_options)
    if cancel is not None and cancel.is_set():
        raise ClipStopped()
    if progress is not None:
        progress(0, len(page.content), "writing")
    return clip_page(page, folder, update=update, cancel=cancel)
