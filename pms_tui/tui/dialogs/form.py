"""The look both form dialogs share: a centred bordered box with an inline error line."""

from __future__ import annotations

import re
from typing import TypeVar

from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")

Result = TypeVar("Result")


class FormDialog(ModalScreen[Result]):
    """Subclasses compose a ``Vertical`` holding their fields and a ``Static`` of class
    ``form-error``, and call :meth:`show_error` with one sentence."""

    DEFAULT_CSS = """
    FormDialog {
        align: center middle;
        & > Vertical {
            width: 76;
            max-width: 95%;
            height: auto;
            background: $surface;
            border: round $primary;
            border-title-color: $text-accent;
            border-title-style: bold;
            padding: 1 2;
        }
        & Label { color: $text-muted; margin: 1 0 0 0; }
        & .form-error { color: $text-error; height: auto; margin: 1 0 0 0; display: none; }
        & .form-error.-shown { display: block; }
        & Horizontal { height: auto; align: right middle; margin: 1 0 0 0; }
        & Button { margin: 0 0 0 2; }
    }
    """

    def show_error(self, text: str) -> None:
        error = self.query_one(".form-error", Static)
        # it may name a folder like "[/]x" (never markup) holding escape sequences (shown inert);
        # the caller's sentence comes from the engine's describe(), this is the last guard
        error.update(Content(_CONTROL.sub(lambda m: f"<U+{ord(m.group()):04X}>", text)))
        error.add_class("-shown")
