"""Where the reader has been: the notes opened by following links, with back and forward
(as frogmouth's ``History``). Plain data, no Textual: the links controller keeps one."""

from __future__ import annotations

from dataclasses import dataclass

MAX_PLACES = 200


@dataclass(frozen=True)
class Place:
    """A note and the line the reader showed it at."""

    collection: str
    path: str  # relative to the collection's folder
    line: int = 1
    title: str = ""

    @property
    def name(self) -> str:
        return self.title or self.path.rsplit("/", 1)[-1].removesuffix(".md")


class ReadingHistory:
    def __init__(self, limit: int = MAX_PLACES) -> None:
        self.places: list[Place] = []
        self.index = -1  # the place shown now
        self.limit = limit

    @property
    def current(self) -> Place | None:
        return self.places[self.index] if 0 <= self.index < len(self.places) else None

    @property
    def can_go_back(self) -> bool:
        return self.index > 0

    @property
    def can_go_forward(self) -> bool:
        return self.index < len(self.places) - 1

    def visit(self, place: Place) -> None:
        """A new place: what was ahead of the current one is dropped (as in a browser)."""
        if self.current is not None and (self.current.collection, self.current.path) == (place.collection, place.path):
            self.places[self.index] = place  # the same note at another line: not a new step
            return
        del self.places[self.index + 1:]
        self.places.append(place)
        if len(self.places) > self.limit:
            del self.places[0]
        self.index = len(self.places) - 1

    def back(self) -> Place | None:
        if not self.can_go_back:
            return None
        self.index -= 1
        return self.current

    def forward(self) -> Place | None:
        if not self.can_go_forward:
            return None
        self.index += 1
        return self.current

    def trail(self, width: int = 5) -> str:
        """``Home › Links › [Embeds] › Aliases``: the places around the current one, it in brackets."""
        lo = max(0, self.index - width + 1)
        hi = min(len(self.places), self.index + 3)
        parts = [f"[{p.name}]" if i == self.index else p.name for i, p in enumerate(self.places[lo:hi], lo)]
        return ("… › " if lo else "") + " › ".join(parts) + (" › …" if hi < len(self.places) else "")
