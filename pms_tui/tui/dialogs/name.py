"""A one-field dialog that asks for a name (to save a search under)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label

from .form import FormDialog


class NameDialog(FormDialog[str | None]):
    """Dismisses with the name typed (None when cancelled)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="name.cancel")]

    def __init__(self, prompt: str, initial: str = "") -> None:
        super().__init__()
        self.prompt = prompt
        self.initial = initial

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Save search"
            yield Label(self.prompt)
            yield Input(self.initial, placeholder="a name", id="name-input")
            with Horizontal():
                yield Button("Cancel", id="name-cancel")
                yield Button("Save", variant="primary", id="name-ok")

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
