"""What ``pms-tui doctor`` checks: the environment (Python, the SQLite driver with FTS5 and
sqlite-vec, the packages), the index (size, the embedding queue, a writer at work, damage) and
the model: ``kb.doctor.checks()``; the environment alone (no index open) is
:func:`environment_checks`."""

from __future__ import annotations

import sys
import time
from typing import NamedTuple

from pathlib import Path

from ..config import Settings
from ..errors import describe
from ..output_rules import note_id
from ..store import Store, check_driver, health
from ..store import compact as compaction
from .graph import Graph
from .index import Index
from .model import Model


class Check(NamedTuple):
    """One line of ``pms-tui doctor``."""

    label: str
    ok: bool
    detail: str

    def to_json(self) -> dict:
        return self._asdict()


class Doctor:
    """Asks the other services (``index``, ``graph``, ``model``) and the store what it reports;
    ``home`` and ``db_path``: where the index lives."""

    def __init__(self, home: Path, db_path: Path, settings: Settings, store: Store, index: Index, graph: Graph,
                 model: Model) -> None:
        self._home = home
        self._db_path = db_path
        self._settings = settings
        self._store = store
        self._index = index
        self._graph = graph
        self._model = model

    def checks(self) -> list[Check]:
        """What ``pms-tui doctor`` prints: the environment, this index, and the model."""
        checks = environment_checks()
        checks.append(Check("home", True, str(self._home) + ("  (read-only)" if self._store.read_only else "")))
        try:
            stats = self._index.stats()
        except Exception as exc:
            checks.append(Check("index", False, describe(exc)))
            stats = None
        if stats is not None:
            checks.append(Check("index", True, f"{self._db_path} ({stats['db_bytes'] / 1e6:.1f} MB, "
                                               f"{stats['documents']} notes, {stats['chunks']} chunks)"))
            try:
                space = compaction.shape(self._store.conn, self._db_path)
                hint = "; `pms-tui compact` can make it smaller" if space.worth_compacting else ""
                checks.append(Check("space", True, space.describe() + hint))
            except Exception as exc:  # noqa: BLE001 - told, never fatal: quick_check below judges damage
                checks.append(Check("space", True, f"not read: {describe(exc)}"))
            checks.append(_versions_check(self._store.conn))
            pending = stats["vectors_pending"]
            checks.append(Check("queue", True, f"{stats['vectors']} stored, {pending} waiting to be embedded"
                                               + (" (`pms-tui sync` or the app embeds them)" if pending else "")))
        writer = self._index.writer_at_work()
        if writer is not None:
            checks.append(Check("writer", True, f"pid {writer} is writing to this index now"))
        for name, counts in sorted(self._graph.link_counts().items()):  # dangling links are not damage: told, not BAD
            checks.append(Check("links", True, f"{name}: " + ", ".join(
                f"{counts.get(k, 0):,} {k}" for k in ("resolved", "dangling", "ambiguous", "file", "outside"))))
        damaged = False
        for part in health.diagnose(self._store.conn):
            damaged |= not part.ok
            checks.append(Check(part.label, part.ok, part.detail))
        if damaged:
            checks.append(Check("repair", False, "run `pms-tui repair`: it rebuilds the index from your notes, "
                                                 "keeping every vector that is intact"))
        checks.append(Check("model", self._model.mismatch is None, self._model.mismatch or self._model.embedder.model_name))
        try:
            started = time.perf_counter()
            self._model.load()
            self._model.embedder.embed_query("doctor")
            checks.append(Check("model load", True, f"{time.perf_counter() - started:.2f}s, "
                                                     f"{self._model.embedder.dim} dimensions"))
        except Exception as exc:
            checks.append(Check("model load", False, describe(exc)))
        checks.append(_package_check())
        checks.append(_document_check(self._index))
        checks.append(_ocr_check(self._settings.ocr_languages))
        return checks


