"""What the search bar shows of the search language: the parsed filters as chips under it,
and completion of ``tag:``, ``in:`` and ``path:`` values as they are typed."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from textual.content import Content
from textual.suggester import Suggester
from textual.widgets import Static

from ...core.kb import FILTERS


class QuerySuggester(Suggester):
    """Completes a filter's value: ``values(name)`` gives the choices of each filter that
    completes (``tag``, ``in`` and ``path``: the screen keeps them from the index), the most
    useful first."""

    def __init__(self, values: Callable[[str], Sequence[str]]) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.values = values

    async def get_suggestion(self, value: str) -> str | None:
        return FILTERS.complete(value, self.values)


class FilterChips(Static):
    """The parsed query's filters as chips, one line under the search bar; empty and
    collapsed when there are none."""

    DEFAULT_CSS = """
    FilterChips {
        height: auto;
        max-height: 2;
        padding: 0 1;
        color: $text-muted;
        display: none;
        &.-shown { display: block; }
    }
    """

    def show_query(self, chips: Sequence[str], ignored: Sequence[str] = ()) -> None:
        parts: list = []
        for chip in chips:
            parts += [(f" {chip} ", "$text-accent on $accent 20%"), " "]
        for item in ignored:
            parts += [(f" {item} ", "$text-warning strike"), " "]
        self.chips = list(chips)
        self.set_class(bool(parts), "-shown")
        self.update(Content.assemble(*parts) if parts else "")
