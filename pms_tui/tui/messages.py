"""What the workers report to the search screen: one small message class per event.

Workers run in threads and never touch a widget; they post one of these and the screen's
``on_<name>`` handler updates the UI on the UI thread. Names are past-tense events.
"""

from __future__ import annotations

from textual.message import Message


class IndexChanged(Message):
    """A sync or a clip changed what is indexed (completion values, saved searches follow)."""
