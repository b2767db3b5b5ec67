"""A one-field dialog that asks for a name: to save a search under, or the note to explain."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.suggester import Suggester
from textual.widgets import Button, Input, Label

from ..typing_input import TypingInput
from .form import FormDialog


class NameDialog(FormDialog[str | None]):
    """Dismisses with the name typed (None when cancelled). ``suggester`` completes it."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="name.cancel")]

    def __init__(self, prompt: str, initial: str = "", *, title: str = "Save search", placeholder: str = "a name",
                 ok: str = "Save", suggester: Suggester | None = None) -> None:
        super().__init__()
        self.prompt = prompt
        self.initial = initial
        self.title_text = title
        self.placeholder = placeholder
        self.ok_label = ok
        self.suggester = suggester

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = self.title_text
            yield Label(Content(self.prompt))  # it may quote a query: never markup
            yield TypingInput(self.initial, placeholder=self.placeholder, suggester=self.suggester, id="name-input")
            with Horizontal():
                yield Button("Cancel", id="name-cancel")
                yield Button(self.ok_label, variant="primary", id="name-ok")

    def on_mount(self) -> None:
        self.query_one("#name-input", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._ok()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "name-ok":
            self._ok()
        else:
            self.dismiss(None)

    def _ok(self) -> None:
        name = " ".join(self.query_one("#name-input", Input).value.split())
        self.dismiss(name or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
