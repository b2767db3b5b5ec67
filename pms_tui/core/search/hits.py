"""Search hits made from the store's rows: one conversion for search results, recent notes
and a note's chunks."""

from __future__ import annotations

from pathlib import Path

from ..results import Hit
from ..store.chunks import HitRow


def hit_from_row(row: HitRow, snippet: str = "", **evidence) -> Hit:
    """A Hit from a chunk row; ``evidence`` sets score, ranks and lane scores."""
    return Hit(
        chunk_id=row.chunk_id, collection=row.collection, path=str(Path(row.collection_path) / row.path),
        relpath=row.path, title=row.title, heading_path=row.heading.split(" > ") if row.heading else [],
        start_line=row.start_line, end_line=row.end_line, text=row.body, snippet=snippet,
        modified=row.mtime_ns / 1e9 if row.mtime_ns else None, **{"score": 0.0, "rrf": 0.0, **evidence},
    )


def preview(text: str, width: int = 200) -> str:
    """The start of a chunk on one line: what a hit shows when there is no query."""
    return " ".join(text.split())[:width]
