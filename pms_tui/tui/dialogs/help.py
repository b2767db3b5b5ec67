"""F1: the keys, generated from the live bindings (so remapped keys show as remapped)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static


@dataclass(frozen=True)
class KeyRow:
    keys: str
    action: str
    binding_id: str


def help_intro(key: Callable[[str], str], filters: str) -> str:
    """The line above the table; ``key(binding_id)`` names the keys as they are bound now,
    ``filters`` the search language's filters (the engine's one summary of them)."""
    return (
        "Keys work while you type in the search bar, but those marked \"in the results list\": "
        "enter or tab moves there (↑ ↓ select a result and leave you typing). Remap any key with a [keys] table in "
        f"config.toml, by its id:  \"app.sync\" = \"f5\".  {key('command_palette')} opens the command palette.\n"
        f"Search language: words, \"an exact phrase\", -word, -\"a phrase\", {filters}. Filters "
        "alone list the newest matching notes; what does not parse is searched as text. The guide's "
        "\"Searching\" note has more."
    )


# Key, action, id: with a cell's padding (1 each side) and the scrollbar (2) they fill the box's
# 100 inner columns.
COLUMNS = (("Key", 15), ("Action", 55), ("Id", 22))


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,f1,q", "dismiss", "Close", id="help.close"),
    ]

    DEFAULT_CSS = """
    HelpScreen {
        align: center middle;
        & > Vertical {
            width: 104;
            max-width: 95%;
            height: auto;
            max-height: 90%;
            background: $surface;
            border: round $primary;
            border-title-color: $text-accent;
            border-title-style: bold;
            padding: 0 1;
        }
        & #help-intro { color: $text-muted; margin: 0 0 1 0; }
        & DataTable { height: auto; max-height: 28; }
    }
    """

    def __init__(self, rows: Iterable[KeyRow], intro: str = "") -> None:
        super().__init__()
        self.rows = list(rows)
        self.intro = intro

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "pms-tui · keys"
            box.border_subtitle = "escape to close"
            yield Static(Content(self.intro), id="help-intro")
            table: DataTable = DataTable(cursor_type="row", zebra_stripes=True, id="help-keys")
            # fixed widths that fit the box, the action wrapped: the id a remap needs stays in view
            for label, width in COLUMNS:
                table.add_column(label, width=width)
            for row in self.rows:
                table.add_row(row.keys, row.action, row.binding_id, height=None)
            yield table

    def on_mount(self) -> None:
        self.query_one(DataTable).focus()

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
