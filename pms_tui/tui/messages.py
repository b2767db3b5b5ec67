"""What the workers report to the search screen: one small message class per event.

Workers run in threads and never touch a widget; they post one of these and the screen's
``on_<name>`` handler updates the UI on the UI thread. Names are past-tense events.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from pms_tui.core.results import Hit


class SearchCompleted(Message):
    """A search (or the recent-notes list for an empty query) came back."""

    def __init__(self, generation: int, query: str, hits: list[Hit], lanes: list[str],
                 notes: list[str], elapsed_ms: float, recent: bool, error: str | None = None,
                 result=None) -> None:
        super().__init__()
        self.result = result  # the SearchResult (its parsed query, for chips and evidence); None: recent
        self.generation = generation
        self.query = query
        self.hits = hits
        self.lanes = lanes
        self.notes = notes
        self.elapsed_ms = elapsed_ms
        self.recent = recent
        self.error = error


class ModelLoaded(Message):
    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds


class ModelFailed(Message):
    def __init__(self, reason: str) -> None:
        super().__init__()
        self.reason = reason


class IndexChanged(Message):
    """A sync or a clip changed what is indexed (completion values, saved searches follow)."""
