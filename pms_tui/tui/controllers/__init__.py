"""The parts the search screen (:class:`pms_tui.tui.screens.search.SearchScreen`) is made
of, one per concern: non-visual widgets (:class:`Part`), composed by the screen, each owning
its state and its workers and saying what happened in messages of its own.

As frogmouth's widgets do, a part never reaches into its neighbours: it posts nested
``Message`` classes named as past-tense events (``Syncer.Progressed``, ``Clipper.ClipFinished``)
and the screen reacts in ``on_<part>_<message>`` handlers, setting the reactives the visual
widgets are bound to (``state``). Its workers run on the part itself (``@work``), so their
``Worker.StateChanged`` lands on the part, which turns a worker's return value into its own
message; a thread's progress is posted as a message with ``can_replace`` (toolong's), so the
queue never floods. The screen's actions (its keys, the palette) call the part. A part reads
only what the screen hands it when it is made: the knowledge base and the keymap.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import TYPE_CHECKING

from textual.widget import Widget

from ..keys import bound_key

if TYPE_CHECKING:
    from pms_tui.core.kb import KnowledgeBase


def while_running(handler):
    """Drop messages and callbacks that arrive while the app is shutting down (no screen to
    update)."""

    @functools.wraps(handler)
    def guarded(self, *args, **kwargs):
        if not self.is_attached or not self.app.is_running:
            return None
        return handler(self, *args, **kwargs)

    return guarded


def opened(kb: KnowledgeBase | None) -> KnowledgeBase:
    """``kb`` in code that runs only once the index is open: its caller checked, or it is a
    worker or a callback started after that check."""
    assert kb is not None, "the index is not open"
    return kb


class Part(Widget):
    """A part of the screen: a widget that is never shown (``display: none``), made with the
    knowledge base (None: the index could not be opened) and the keymap."""

    DEFAULT_CSS = "Part { display: none; }"

    def __init__(self, kb: KnowledgeBase | None, keymap: Mapping[str, str] | None = None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.kb = kb
        self.keymap = keymap if keymap is not None else {}

    def key(self, binding_id: str) -> str:
        """The key bound to ``binding_id`` now (remaps applied), for the sentences a part says."""
        return bound_key(binding_id, self.keymap, self.app.COMMAND_PALETTE_BINDING)
