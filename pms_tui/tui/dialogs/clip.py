"""Clip a web page into a collection: this dialog only asks, and returns a ClipRequest."""

from __future__ import annotations

from dataclasses import dataclass

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Checkbox, Input, Label, Select, Static

from ..typing_input import TypingInput
from .form import FormDialog


@dataclass(frozen=True)
class ClipRequest:
    url: str
    collection: str
    update: bool = False


def looks_like_url(text: str) -> bool:
    text = text.strip()
    return text.lower().startswith(("http://", "https://")) and " " not in text and len(text) < 4000


def clipboard_text() -> str:
    """The system clipboard via pyperclip; "" where no clipboard mechanism exists."""
    try:
        import pyperclip

        return pyperclip.paste() or ""
    except Exception:  # noqa: BLE001 - no xclip/xsel/wl-paste, no display, ...: just no prefill
        return ""


class ClipDialog(FormDialog[ClipRequest | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="clip.cancel")]

    DEFAULT_CSS = """
    ClipDialog {
        & Checkbox { margin: 1 0 0 0; }
    }
    """

    def __init__(self, collections: list[str], *, collection: str | None = None, url: str = "",
                 update: bool = False, read_clipboard: bool = True) -> None:
        super().__init__()
        self.collections = collections
        self.initial_collection = collection if collection in collections else collections[0]
        self.initial_url = url
        self.initial_update = update
        self.read_clipboard = read_clipboard and not url

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Clip a web page"
            box.border_subtitle = "enter to clip · escape to cancel"
            yield Label("URL")
            yield TypingInput(self.initial_url, placeholder="https://…", select_on_focus=False, id="clip-url")
            yield Label("Into the collection")
            yield Select([(name, name) for name in self.collections], value=self.initial_collection,
                         allow_blank=False, id="clip-collection")
            yield Checkbox("Update the note if this page was clipped before", self.initial_update,
                           id="clip-update")
            yield Static("", id="clip-error", classes="form-error")
            with Horizontal():
                yield Button("Cancel", id="clip-cancel")
                yield Button("Clip", variant="primary", id="clip-ok")

    def on_mount(self) -> None:
        self.query_one("#clip-url", Input).focus()
        if self.read_clipboard:
            self.prefill_from_clipboard()

    @work(thread=True, group="clipboard", exit_on_error=False)
    def prefill_from_clipboard(self) -> None:
        text = clipboard_text().strip()
        if looks_like_url(text):
            self.app.call_from_thread(self._prefill, text)

    def _prefill(self, url: str) -> None:
        field = self.query_one("#clip-url", Input)
        if not field.value:
            field.value = url
            field.cursor_position = len(url)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "clip-ok":
            self._submit()
        else:
            self.dismiss(None)

    def _submit(self) -> None:
        url = self.query_one("#clip-url", Input).value.strip()
        if not url:
            self.show_error("Give the address of the page to clip.")
            return
        collection = self.query_one("#clip-collection", Select).value
        update = self.query_one("#clip-update", Checkbox).value
        self.dismiss(ClipRequest(url, str(collection), bool(update)))

    def action_cancel(self) -> None:
        self.dismiss(None)
