"""The index's own results, each written out by its ``to_json``: a collection's summary
(``pms-tui collections``, MCP ``status``), the whole index's status (``pms-tui status``, MCP
``status``) and the sentence said when there is nothing to search yet.

``of(kb, ...)`` builds each from a KnowledgeBase (any object with its methods), so every
front end asks the same question the same way and gets the same answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .output_rules import iso_time

# How a person adds a folder, and indexes it, from the command line (the MCP server tells an
# agent the same); the app passes its own key instead.
ADD_FROM_CLI = "run `pms-tui add PATH`"
SYNC_FROM_CLI = "run `pms-tui sync`"


def no_collections_notice(how_to_add: str = ADD_FROM_CLI) -> str:
    """The one sentence for an index without collections: ``how_to_add`` is the front end's
    way (``"press f6"``, ``"run `pms-tui add PATH`"``)."""
    return f"No collections yet: {how_to_add} to add a folder of notes."


def nothing_indexed_notice(how_to_sync: str = SYNC_FROM_CLI) -> str:
    """The one sentence for collections none of whose notes is indexed yet."""
    return f"Nothing indexed yet: {how_to_sync} to index the notes."


@dataclass(frozen=True)
class CollectionSummary:
    """One collection as listed: its folder, what is in it and what of it is indexed."""

    name: str
    description: str
    folder: str
    folder_exists: bool
    writable: bool  # agents may write notes in it
    default_search: bool  # False: the guide stepped aside, searched only when asked (in:NAME)
    files: int  # the files of the kinds it indexes
    notes: int  # of them, Markdown notes
    documents: int  # of them, documents (PDF, Word, EPUB, slides, sheets, images ...)
    indexed: int  # documents in the index
    chunks: int
    last_sync: float | None  # epoch seconds

    @classmethod
    def of(cls, col: Any, counts: tuple[int, int], default_search: bool = True,
           files: tuple[int, int] | None = None) -> CollectionSummary:
        """``counts``: (documents, chunks) the index holds of ``col`` (``kb.collections.counts``);
        ``files``: (notes, documents) in its folder when a sync's plan walked it already."""
        indexed, chunks = counts
        notes, documents = files if files is not None else col.file_counts()
        return cls(col.name, col.description, str(col.path), col.exists, col.writable, default_search,
                   notes + documents, notes, documents, indexed, chunks, col.last_sync)

    @classmethod
    def all_of(cls, kb: Any, names: Sequence[str] | None = None,
               files: dict[str, tuple[int, int]] | None = None) -> list[CollectionSummary]:
        """The collections ``names`` (default: all), each as listed; ``files``: their folders'
        counts by name, from a plan that walked them already."""
        aside = kb.scope.guide_aside()
        return [cls.of(col, kb.collections.counts(col), aside is None or col.id != aside.id,
                       (files or {}).get(col.name)) for col in kb.collections.select(names)]

    def to_json(self) -> dict:
        return {"name": self.name, "description": self.description, "folder": self.folder,
                "folder_exists": self.folder_exists, "writable": self.writable,
                "default_search": self.default_search, "files": self.files, "notes": self.notes,
                "documents": self.documents, "indexed": self.indexed, "chunks": self.chunks,
                "last_sync": iso_time(self.last_sync)}


@dataclass
class IndexStatus:
    """The index now: its collections, what it holds, the model, and what a sync would change
    (per collection in ``plans``, a ``SyncStatus`` each; the link and document counts)."""

    collections: list[CollectionSummary]
    notes: int
    chunks: int
    vectors: int
    vectors_pending: int
    model: str
    model_state: str
    model_problem: str | None
    index_bytes: int
    read_only: bool
    plans: dict[str, Any] = field(default_factory=dict)  # collection name -> SyncStatus
    links: dict[str, dict[str, int]] = field(default_factory=dict)  # collection name -> status -> count
    documents: dict[str, Any] = field(default_factory=dict)  # collection name -> DocumentCounts
    embedding_by: int | None = None  # the pid of the process embedding the waiting texts now

    @classmethod
    def of(cls, kb: Any, names: Sequence[str] | None = None) -> IndexStatus:
        plans = {col.name: kb.check_sync_status([col.name]) for col in kb.collections.select(names)}
        # each folder walked once: by its plan, whose walk also counts its files
        cols = CollectionSummary.all_of(kb, names, {name: plan.files[name] for name, plan in plans.items()})
        stats = kb.stats()
        return cls(cols, stats["documents"], stats["chunks"], stats["vectors"], stats["vectors_pending"],
                   stats["model"], str(kb.model.state), kb.model.mismatch or kb.model.error, stats["db_bytes"],
                   kb.index.read_only, plans, kb.graph.link_counts(), kb.index.document_counts(),
                   kb.index.embedder_at_work() if stats["vectors_pending"] else None)

    @property
    def last_sync(self) -> float | None:
        syncs = [c.last_sync for c in self.collections if c.last_sync]
        return max(syncs) if syncs else None

    def pending(self, what: str) -> list:
        """The files of every collection a sync would ``what`` (to_add, to_update, to_delete, skipped)."""
        return [item for plan in self.plans.values() for item in getattr(plan, what)]

    def to_json(self) -> dict:
        return {
            "collections": [c.to_json() for c in self.collections],
            "notes": self.notes, "chunks": self.chunks, "vectors": self.vectors,
            "vectors_pending": self.vectors_pending, "model": self.model, "model_state": self.model_state,
            "model_problem": self.model_problem, "last_sync": iso_time(self.last_sync),
            "index_bytes": self.index_bytes, "read_only": self.read_only, "embedding_by_pid": self.embedding_by,
            # what a sync would change
            "to_add": [str(p) for p in self.pending("to_add")],
            "to_update": [str(p) for p in self.pending("to_update")],
            "to_delete": [str(p) for p in self.pending("to_delete")],
            "skipped": skipped_json([(str(p), why) for p, why in self.pending("skipped")]),
            "links": {name: self.links.get(name, {}) for name in self.plans},
            "documents": {name: c.to_json() for name, c in self.documents.items() if name in self.plans},
        }


def skipped_json(skipped: Sequence[tuple[str, str]]) -> list[dict]:
    """Skipped files, ``(path, reason)`` each, as every result lists them."""
    return [{"path": path, "reason": reason} for path, reason in skipped]

