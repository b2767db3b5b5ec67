"""Exceptions as one sentence for a notification: the UI never shows a traceback."""

from __future__ import annotations


def sentence(exc: BaseException) -> str:
    from pms_tui.core import store as st

    if isinstance(exc, st.DatabaseError):
        return st.describe_error(exc)
    text = str(exc).strip() or type(exc).__name__
    if not isinstance(exc, (ValueError, RuntimeError, OSError, LookupError)):
        text = f"{type(exc).__name__}: {text}"
    return text if text.endswith((".", "!", "?")) else text + "."
