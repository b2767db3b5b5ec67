"""Search history and saved searches, kept per home in ``history.json``.

Only queries that were acted on (a result opened, copied or read for a while) enter the
history, so it holds what was useful rather than every prefix typed. A saved search keeps
a fingerprint of its results (which notes, in which order), so that after a sync it can say
whether they changed. A damaged or unreadable file is treated as empty: history is a
convenience and must never stop the app.

The app changes a History on its UI thread while a worker re-runs the saved searches after a
sync (:meth:`History.recheck`): every read and change holds one lock, and what is handed out
(``recent()``, ``saved_items()``) is a copy, never the live list or dict.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

HISTORY_FILE = "history.json"
MAX_ENTRIES = 200
MAX_QUERY_CHARS = 500
MAX_SAVED = 100


def clean_query(query: str) -> str:
    """A query as history keeps it: one line, spaces collapsed, no control or format characters
    (an escape sequence's remains from a terminal must not come back on ctrl+up)."""
    printable = "".join(" " if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") else c for c in query)
    return " ".join(printable.split())[:MAX_QUERY_CHARS]


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
        self._lock = threading.RLock()
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
            cleaned = (clean_query(e) for e in entries if isinstance(e, str))
            self.entries = [e for e in cleaned if e][-MAX_ENTRIES:]
        saved = data.get("saved")
        if isinstance(saved, dict):
            for name, item in list(saved.items())[:MAX_SAVED]:
                if isinstance(item, dict) and isinstance(item.get("query"), str):
                    self.saved[str(name)] = Saved(
                        str(name), item["query"], str(item.get("fingerprint", "")), bool(item.get("changed"))
                    )

    def _store(self) -> None:
        with self._lock:
            self._write()

    def _write(self) -> None:
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
        query = clean_query(query)
        if not query:
            return
        with self._lock:
            if self.entries and self.entries[-1] == query:
                return
            if query in self.entries:
                self.entries.remove(query)
            self.entries.append(query)
            del self.entries[:-MAX_ENTRIES]
            self._write()

    def recent(self, limit: int = 50) -> list[str]:
        """Most recent first (a copy)."""
        with self._lock:
            return list(reversed(self.entries[-limit:]))

    # -- saved searches --------------------------------------------------------------------
    def save(self, name: str, query: str, print_: str = "") -> Saved:
        name = " ".join(name.split())[:80] or query[:80]
        item = Saved(name, query, print_)
        with self._lock:
            self.saved.pop(name, None)
            self.saved[name] = item
            while len(self.saved) > MAX_SAVED:
                self.saved.pop(next(iter(self.saved)))
            self._write()
        return item

    def get(self, name: str) -> Saved | None:
        with self._lock:
            return self.saved.get(name)

    def saved_items(self) -> list[Saved]:
        """The saved searches, oldest first (a copy: a worker may change them meanwhile)."""
        with self._lock:
            return list(self.saved.values())

    def delete(self, name: str) -> None:
        with self._lock:
            if self.saved.pop(name, None) is not None:
                self._write()

    def seen(self, name: str, print_: str) -> None:
        """The saved search was run and its results shown: what it shows now is the baseline."""
        with self._lock:
            item = self.saved.get(name)
            if item and (item.fingerprint != print_ or item.changed):
                item.fingerprint, item.changed = print_, False
                self._write()

    def recheck(self, run: Callable[[str], str]) -> list[str]:
        """After a sync: ``run(query) -> fingerprint`` for each saved search; returns the names
        whose results changed (marked ``changed`` until seen). The searches run outside the
        lock (they take time); a search saved, deleted or seen meanwhile is left as it is now."""
        changed: list[str] = []
        for item in self.saved_items():
            try:
                now = run(item.query)
            except Exception:  # noqa: BLE001 - a failing re-run is not a change to report
                continue
            with self._lock:
                if self.saved.get(item.name) is not item:
                    continue  # deleted or saved again while the search ran
                if item.fingerprint and now != item.fingerprint:
                    item.changed = True
                if item.changed:
                    changed.append(item.name)
        if changed:
            self._store()
        return changed
