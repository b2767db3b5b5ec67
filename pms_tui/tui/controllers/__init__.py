"""The parts the search screen (:class:`pms_tui.tui.screens.search.SearchScreen`) is made
of, one per concern, over its declared state (``state``: the reactives, the panes, the
counts): ``search_runs`` (search as you type), ``query`` (the search language's views,
history, saved searches, evidence), ``notes`` (reader, editor, clipboard), ``sync`` (sync,
watch, the bundled guide, adding a folder), ``clip`` (clipping a web page) and ``links``
(following links, back and forward, the links panel).

A part holds its key actions, its workers (``@work``) and the handlers of the messages its
workers post, where Textual looks for them: on the screen. Textual calls every class's
handler of a message along the screen's MRO, so two parts may each handle one message
(``SearchCompleted``, ``ResultsList.HitHighlighted``) and nothing is handed on. What a part
keeps between calls is either a reactive declared in
:class:`.state.SearchState`, with that part as its one owner, or a
private attribute of its own, set up in its ``init_*`` method. A part asks another for
something by posting a message (:mod:`pms_tui.tui.messages`), never by calling it; what all
of them use (the panes, ``request_search``, the counts) is in ``state`` and ``search_runs``,
which they subclass. There is no interface between the parts and the screen to keep: a part
is the screen.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

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
