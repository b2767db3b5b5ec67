"""Plain data the engine hands out: search hits and results, sync plans and sync reports."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import NamedTuple

SNIPPET_OPEN = "«"
SNIPPET_CLOSE = "»"
# The search modes: both lanes fused, or one lane alone.
MODES = ("hybrid", "bm25", "vector")
# ``progress(done, total, phase)`` of a sync; phase is scanning, deleting, indexing, embedding
# or done.
SyncProgress = Callable[[int, int, str], None]


@dataclass
class Hit:
    """One ranked passage, with the evidence of both lanes."""

    chunk_id: int
    collection: str
    path: str  # absolute path of the note
    relpath: str  # path inside its collection
    title: str
    heading_path: list[str]
    start_line: int  # 1-based, inclusive, lines of the file
    end_line: int
    text: str
    snippet: str  # query words wrapped in SNIPPET_OPEN / SNIPPET_CLOSE
    score: float  # normalised RRF, 0..1
    rrf: float  # raw RRF sum
    bm25_rank: int | None = None
    vector_rank: int | None = None
    bm25: float | None = None  # FTS5 bm25 (lower is better)
    distance: float | None = None  # cosine distance

    @property
    def breadcrumb(self) -> str:
        return " > ".join(self.heading_path)

    def to_json(self) -> dict:
        return asdict(self)


class SearchResult(list):
    """What a search found: a list of hits, best first, that also says which lanes answered
    (``lanes``) and carries notes for the user (``notes``, e.g. "vector lane waiting for the
    model"). ``for hit in kb.search(...)`` and ``kb.search(...)[0]`` work as on a list."""

    def __init__(self, hits: Iterable[Hit] = (), lanes: Iterable[str] = (), notes: Iterable[str] = ()):
        super().__init__(hits)
        self.lanes: list[str] = list(lanes)
        self.notes: list[str] = list(notes)

    @property
    def hits(self) -> list[Hit]:
        return self

    def __repr__(self) -> str:
        return f"SearchResult({list.__repr__(self)}, lanes={self.lanes!r}, notes={self.notes!r})"


class PendingFile(NamedTuple):
    collection: str
    path: str  # relative to the collection folder

    def __str__(self) -> str:
        return f"{self.collection}/{self.path}"


class SyncStatus(NamedTuple):
    """What a sync would do: ``to_add, to_delete, to_update = kb.check_sync_status()``."""

    to_add: list[PendingFile]
    to_delete: list[PendingFile]
    to_update: list[PendingFile]

    @property
    def summary(self) -> str:
        return (
            f"Sync status: +{len(self.to_add)} new, ~{len(self.to_update)} modified, "
            f"-{len(self.to_delete)} deleted"
        )

    def __str__(self) -> str:
        return self.summary


@dataclass
class SyncReport:
    added: list[str] = field(default_factory=list)
    modified: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    unchanged: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    problems: list[str] = field(default_factory=list)  # collection-level, e.g. a missing folder
    chunks_written: int = 0
    chunks_embedded: int = 0
    chunks_reused: int = 0
    seconds: float = 0.0
    embed_seconds: float = 0.0
    cancelled: bool = False  # stopped between documents; the next sync does the rest

    @property
    def changed(self) -> bool:
        return bool(self.added or self.modified or self.deleted)

    @property
    def summary(self) -> str:
        text = (
            f"Synced: +{len(self.added)} new, ~{len(self.modified)} modified, "
            f"-{len(self.deleted)} deleted, {self.unchanged} unchanged, {len(self.skipped)} skipped; "
            f"{self.chunks_embedded} chunks embedded, {self.chunks_reused} reused "
            f"in {self.seconds:.1f}s"
        )
        return text + " (cancelled; sync again to finish)" if self.cancelled else text

    def to_json(self) -> dict:
        data = asdict(self)
        data["skipped"] = [{"path": p, "reason": r} for p, r in self.skipped]
        return data
