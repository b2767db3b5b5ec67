"""ctrl+n: add a folder of notes as a collection (path and name); errors shown inline."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.suggester import Suggester
from textual.widgets import Button, Input, Label, Static

from ..errors import sentence

from .form import FormDialog

if TYPE_CHECKING:
    from pms_tui.core.kb import KnowledgeBase


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


class AddCollectionDialog(FormDialog[str | None]):
    """Dismisses with the new collection's name (None when cancelled)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="add.cancel")]

    DEFAULT_CSS = """
    AddCollectionDialog {
        & #add-hint { color: $text-muted; }
    }
    """

    def __init__(self, kb: "KnowledgeBase", path: str = "") -> None:
        super().__init__()
        self.kb = kb
        self.initial_path = path

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Add a folder of notes"
            box.border_subtitle = "enter to add · escape to cancel"
            yield Static("Its Markdown files are indexed (recursively) and never changed.", id="add-hint")
            yield Label("Folder")
            yield Input(self.initial_path, placeholder="~/notes", suggester=FolderSuggester(), id="add-path")
            yield Label("Name (default: the folder's name)")
            yield Input(placeholder="notes", id="add-name")
            yield Static("", id="add-error", classes="form-error")
            with Horizontal():
                yield Button("Cancel", id="add-cancel")
                yield Button("Add and sync", variant="primary", id="add-ok")

    def on_mount(self) -> None:
        self.query_one("#add-path", Input).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "add-path":
            name = Path(event.value.rstrip("/")).name if event.value.strip() else "notes"
            self.query_one("#add-name", Input).placeholder = name or "notes"

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "add-path" and not self.query_one("#add-name", Input).value:
            self.query_one("#add-name", Input).focus()
            return
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
            self._show_error("Give the folder that holds your notes.")
            return
        self.query_one("#add-ok", Button).disabled = True
        self.create(path, name)

    @work(thread=True, exclusive=True, group="add-collection", exit_on_error=False)
    def create(self, path: str, name: str | None) -> None:
        try:
            collection = self.kb.collections.create(path, name=name)
        except Exception as exc:  # noqa: BLE001 - CollectionError and database errors alike
            self.app.call_from_thread(self._show_error, sentence(exc))
            return
        self.app.call_from_thread(self.dismiss, collection.name)

    def _show_error(self, text: str) -> None:
        self.show_error(text)
        self.query_one("#add-ok", Button).disabled = False

    def action_cancel(self) -> None:
        self.dismiss(None)
