"""Every private name of Textual the app uses, in one place; the rest of the app imports from here.

Each name is listed in ``PRIVATE_NAMES`` with why it is needed and what public way would
replace it; ``tests/tui/test_textual_seam.py`` checks every entry against the installed
Textual, so an upgrade that renames or changes one fails there, naming it, rather than as keys
quietly typed out of order. pyproject.toml pins Textual exactly for these names.

What the reader's Markdown customises goes through Textual's public interface:
``Markdown.BLOCKS`` (the block classes, and the classes subclassed here), ``parser_factory``,
``MarkdownBlock.compose`` (a block's children), ``build_from_token`` and ``set_content`` (a
block's text), and ``Markdown.append`` from an empty widget (a long note's pieces, continued from
the start of the last block). None of it is listed below.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, NamedTuple

from textual import events
from textual._xterm_parser import XTermParser  # (re-exported: its feed(data) and tick() yield messages)
from textual.widgets import Input, Markdown

if TYPE_CHECKING:
    from textual.widgets.markdown import MarkdownBlock as BulletList
    from textual.widgets.markdown import MarkdownBlock as OrderedList
else:  # Textual's own list blocks, public through Markdown.BLOCKS (their module is private)
    BulletList = Markdown.BLOCKS["bullet_list_open"]
    OrderedList = Markdown.BLOCKS["ordered_list_open"]
Paragraph = Markdown.BLOCKS["paragraph_open"]
ListItems = (Markdown.BLOCKS["list_item_ordered_open"], Markdown.BLOCKS["list_item_unordered_open"])
OrderedListItem = Markdown.BLOCKS["list_item_ordered_open"]


class PrivateName(NamedTuple):
    module: str
    name: str  # a module's attribute, or "Class.attribute"
    kind: str  # what it must be: "class", "async method", "property", "float"
    why: str
    public_way: str  # what would replace it


PRIVATE_NAMES: tuple[PrivateName, ...] = (
    PrivateName(
        "textual.widgets", "Input._on_key", "async method",
        "TypingInput runs a bound key's action in its place among the characters typed around it "
        "(a burst of keys otherwise inserts the characters after a backspace before it runs)",
        "a fix of Textualize/textual#6605 (proposed in #6631): then TypingInput is a plain Input"),
    PrivateName(
        "textual._xterm_parser", "XTermParser", "class",
        "the terminal parser, subclassed so an escape read together with what follows stays an "
        "escape (escape_key.py)",
        "Textual reading ESC and text as escape and text (tests/tui/test_tui_keys_under_load.py "
        "says when it does), or a driver setting for the parser"),
    PrivateName(
        "textual.drivers.linux_driver", "XTermParser", "class",
        "the name the input thread makes its parser from, replaced by install_parser",
        "as above"),
    PrivateName(
        "textual._wait", "SLEEP_GRANULARITY", "float",
        "tests only (tests/conftest.py): Pilot checks whether the app is idle in 20 ms steps; "
        "in 5 ms steps the TUI suite runs three times as fast",
        "a Pilot setting for its idle check, or Textual's own step at 5 ms or less"),
    PrivateName("textual._wait", "SLEEP_IDLE", "float", "tests only: set with SLEEP_GRANULARITY", "as above"),
)


class KeyFirstInput(Input):
    """An Input that sees each key before Textual inserts it (``Input._on_key``): when
    :meth:`key_first` returns True the key is consumed, else the Input handles it as usual."""

    async def key_first(self, event: events.Key) -> bool:
        return False

    async def _on_key(self, event: events.Key) -> None:
        if await self.key_first(event):
            event.stop()
            event.prevent_default()
            return
        await super()._on_key(event)


def install_parser(parser: type[XTermParser]) -> bool:
    """Make the app's input thread make ``parser`` (a subclass of ``XTermParser``) as
    its terminal parser; False where the driver is another (Windows) and reads keys, not bytes."""
    try:
        from textual.drivers import linux_driver
    except ImportError:  # no termios
        return False
    linux_driver.XTermParser = parser  # type: ignore[misc]
    return True


@contextmanager
def pilot_idle_step(seconds: float) -> Iterator[None]:
    """Pilot (tests) checks whether the app is idle every ``seconds``, with Textual's idle ratio
    (CPU under 1/20 of the wall time)."""
    from textual import _wait

    saved = _wait.SLEEP_GRANULARITY, _wait.SLEEP_IDLE
    _wait.SLEEP_GRANULARITY = seconds
    _wait.SLEEP_IDLE = seconds / 20
    try:
        yield
    finally:
        _wait.SLEEP_GRANULARITY, _wait.SLEEP_IDLE = saved
