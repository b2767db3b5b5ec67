"""Search hits made from the store's rows: one conversion for search results, recent notes
and a note's chunks."""

from __future__ import annotations

from pathlib import Path

from ..results import Hit
from ..store import chunks as chunk_rows
from ..store.chunks import HitRow
from .fusion import Fused


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


def distinct(conn, fused: list[Fused], k: int) -> list[Fused]:
    """The first ``k`` of ``fused``, each passage once: a chunk holding the same passage of
    the same file as a better one (one file indexed twice) is left out."""
    out: list[Fused] = []
    seen: set[object] = set()
    at = 0
    while len(out) < k and at < len(fused):
        part = fused[at : at + k - len(out)]
        at += len(part)
        keys = chunk_rows.passage_keys(conn, [f.chunk_id for f in part])
        for f in part:
            key = keys.get(f.chunk_id, f.chunk_id)  # a chunk gone since: dropped when hits are read
            if key not in seen:
                seen.add(key)
                out.append(f)
    return out
