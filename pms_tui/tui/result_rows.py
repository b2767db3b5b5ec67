"""Which rows the results list shows: passages, or one row per note (at its best passage's
rank, with "+N more passages" that expand in place), sorted by relevance or by date."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from pms_tui.core.results import Hit

VIEWS = ("notes", "passages")
SORTS = ("relevance", "modified")


@dataclass(frozen=True)
class Row:
    hit: Hit
    more: int = 0  # a note row: how many more passages of the note matched
    extra: bool = False  # a passage shown under its expanded note

    @property
    def note(self) -> tuple[str, str]:
        return note_key(self.hit)


def note_key(hit: Hit) -> tuple[str, str]:
    return hit.collection, hit.relpath


def group(hits: Sequence[Hit]) -> list[list[Hit]]:
    """Hits by note, each note where its best passage ranks."""
    groups: dict[tuple[str, str], list[Hit]] = {}
    for hit in hits:
        groups.setdefault(note_key(hit), []).append(hit)
    return list(groups.values())


def _newest_first(hit: Hit) -> tuple[bool, float]:
    """Newest first among the hits that hold the query's words (BM25 ranked them), then the
    ones the model alone found: a date never lifts a passage of no shared word above the note
    holding the word typed."""
    return hit.bm25_rank is None, -(hit.modified or 0.0)


def layout(hits: Sequence[Hit], view: str = "notes", sort: str = "relevance",
           expanded: Collection[tuple[str, str]] = (), limit: int | None = None) -> list[Row]:
    """The rows to show. ``limit`` caps the notes (or passages) listed, not the extra rows."""
    if view == "passages":
        ordered = list(hits)
        if sort == "modified":
            ordered.sort(key=_newest_first)  # stable: relevance breaks ties
        return [Row(h) for h in ordered[:limit]]
    groups = group(hits)
    if sort == "modified":
        groups.sort(key=lambda g: _newest_first(g[0]))
    rows: list[Row] = []
    for g in groups[:limit]:
        rows.append(Row(g[0], more=len(g) - 1))
        if note_key(g[0]) in expanded:
            rows += [Row(h, extra=True) for h in g[1:]]
    return rows
