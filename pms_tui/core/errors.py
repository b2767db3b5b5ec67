"""One error root, and the one place that turns any exception into a sentence for the user.

Every failure the user can meet (a bad config, a missing collection, a damaged index, a page
that cannot be clipped, a model that will not load) is a :class:`PmsError`, and its ``str``
is the sentence to show. :func:`describe` is what the CLI and the app call on *any*
exception, expected or not, so no traceback and no bare class name reaches the user.

Subclasses also derive from the built-in they replaced (``ValueError``, ``RuntimeError``),
so code written against the old classes keeps catching them.
"""

from __future__ import annotations

from pathlib import Path

import sqlean


class PmsError(Exception):
    """An expected failure; ``str(error)`` is one sentence for the user."""


class ConfigError(PmsError, ValueError):
    """A config file or environment value that cannot be used."""


class CollectionError(PmsError, ValueError):
    """A collection cannot be created, found or used."""


class StoreError(PmsError):
    """The index database cannot be used."""


class ClipError(PmsError):
    """A web page could not be fetched, read or saved as a note."""


class ClipStopped(ClipError):
    """A clip stopped by its ``cancel`` before its note was written: nothing was written."""

    def __init__(self) -> None:
        super().__init__("The clip was stopped; nothing was written.")


class EmbeddingModelError(PmsError, RuntimeError):
    """The embedding model cannot be loaded or run."""


class ModelMismatchError(PmsError, RuntimeError):
    """The index holds vectors of another model than the one configured."""


class SearchStopped(PmsError):
    """A search ended early by its ``stop`` check: a newer query replaced it."""

    def __init__(self) -> None:
        super().__init__("The search was stopped: a newer query replaced it.")


class SyncBusyError(PmsError, RuntimeError):
    """A sync is already running in this process."""


class UsageError(PmsError, ValueError):
    """A request the engine cannot serve as asked (an unknown search mode, a note that is
    not in any collection)."""


class SkipFile(PmsError):
    """A note that cannot be indexed; the message is the reason shown in the sync report.
    ``passing``: its cause can pass without the file changing (a reader's limit hit under
    load, a crashed reader, a permission): a later sync tries it again (store/skipped.py)."""

    def __init__(self, message: str, passing: bool = False) -> None:
        super().__init__(message)
        self.passing = passing


def describe_database_error(exc: BaseException, path: Path | str | None = None) -> str:
    """A sentence for an SQLite error: locked, damaged, read-only, or the driver's words."""
    text = str(exc)
    where = f" ({path})" if path else ""
    if "locked" in text or "busy" in text:
        return f"The index{where} is locked by another program; close it or try again in a moment."
    if "not a database" in text or "malformed" in text:
        return (f"The index file{where} is damaged or not a pms-tui database; run `pms-tui repair` "
                f"to rebuild it from your notes.")
    if "readonly" in text or "unable to open" in text:
        return f"The index{where} is read-only here and cannot be changed ({text})."
    return f"Database error{where}: {text}."


def _os_sentence(exc: OSError) -> str:
    reason = exc.strerror or str(exc) or type(exc).__name__
    where = exc.filename
    return f"{reason}: {where}" if where else reason


def describe(exc: BaseException) -> str:
    """One sentence for any exception, never a traceback.

    A PmsError says itself; SQLite errors get the store's descriptions; an OSError says its
    reason and file; anything else is named by its type as an unexpected error.
    """
    if isinstance(exc, PmsError):
        text = str(exc).strip() or type(exc).__name__
    elif isinstance(exc, sqlean.DatabaseError):
        text = describe_database_error(exc)
    elif isinstance(exc, OSError):
        text = _os_sentence(exc)
    elif isinstance(exc, KeyboardInterrupt):
        text = "Interrupted"
    else:
        detail = " ".join(str(exc).split())[:300]
        name = type(exc).__name__
        text = f"Unexpected error ({name}): {detail}" if detail else f"Unexpected error ({name})"
    return text if text.endswith((".", "!", "?")) else text + "."