def environment_checks() -> list[Check]:
    """Python, and the SQLite driver with FTS5 and sqlite-vec: checks that need no index."""
    import platform

    checks = [Check("python", sys.version_info >= (3, 11), f"{platform.python_version()} ({sys.executable})")]
    try:
        driver, sqlite_version, vec_version = check_driver()
        checks.append(Check("sqlite", True, f"sqlean.py {driver}, SQLite {sqlite_version}, FTS5 ok"))
        checks.append(Check("sqlite-vec", True, vec_version))
    except Exception as exc:
        checks.append(Check("sqlite", False, describe(exc)))
    return checks


def _package_check() -> Check:
    import importlib.metadata as md

    try:
        names = ("textual", "fastembed", "onnxruntime", "trafilatura")
        return Check("packages", True, ", ".join(f"{p} {md.version(p)}" for p in names))
    except Exception as exc:
        return Check("packages", False, describe(exc))


# The skipped documents doctor names one by one (the rest are counted; `status -v` lists them all).
DOCTOR_SKIPS_SHOWN = 10


def _document_check(index: Index) -> Check:
    """The document readers (installed with pms-tui) and the documents read and skipped."""
    from ..indexing import documents

    found = documents.readers()
    found.pop("image", None)  # OCR's: a line of its own (optional)
    missing = [kind for kind, reader in found.items() if reader is None]
    detail = ", ".join(f"{kind}: {reader or 'no reader (pip install pms-tui again)'}" for kind, reader in found.items())
    try:
        parts, skips = [], []
        for name, counted in sorted(index.document_counts().items()):
            if counted.indexed or counted.skipped:
                parts.append(f"{name}: {counted.describe()}")
                skips += [f"{note_id(name, rel)} ({why})" for rel, why in counted.skipped]
        if parts:
            detail += "; " + "; ".join(parts)
        if skips:
            more = len(skips) - DOCTOR_SKIPS_SHOWN
            detail += "; skipped: " + "; ".join(skips[:DOCTOR_SKIPS_SHOWN]) + (f"; {more} more" if more > 0 else "")
    except Exception as exc:  # noqa: BLE001 - told, never fatal
        detail += f"; not counted: {describe(exc)}"
    return Check("documents", not missing, detail)


def _ocr_check(setting: str) -> Check:
    """Whether Tesseract is there to read scanned pages and images (optional: told, never BAD)."""
    from ..indexing import ocr

    try:
        engine = ocr.engine()
    except Exception as exc:  # noqa: BLE001 - told, never fatal
        return Check("ocr", True, f"not checked: {describe(exc)}")
    if engine is None:
        return Check("ocr", True, "Tesseract is not installed: scanned pages and images (PNG, JPEG) are skipped; "
                                  + ocr.MISSING.split("(", 1)[-1].rstrip(")") + " reads them")
    asked = setting or "English and the notes' languages"
    return Check("ocr", True, f"{engine}; scanned pages and images read in {asked}")


def indexing_fingerprint() -> str:
    """The versions that decide chunks, their embed texts and the documents' text (the
    chunker's and each reader's): when one changes, an index built before holds other chunks
    and vectors (the evaluation's cached indexes are keyed by it)."""
    from ..indexing.chunk import CHUNKER_VERSION
    from ..indexing.document_reader import READER_VERSIONS

    return f"chunker{CHUNKER_VERSION}-" + "-".join(f"{kind}{n}" for kind, n in sorted(READER_VERSIONS.items()))


def _versions_check(conn) -> Check:
    """How many notes were made by another chunker or reader than this pms-tui's (a sync
    re-chunks them)."""
    from ..indexing.chunk import CHUNKER_VERSION
    from ..indexing.document_reader import READER_VERSIONS
    from ..indexing.documents import made_by
    from ..store import documents as document_rows

    try:
        behind = sum((chunker, reader) != made_by(path) for path, chunker, reader in document_rows.made_by(conn))
    except Exception as exc:  # noqa: BLE001 - told, never fatal
        return Check("versions", True, f"not counted: {describe(exc)}")
    made = f"chunker {CHUNKER_VERSION}, readers " + ", ".join(f"{k} {n}" for k, n in sorted(READER_VERSIONS.items()))
    if not behind:
        return Check("versions", True, f"{made}; every note made by them")
    return Check("versions", True, f"{made}; {behind:,} note{'s' if behind != 1 else ''} made by another version "
                                   "(`pms-tui sync` makes them again)")
