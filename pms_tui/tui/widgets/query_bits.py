"""What the search bar shows of the search language: the parsed filters as chips under it,
and completion of ``tag:``, ``in:`` and ``path:`` values as they are typed."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from textual.content import Content
from textual.suggester import Suggester
from textual.widgets import Static

# the value being typed at the end of the bar: tag:gi, -in:no, path:"my no
_TYPING = re.compile(r'(?:^|\s)-?(tag|tags|in|collection|col|path|file):("?)([^\s"]*)$', re.IGNORECASE)
_KIND = {"tag": "tag", "tags": "tag", "in": "in", "collection": "in", "col": "in", "path": "path", "file": "path"}


class QuerySuggester(Suggester):
    """Completes a filter's value: ``values(kind)`` gives the choices of ``tag``, ``in`` and
    ``path`` (the screen keeps them from the index), the most useful first."""

    def __init__(self, values: Callable[[str], Sequence[str]]) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.values = values

    async def get_suggestion(self, value: str) -> str | None:
        return complete(value, self.values)


def complete(value: str, values: Callable[[str], Sequence[str]]) -> str | None:
    found = _TYPING.search(value)
    if not found:
        return None
    kind = _KIND[found.group(1).lower()]
    quoted = bool(found.group(2))
    typed = found.group(3)
    bare = typed.lstrip("#") if kind == "tag" else typed
    for choice in values(kind):
        if (" " in choice or '"' in choice) and not quoted:
            continue
        if choice.lower().startswith(bare.lower()) and len(choice) > len(bare):
            return value + choice[len(bare):] + ('"' if quoted else "")
    return None


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
