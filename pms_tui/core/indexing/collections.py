"""Collections: named folders of Markdown notes. Deleting one drops index rows, never files."""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .clip import ClipResult
    from .kb import KnowledgeBase

NOTE_SUFFIXES = (".md", ".markdown")
_NAME = re.compile(r"^[\w][\w .-]{0,63}$", re.UNICODE)


class CollectionError(ValueError):
    """A collection cannot be created, found or used, said in one sentence."""


def walk_notes(folder: Path):
    """Yield (relative posix path, os.stat_result) of every note under ``folder``.

    Recursive; dot-folders (.git, .obsidian, .trash) and dot-files are skipped; links to
    folders are not followed, so a link loop cannot hang a sync.
    """
    stack = [folder]
    while stack:
        current = stack.pop()
        try:
            entries = list(os.scandir(current))
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(Path(entry.path))
                elif entry.name.lower().endswith(NOTE_SUFFIXES) and entry.is_file():
                    rel = Path(entry.path).relative_to(folder).as_posix()
                    yield rel, entry.stat()
            except OSError:
                continue


@dataclass
class Collection:
    id: int
    name: str
    path: Path
    description: str
    created_at: float
    last_sync: float | None
    kb: "KnowledgeBase"

    @property
    def files(self) -> list[Path]:
        """The note files under the folder (recursive, dot-folders ignored), sorted."""
        if not self.path.is_dir():
            return []
        return sorted(self.path / rel for rel, _ in walk_notes(self.path))

    @property
    def exists(self) -> bool:
        return self.path.is_dir()

    def counts(self) -> tuple[int, int]:
        """(documents, chunks) indexed for this collection."""
        row = self.kb.store.conn.execute(
            "SELECT count(DISTINCT d.id), count(c.id) FROM documents d "
            "LEFT JOIN chunks c ON c.document_id = d.id WHERE d.collection_id = ?",
            (self.id,),
        ).fetchone()
        return int(row[0]), int(row[1])

    def add_from_url(self, url: str, *, update: bool = False, **fetch_options) -> "ClipResult":
        """Clip a web page into this folder as a note and index it at once."""
        from .clip import clip_url

        if not self.exists:
            raise CollectionError(f"The folder of collection {self.name!r} ({self.path}) does not exist.")
        result = clip_url(url, self.path, update=update, **fetch_options)
        if result.status in ("created", "updated"):
            rel = result.path.resolve().relative_to(self.path.resolve()).as_posix()
            self.kb.sync(collections=[self.name], only_paths={rel})
        return result


class Collections:
    def __init__(self, kb: "KnowledgeBase"):
        self.kb = kb

    def _row_to_collection(self, row) -> Collection:
        return Collection(
            id=row[0], name=row[1], path=Path(row[2]), description=row[3],
            created_at=row[4], last_sync=row[5], kb=self.kb,
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
        conn = self.kb.store.conn
        for other in self.list():
            if other.name == name:
                raise CollectionError(f"A collection named {name!r} already exists ({other.path}).")
            if other.path == folder:
                raise CollectionError(f"{folder} is already the collection {other.name!r}.")
        conn.execute(
            "INSERT INTO collections(name, path, description, created_at) VALUES (?, ?, ?, ?)",
            (name, str(folder), description, time.time()),
        )
        return self.get(name)

    def list(self) -> list[Collection]:
        rows = self.kb.store.conn.execute(
            "SELECT id, name, path, description, created_at, last_sync FROM collections ORDER BY name"
        ).fetchall()
        return [self._row_to_collection(r) for r in rows]

    def get(self, name: str) -> Collection:
        row = self.kb.store.conn.execute(
            "SELECT id, name, path, description, created_at, last_sync FROM collections WHERE name = ?",
            (name,),
        ).fetchone()
        if row is None:
            known = ", ".join(c.name for c in self.list()) or "none yet"
            raise CollectionError(f"There is no collection named {name!r} (collections: {known}).")
        return self._row_to_collection(row)

    def delete(self, name: str) -> None:
        """Forget a collection: its index rows go, its files stay untouched."""
        collection = self.get(name)
        self.kb.remove_collection_rows(collection.id)
