"""Exceptions as one sentence for a notification: the UI never shows a traceback."""

from __future__ import annotations

from pms_tui.core.errors import describe


def sentence(exc: BaseException) -> str:
    """One sentence for any exception (see :func:`pms_tui.core.errors.describe`)."""
    return describe(exc)
