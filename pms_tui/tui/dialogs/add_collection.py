"""Add a folder of notes as a collection: asks for the path and a name, returns a request.

The screen adds the collection; when the engine refuses (not a folder, a name taken), the
dialog opens again with what was typed and the reason on its error line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.suggester import Suggester
from textual.widgets import Button, Input, Label, Static

from ..typing_input import TypingInput
from .form import FormDialog


@dataclass(frozen=True)
class AddCollectionRequest:
    path: str
    name: str | None = None


class FolderSuggester(Suggester):
    """Completes the folder being typed, like a shell's tab completion."""

    def __init__(self) -> None:
        super().__init__(use_cache=False, case_sensitive=True)

    async def get_suggestion(self, value: str) -> str | None:
        if not value:
            return None
        try:
            typed = Path(value).expanduser()
            parent, prefix = (typed, "") if value.endswith("/") else (typed.parent, typed.name)
            for child in sorted(parent.iterdir()):
                if child.name.startswith(prefix) and not child.name.startswith(".") and child.is_dir():
                    return value + child.name[len(prefix):] + "/"
        except OSError:
            return None
        return None


class AddCollectionDialog(FormDialog[AddCollectionRequest | None]):
    """Dismisses with an :class:`AddCollectionRequest` (None when cancelled)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="add.cancel")]

    DEFAULT_CSS = """
    AddCollectionDialog {
        & #add-hint { color: $text-muted; }
    }
    """

    def __init__(self, request: AddCollectionRequest | None = None, error: str = "") -> None:
        super().__init__()
        self.initial = request or AddCollectionRequest("")
        self.initial_error = error

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Add a folder of notes"
            box.border_subtitle = "enter to add · escape to cancel"
            yield Static("Its notes (Markdown) and documents (PDF, Word) are indexed, subfolders too; "
                         "none of them is ever changed.", id="add-hint")
            yield Label("Folder")
            # focus back in a field keeps what it holds (no select-all the next key would replace)
            yield TypingInput(self.initial.path, placeholder="~/notes", suggester=FolderSuggester(),
                              select_on_focus=False, id="add-path")
            yield Label("Name (default: the folder's name)")
            yield TypingInput(self.initial.name or "", placeholder="notes", select_on_focus=False, id="add-name")
            yield Static("", id="add-error", classes="form-error")
            with Horizontal():
                yield Button("Cancel", id="add-cancel")
                yield Button("Add and sync", variant="primary", id="add-ok")

    def on_mount(self) -> None:
        self.query_one("#add-path", Input).focus()
        if self.initial_error:
            self.show_error(self.initial_error)

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "add-path":
            name = Path(event.value.rstrip("/")).name if event.value.strip() else "notes"
            self.query_one("#add-name", Input).placeholder = name or "notes"

    def on_input_submitted(self, event: Input.Submitted) -> None:
        # enter adds from either field, as the border says; the name is optional (tab reaches it)
        event.stop()
        self._submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "add-ok":
            self._submit()
        else:
            self.dismiss(None)

    def _submit(self) -> None:
        path = self.query_one("#add-path", Input).value.strip()
        name = self.query_one("#add-name", Input).value.strip() or None
        if not path:
            self.show_error("Give the folder that holds your notes.")
            return
        self.dismiss(AddCollectionRequest(path, name))

    def action_cancel(self) -> None:
        self.dismiss(None)
