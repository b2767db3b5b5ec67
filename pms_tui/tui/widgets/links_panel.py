"""The links panel beside the reader: the way taken (back / forward), the note's outline,
its links (dangling ones dimmed and struck through), its backlinks with the line that links,
its unlinked mentions and its related notes (those already linked marked → linked from
here, ← linking here, ↔ both). Enter (or a
click) on an entry posts ``LinksPanel.EntryChosen``; the screen opens it in the reader.

Every text here comes from notes: it is built as ``Content`` (never parsed as markup) from
``one_line`` text.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from pms_tui.core.safe_text import one_line


@dataclass(frozen=True)
class PanelEntry:
    """Where an entry leads: a note of a collection, at a line."""

    collection: str
    path: str
    line: int = 1
    title: str = ""


@dataclass
class PanelContent:
    """What the panel lists for one note (plain data the links controller gathers)."""

    title: str
    trail: str
    outline: list[tuple[str, int, int]]  # (heading, level, line)
    links: list[tuple[str, PanelEntry | None, str]]  # (shown text, where it leads or None, status)
    backlinks: list[tuple[str, str, PanelEntry]]  # (source name, linking line, entry)
    mentions: list[tuple[str, str, PanelEntry]]
    # (name, score, mark, entry); mark: "→ " linked from here, "← " links here, "↔ " both, "  " neither
    related: list[tuple[str, float, str, PanelEntry]]
    related_note: str = ""  # why related is empty (vectors pending, model not ready)


class LinksPanel(Vertical):
    DEFAULT_CSS = """
    LinksPanel {
        width: 42;
        border-left: solid $primary 40%;
        background: $surface;
        display: none;
        &.-shown { display: block; }
        & > #links-trail { height: auto; max-height: 3; padding: 0 1; color: $text-muted; }
        & > OptionList { height: 1fr; border: none; background: $surface; }
    }
    """

    class EntryChosen(Message):
        """An entry was chosen: open it in the reader."""

        def __init__(self, entry: PanelEntry) -> None:
            super().__init__()
            self.entry = entry

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.entries: dict[str, PanelEntry] = {}
        self.content: PanelContent | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="links-trail")
        yield OptionList(id="links-list")

    @property
    def option_list(self) -> OptionList:
        return self.query_one("#links-list", OptionList)

    def show_trail(self, trail: str, back: bool, forward: bool, here: str = "") -> None:
        """The way taken by following links; before any, the note the panel is about (``here``)."""
        arrows = ("◀ back" if back else "") + ("  " if back and forward else "") + ("forward ▶" if forward else "")
        self.query_one("#links-trail", Static).update(Content.assemble(
            (one_line(trail) or one_line(here), "$text"), ("\n" + arrows if arrows else "", "$text-muted italic")))

    def show(self, content: PanelContent) -> None:
        self.content = content
        self.entries = {}
        options: list[Option | None] = []

        def header(text: str) -> None:
            if options:
                options.append(None)
            options.append(Option(Content.styled(text, "bold $text-accent"), disabled=True))

        def entry(label: Content, target: PanelEntry | None) -> None:
            option_id = f"e{len(self.entries)}"
            if target is not None:
                self.entries[option_id] = target
            options.append(Option(label, id=option_id if target else None, disabled=target is None))

        header(f"Outline ({len(content.outline)})")
        for text, level, heading_line in content.outline:
            entry(Content("  " * (level - 1) + one_line(text)), PanelEntry("", "", heading_line))
        header(f"Links ({len(content.links)})")
        for text, target, status in content.links:
            if target is None:
                entry(Content.styled(one_line(text) + f"  ({status})", "strike $text-muted"), None)
            else:
                entry(Content("→ " + one_line(text)), target)
        header(f"Backlinks ({len(content.backlinks)})")
        for name, linking, target in content.backlinks:
            entry(Content.assemble(("← " + one_line(name), "bold"), ("\n   " + one_line(linking)[:120], "$text-muted")),
                  target)
        header(f"Unlinked mentions ({len(content.mentions)})")
        for name, naming, target in content.mentions:
            entry(Content.assemble((one_line(name), ""), ("\n   " + one_line(naming)[:120], "$text-muted")), target)
        header(f"Related ({len(content.related)})")
        if content.related_note:
            options.append(Option(Content.styled(content.related_note, "$text-muted italic"), disabled=True))
        for name, score, mark, target in content.related:
            entry(Content.assemble((f"{score:.2f} ", "$text-muted"), (mark, "bold $text-success"), one_line(name)),
                  target)
        option_list = self.option_list
        option_list.clear_options()
        option_list.add_options(options)
        first = next((i for i, o in enumerate(options) if o is not None and not o.disabled), None)
        option_list.highlighted = first

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        target = self.entries.get(event.option.id or "")
        if target is not None:
            self.post_message(self.EntryChosen(target))
