"""Search history and saved searches, kept per home in ``history.json``.

Only queries that were acted on (a result opened, copied or read for a while) enter the
history, so it holds what was useful rather than every prefix typed. A saved search keeps
a fingerprint of its results (which notes, in which order), so that after a sync it can say
whether they changed. A damaged or unreadable file is treated as empty: history is a
convenience and must never stop the app.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

HISTORY_FILE = "history.json"
MAX_ENTRIES = 200
MAX_QUERY_CHARS = 500
MAX_SAVED = 100


def fingerprint(notes: Iterable[str]) -> str:
    """A short digest of a ranked list of notes (``collection/relpath``), order kept."""
    digest = hashlib.sha256("\n".join(notes).encode("utf-8", "surrogatepass")).hexdigest()
    return digest[:16]


@dataclass
class Saved:
    name: str
    query: str
    fingerprint: str = ""
    changed: bool = False  # the results differ from when it was last run


class History:
    def __init__(self, home: Path | str):
        self.path = Path(home) / HISTORY_FILE
        self.entries: list[str] = []  # oldest first
        self.saved: dict[str, Saved] = {}
        self._load()

    # -- storage ---------------------------------------------------------------------------
    def _load(self) -> None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        if not isinstance(data, dict):
            return
        entries = data.get("history")
        if isinstance(entries, list):
            self.entries = [e for e in entries if isinstance(e, str) and e.strip()][-MAX_ENTRIES:]
        saved = data.get("saved")
        if isinstance(saved, dict):
            for name, item in list(saved.items())[:MAX_SAVED]:
                if isinstance(item, dict) and isinstance(item.get("query"), str):
                    self.saved[str(name)] = Saved(
                        str(name), item["query"], str(item.get("fingerprint", "")), bool(item.get("changed"))
                    )

    def _store(self) -> None:
        data = {
            "history": self.entries,
            "saved": {
                s.name: {"query": s.query, "fingerprint": s.fingerprint, "changed": s.changed}
                for s in self.saved.values()
            },
        }
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".history-", suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(data, out, ensure_ascii=False, indent=1)
            os.replace(tmp, self.path)
        except OSError:
            pass  # a read-only home keeps the history for this session only

    # -- history ---------------------------------------------------------------------------
    def add(self, query: str) -> None:
        """Remember a query that was acted on (the most recent last, each once)."""
        query = " ".join(query.split())[:MAX_QUERY_CHARS]
        if not query:
            return
        if self.entries and self.entries[-1] == query:
            return
        if query in self.entries:
            self.entries.remove(query)
        self.entries.append(query)
        del self.entries[:-MAX_ENTRIES]
        self._store()

    def recent(self, limit: int = 50) -> list[str]:
        """Most recent first."""
        return list(reversed(self.entries[-limit:]))

    # -- saved searches --------------------------------------------------------------------
    def save(self, name: str, query: str, print_: str = "") -> Saved:
        name = " ".join(name.split())[:80] or query[:80]
        item = Saved(name, query, print_)
        self.saved.pop(name, None)
        self.saved[name] = item
        while len(self.saved) > MAX_SAVED:
            self.saved.pop(next(iter(self.saved)))
        self._store()
        return item

    def delete(self, name: str) -> None:
        if self.saved.pop(name, None) is not None:
            self._store()

    def seen(self, name: str, print_: str) -> None:
        """The saved search was run and its results shown: what it shows now is the baseline."""
        item = self.saved.get(name)
        if item and (item.fingerprint != print_ or item.changed):
            item.fingerprint, item.changed = print_, False
            self._store()

    def recheck(self, run) -> list[str]:
        """After a sync: ``run(query) -> fingerprint`` for each saved search; returns the names
        whose results changed (marked ``changed`` until seen)."""
        changed = []
        for item in self.saved.values():
            try:
                now = run(item.query)
            except Exception:  # noqa: BLE001 - a failing re-run is not a change to report
                continue
            if item.fingerprint and now != item.fingerprint:
                item.changed = True
            if item.changed:
                changed.append(item.name)
        if changed:
            self._store()
        return changed
