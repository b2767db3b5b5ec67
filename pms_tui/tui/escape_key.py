"""Escape followed at once by what is typed next stays an escape key.

A terminal sends escape as one byte, ESC, which also begins the sequences of other keys
(``ESC [ A`` is up); Textual's terminal parser (``XTermParser``) waits for
what follows. When escape and the next keys are read in one go (an app busy with a sync or a
search, a loaded machine, a slow ssh link, ``tmux send-keys``), the parser reads:

* ESC and a letter as alt and that letter (``alt+a``, typed as ``a`` by an Input): the escape
  is lost, and the search bar keeps its query;
* ESC and more than 32 other characters, or ESC, characters and another ESC, as an unknown
  sequence, given back key by key with the ESC as a ``^`` key: the bar, and then the history,
  got ``^link to a heading in another note``. tmux send-keys does this every time.

:class:`EscapeAwareParser` rewrites an ESC that cannot begin a key's sequence (the next
character is not ``[``, ``O``, another introducer or ESC) to the escape key's unambiguous
form, ``CSI 27 u`` (the kitty keyboard protocol's, which the parser reads as escape), before
the parser sees it. An ESC that ends a read is held until the next read, or until the
parser's escape delay has passed with nothing more, and then given as escape. Alt and a letter
sent by a terminal as ESC and the letter (the app binds none) is read as escape and the letter.

This leans on two of Textual's private names, reached through :mod:`.textual_seam`: the parser
class and the driver module's name for it (replaced by :func:`install` when
:mod:`.typing_input` is imported: the app's input thread makes its parser from that name).
``tests/tui/test_tui_keys_under_load.py`` checks that Textual still reads ESC and text that way
(when it no longer does, this module can go).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable

from textual import constants
from textual.message import Message

from .textual_seam import XTermParser, install_parser

ESCAPE_KEY = "\x1b[27u"  # CSI 27 u: the escape key, unambiguous
# ESC, then a character that cannot continue a key's sequence: CSI "[", SS3 "O", OSC "]",
# DCS "P", APC "_", PM "^", SOS "X", ST "\", or ESC itself
LONE_ESCAPE = re.compile(r"\x1b(?=[^\[O\]P_^X\\\x1b])")


class EscapeAwareParser(XTermParser):
    """Textual's terminal parser, with an escape read together with what follows kept an escape."""

    def __init__(self, debug: bool = False) -> None:
        super().__init__(debug)
        self._held_since: float | None = None  # an ESC ended the last read: when

    def feed(self, data: str) -> Iterable[Message]:
        if not data:  # the end of the input
            return super().feed(data)
        if self._held_since is not None:
            data, self._held_since = "\x1b" + data, None
        if data.endswith("\x1b"):  # what follows it is in the next read, or nothing is
            data, self._held_since = data[:-1], time.monotonic()
        return super().feed(LONE_ESCAPE.sub(lambda _: ESCAPE_KEY, data)) if data else ()

    def tick(self) -> Iterable[Message]:
        if self._held_since is not None and time.monotonic() - self._held_since >= constants.ESCAPE_DELAY:
            self._held_since = None
            yield from super().feed(ESCAPE_KEY)
        yield from super().tick()


def install() -> bool:
    """Make the app's input thread use :class:`EscapeAwareParser`; False where the terminal
    driver is another (Windows) and has no such parser."""
    return install_parser(EscapeAwareParser)
