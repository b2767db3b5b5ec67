"""The search screen's own message (each part's are nested in its class, controllers/)."""

from __future__ import annotations

from textual.message import Message


class IndexChanged(Message):
    """A sync (this app's or another process's) changed what is indexed: completion values,
    saved searches and a search waiting for vectors follow."""
