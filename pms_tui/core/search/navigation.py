"""Navigation pages rank below the pages they point to.

A PDF's contents and index pages (flagged when it is read: core/indexing/navigation_pages)
hold the words of every section they list, so both lanes rank them near the top of any query
naming a section, above the page that answers it. After fusion their fused score counts
``WEIGHT`` of its worth: such a page still answers a query nothing else matches, and a query
for the index itself, but a page of text that either lane ranks well comes first.
"""

from __future__ import annotations

from ..store import chunks as chunk_rows
from .fusion import Fused

WEIGHT = 0.5


def demote(conn, fused: list[Fused]) -> list[Fused]:
    """``fused`` with the navigation pages' scores weighed down and the order made again."""
    if WEIGHT == 1.0 or not fused:
        return fused
    navigation = chunk_rows.navigation_ids(conn, [f.chunk_id for f in fused])
    if not navigation:
        return fused
    for f in fused:
        if f.chunk_id in navigation:
            f.rrf *= WEIGHT
            f.score *= WEIGHT
    return sorted(fused, key=lambda f: (-f.rrf, min(f.ranks.values()), f.chunk_id))
