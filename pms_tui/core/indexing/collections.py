"""Collections: named folders of Markdown notes. Deleting one drops index rows, never files.

A ``Collection`` is plain data (its row, and what its folder holds on disk); what the index
holds of it is asked of ``Collections`` (``kb.collections.counts(collection)``). A web page is
clipped into one by ``kb.clipper.clip(url, collection)``."""

from __future__ import annotations

import builtins
import os
import re
import time
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

from ..errors import CollectionError
from ..store import Store
from ..store import collections as collection_rows
from ..store import vectors as vector_rows
from .notes import is_document_name, note_files, walk_notes

_NAME = re.compile(r"^[\w][\w .-]{0,63}$", re.UNICODE)


@dataclass
class Collection:
    id: int
    name: str
    path: Path
    description: str
    created_at: float
    last_sync: float | None
    writable: bool = False  # agents may write notes here (core/writes/guard.py)

    @property
    def files(self) -> list[Path]:
        """The note files under the folder (recursive, dot-folders ignored), sorted."""
        return note_files(self.path)

    @property
    def exists(self) -> bool:
        return self.path.is_dir()

    def file_counts(self) -> tuple[int, int]:
        """(notes, PDF and Word files) under the folder: the files a sync reads, of which
        :meth:`Collections.counts` gives those indexed (the rest are new or skipped, as status says)."""
        if not self.exists:
            return 0, 0
        names = [rel for rel, _ in walk_notes(self.path, documents=True)]
        documents = sum(1 for rel in names if is_document_name(rel))
        return len(names) - documents, documents


def _walked_inside(outer: Path, inner: Path) -> bool:
    """Whether a sync of ``outer`` walks into ``inner`` (a folder below it, reached through no
    dot-folder: those are not walked)."""
    try:
        rel = inner.relative_to(outer)
    except ValueError:
        return False
    return not any(part.startswith(".") for part in rel.parts)


class Collections:
    """create / get / list / delete, over the store's ``collections`` table."""

    def __init__(self, store: Store, writing: Callable | None = None):
        self.store = store
        # writing() -> a context manager holding the home's writer lock (Index.writing)
        self.writing = writing or nullcontext

    def _collection(self, row: collection_rows.CollectionRow) -> Collection:
        return Collection(
            id=row.id, name=row.name, path=Path(row.path), description=row.description,
            created_at=row.created_at, last_sync=row.last_sync, writable=bool(row.writable),
        )

    def create(self, path: str | os.PathLike, name: str | None = None, description: str = "") -> Collection:
        folder = Path(path).expanduser().resolve()
        if not folder.is_dir():
            raise CollectionError(f"{folder} is not a folder; give the folder that holds your notes.")
        name = (name or folder.name).strip()
        if not _NAME.match(name):
            raise CollectionError(
                f"{name!r} cannot be a collection name; use letters, digits, spaces, '.', '_' or '-'."
            )
        for other in self.list():
            if other.name == name:
                raise CollectionError(f"A collection named {name!r} already exists ({other.path}).")
            if other.path == folder:
                raise CollectionError(f"{folder} is already the collection {other.name!r}.")
            inside = _walked_inside(other.path, folder)
            if inside or _walked_inside(folder, other.path):
                where = "inside" if inside else "around"
                raise CollectionError(
                    f"{folder} is {where} the collection {other.name!r} ({other.path}): its notes would be "
                    f"indexed twice; add a folder that does not overlap it (path:FOLDER/ narrows a search)."
                )
        collection_rows.insert(self.store.conn, name, str(folder), description, time.time())
        return self.get(name)

    def list(self) -> list[Collection]:
        return [self._collection(r) for r in collection_rows.all_collections(self.store.conn)]

    def get(self, name: str) -> Collection:
        row = collection_rows.by_name(self.store.conn, name)
        if row is None:
            known = ", ".join(c.name for c in self.list()) or "none yet"
            raise CollectionError(f"There is no collection named {name[:80]!r} (collections: {known}).")
        return self._collection(row)

    def select(self, names: Sequence[str] | None = None) -> builtins.list[Collection]:
        """The named collections (each must exist), or all of them when no names are given."""
        if names:
            return [self.get(name) for name in names]
        return self.list()

    def ids(self, names: Sequence[str] | None = None) -> builtins.list[int] | None:
        """Ids of the named collections, or None (no filter) when no names are given."""
        if not names:
            return None
        return [self.get(name).id for name in names]

    def counts(self, collection: Collection) -> tuple[int, int]:
        """(documents, chunks) indexed for ``collection``: its notes and PDF and Word files."""
        return collection_rows.counts(self.store.conn, collection.id)

    def set_writable(self, name: str, writable: bool) -> Collection:
        """Mark a collection writable (agents may write notes in it) or read-only."""
        collection = self.get(name)
        if writable and not collection.exists:
            raise CollectionError(f"The folder of collection {name!r} ({collection.path}) does not exist.")
        with self.store.transaction() as conn:
            collection_rows.set_writable(conn, collection.id, writable)
        return self.get(name)

    def delete(self, name: str) -> None:
        """Forget a collection: its index rows go, its files stay untouched."""
        collection = self.get(name)
        with self.writing():  # waits for (or refuses during) a running sync: no orphans
            collection = self.get(name)
            with self.store.transaction() as conn:
                collection_rows.delete(conn, collection.id)
            with self.store.transaction() as conn:
                vector_rows.delete_unused(conn)
