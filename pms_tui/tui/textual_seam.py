"""Every private name of Textual the app uses, in one place; the rest of the app imports from here.

Each name is listed in ``PRIVATE_NAMES`` with why it is needed and what public way would
replace it; ``tests/tui/test_textual_seam.py`` checks every entry against the installed
Textual, and that no other module of the app reaches a private name of Textual's. The app
needs one of them, the terminal parser; when a Textual release moves it, the app starts
without the escape rewrite (:mod:`.typing_input`), and the tests say so.

The rest goes through Textual's public interface: the reader's Markdown through
``Markdown.BLOCKS`` (the block classes, and the list blocks it subclasses), ``parser_factory``,
``MarkdownBlock.compose`` (a block's children), ``build_from_token`` and ``set_content`` (a
block's text), ``Markdown.append`` from an empty widget (a long note's pieces, continued from
the start of the last block) and a ``Mount`` handler's ``prevent_default``; the typing order
through a key handler that runs before the Input's own, and ``Screen.active_bindings``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import NamedTuple

from textual._xterm_parser import XTermParser  # (re-exported: its feed(data) and tick() yield messages)


class PrivateName(NamedTuple):
    module: str
    name: str  # a module's attribute, or "Class.attribute"
    kind: str  # what it must be: "class", "async method", "property", "float"
    why: str
    public_way: str  # what would replace it


PRIVATE_NAMES: tuple[PrivateName, ...] = (
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
