"""The reader's Markdown widget: Textual's Markdown with fewer widgets per list item.

Textual's Markdown mounts four widgets for every list item (a row, its bullet, a column and
the item's paragraph), and mounting, styling and laying out widgets is what following a link
costs. An item that is one paragraph (most are) gets a row holding its bullet and that
paragraph, which looks the same; other items keep Textual's column. A followed note's first
screen can be shown as one widget until its blocks are mounted (:mod:`.first_screen`).
A fence whose info string names no language is plain text (:class:`NoteFence`).
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.events import Mount
from textual.widgets import Markdown
from textual.widgets._markdown import (  # private: tests/tui/test_note_markdown.py checks the look
    MarkdownBlock,
    MarkdownBullet,
    MarkdownBulletList,
    MarkdownFence,
    MarkdownListItem,
    MarkdownOrderedList,
    MarkdownOrderedListItem,
    MarkdownParagraph,
)

from .first_screen import FirstScreen


class ItemRow(Horizontal):
    """A list item of one paragraph: its bullet beside it."""

    DEFAULT_CSS = """
    ItemRow { height: auto; width: 1fr; }
    ItemRow > MarkdownParagraph { width: 1fr; }
    """


def _rows(items: Iterable[tuple[MarkdownListItem, str]]) -> ComposeResult:
    for item, symbol in items:
        bullet = MarkdownBullet()
        bullet.symbol = symbol
        blocks: list[MarkdownBlock] = item._blocks
        if len(blocks) == 1 and type(blocks[0]) is MarkdownParagraph:
            yield ItemRow(bullet, blocks[0])
        else:
            yield Horizontal(bullet, Vertical(*blocks))


class LightBulletList(MarkdownBulletList):
    def compose(self) -> ComposeResult:
        yield from _rows((b, b.bullet) for b in self._blocks if isinstance(b, MarkdownListItem))
        self._blocks.clear()


class LightOrderedList(MarkdownOrderedList):
    def compose(self) -> ComposeResult:  # numbered as Textual numbers them
        items = [b for b in self._blocks if isinstance(b, MarkdownListItem)]
        start = 1
        if items and isinstance(items[0], MarkdownOrderedListItem):
            try:
                start = int(items[0].bullet)
            except ValueError:
                pass
        width = max((len(f"{n}. ") for n in range(start, start + len(items))), default=0)
        yield from _rows((b, f"{n}. ".rjust(width + 1)) for n, b in enumerate(items, start))
        self._blocks.clear()


class NoteFence(MarkdownFence):
    """A fence highlighted in the language its info string names, and one that names none shown
    as plain text, as GitHub and Obsidian show it (and as the first screen does). Textual's
    guesses the language with Pygments' guess_lexer, which imports every lexer the first time
    (150-220 ms on the UI thread, right after the app's first paint when the first note shown
    had such a fence, guessed as "text" anyway) and asks each of them to rate the code, every
    fence after that."""

    @classmethod
    def highlight(cls, code: str, language: str, ansi: bool = False, dark: bool = False):
        return super().highlight(code, language or "text", ansi=ansi, dark=dark)


class NoteMarkdown(Markdown, can_focus_children=False):
    """Markdown that never takes focus from navigation, with lighter list items and fences that
    are not guessed at."""

    BLOCKS = {**Markdown.BLOCKS, "bullet_list_open": LightBulletList, "ordered_list_open": LightOrderedList,
              "fence": NoteFence, "code_block": NoteFence}

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._first_screen: FirstScreen | None = None

    def stand_in(self, first_screen: FirstScreen) -> None:
        """Before this is mounted: show ``first_screen`` (a screenful of the note as one
        widget, see :mod:`.first_screen`), mounted with this; ``update(first_screen.text)``
        mounts the note's blocks later."""
        self._first_screen = first_screen
        self._markdown = first_screen.text  # Textual's source

    def compose(self) -> ComposeResult:
        if self._first_screen is not None:
            yield self._first_screen

    # Textual's Markdown makes Widget's _on_mount a coroutine: no override can match both
    # declarations; Textual dispatches either kind alike.
    def _on_mount(self, event: Mount) -> None:  # type: ignore[override]
        if self._first_screen is not None:  # not Textual's Markdown's: no update with "" (a thread, a lock)
            event.prevent_default()

    @property
    def first_screen(self) -> FirstScreen | None:
        """The stand-in shown until the note's blocks are mounted (None once they are)."""
        return next((w for w in self.children if isinstance(w, FirstScreen)), None)
