"""What the search screen does besides searching, one concern per module, mixed into
:class:`pms_tui.tui.screens.search.SearchScreen`: ``notes`` (reader, editor, clipboard),
``sync`` (sync, the bundled guide, adding a folder) and ``clip`` (clipping a web page).

Each mixin holds the actions, the thread workers and the message handlers of its concern;
the screen supplies ``kb``, the panes and ``request_search``.
"""

from __future__ import annotations

import functools


def while_running(handler):
    """Drop messages and callbacks that arrive while the app is shutting down (no screen to
    update)."""

    @functools.wraps(handler)
    def guarded(self, *args, **kwargs):
        if not self.is_attached or not self.app.is_running:
            return None
        return handler(self, *args, **kwargs)

    return guarded
