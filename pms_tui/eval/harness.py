"""What both evaluations share: the throwaway cached index and the timed query loop.

An evaluation never touches the user's own home. It indexes its notes in a home of its own
under the user cache dir (``pms-tui/eval/<key>``), with the product's own KnowledgeBase,
sync and retrieval. The key covers everything that decides the vectors (the content, the
model, chunk size and overlap, max tokens and the chunker's source), so a re-run reuses the
index and a changed chunk setting builds a new one. Retrieval-side settings (fusion, weights,
column weights, query shaping) need no new index: they are read at query time.
"""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import sys
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import platformdirs

from ..core.config import APP_NAME, Settings, load_settings
from ..core.kb import KnowledgeBase, indexing_fingerprint
from ..core.kb_measure import Measure
from ..core.results import MODES, Hit
from . import metrics

# The modes an evaluation reports, the two lanes first and then their fusion.
EVAL_MODES = tuple(sorted(MODES, key=lambda mode: mode == "hybrid"))
RETRIEVAL_KEYS = (
    "rrf_k", "bm25_weight", "vector_weight", "lane_depth", "query_aware_fusion",
    "confident_coverage", "confident_k", "contradiction_gap", "contradicted_weight", "exact_notes",
    "vector_min_share",
    "title_weight", "heading_weight", "body_weight",
)
INDEX_KEYS = ("model", "chunk_target", "chunk_overlap", "max_tokens")
BUILD_FILE = "build.json"


def cache_root() -> Path:
    """``PMS_TUI_EVAL_CACHE`` if set, else ``<user cache dir>/pms-tui/eval``."""
    env = os.environ.get("PMS_TUI_EVAL_CACHE")
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False)) / "eval"


def eval_settings() -> Settings:
    """The product defaults plus any ``PMS_TUI_*`` environment overrides (never the user's
    config.toml: an evaluation measures the defaults unless told otherwise)."""
    return load_settings(cache_root())


def chunker_fingerprint() -> str:
    """The chunker's and readers' versions: a changed chunker (or embed text) means new vectors."""
    return indexing_fingerprint()


def index_key(kind: str, content: str, settings: Settings) -> str:
    parts = {"kind": kind, "content": content, "chunker": chunker_fingerprint()}
    parts.update({name: getattr(settings, name) for name in INDEX_KEYS})
    digest = hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:16]
    return f"{kind}-{digest}"


def retrieval_settings(settings: Settings) -> dict:
    return {name: getattr(settings, name) for name in RETRIEVAL_KEYS}


@dataclass
class BuildInfo:
    """How the index was built: kept in ``build.json`` so a cached re-run still reports it."""

    key: str
    path: str
    documents: int = 0
    chunks: int = 0
    vectors: int = 0
    build_seconds: float = 0.0
    embed_seconds: float = 0.0
    chunks_embedded: int = 0
    cached: bool = False
    settings: dict = field(default_factory=dict)

    @property
    def chunks_per_second(self) -> float:
        """Chunks embedded per second of the build's wall clock. (``embed_seconds`` adds up
        the time of every embedding thread, two runs at once, so it can exceed the build.)"""
        return self.chunks_embedded / self.build_seconds if self.build_seconds else 0.0

    def to_json(self) -> dict:
        data = asdict(self)
        data["chunks_per_second"] = round(self.chunks_per_second, 2)
        data["build_seconds"] = round(self.build_seconds, 2)
        data["embed_seconds"] = round(self.embed_seconds, 2)
        return data


class StderrProgress:
    """Sync progress as a line every few seconds on stderr (a log file stays readable)."""

    def __init__(self, label: str, every: float = 5.0) -> None:
        self.label, self.every, self.last = label, every, 0.0

    def __call__(self, done: int, total: int, phase: str) -> None:
        now = time.monotonic()
        if phase in ("scanning", "done") or now - self.last < self.every:
            return
        self.last = now
        print(f"[{self.label}] {phase} {done}/{total}", file=sys.stderr, flush=True)


def open_index(key_dir: Path, folder: Path, settings: Settings, *,
               quiet: bool = False) -> tuple[KnowledgeBase, BuildInfo]:
    """The KnowledgeBase of ``key_dir/home`` with ``folder`` as its one collection, synced.

    A finished index only re-checks file stats; an interrupted build resumes where it stopped
    (sync is incremental), so embedding work is never lost.
    """
    home = key_dir / "home"
    kb = KnowledgeBase(home=home, settings=settings)
    if not kb.collections.list():
        kb.collections.create(folder, name="eval")
    info_path = key_dir / BUILD_FILE
    info = BuildInfo(key=key_dir.name, path=str(home))
    if info_path.exists():
        try:
            saved = json.loads(info_path.read_text())
            saved.pop("chunks_per_second", None)
            info = BuildInfo(**saved)
        except (ValueError, TypeError):
            pass
    progress = None if quiet else StderrProgress(key_dir.name)
    if not quiet and not info.chunks:
        print(f"Indexing {folder} into {home} (embedding takes a while; a re-run reuses it) ...",
              file=sys.stderr, flush=True)
    report = kb.sync(progress=progress)
    info.build_seconds += report.seconds if report.changed else 0.0
    info.embed_seconds += report.embed_seconds
    info.chunks_embedded += report.chunks_embedded
    info.cached = not report.changed
    stats = kb.stats()
    info.documents, info.chunks, info.vectors = stats["documents"], stats["chunks"], stats["vectors"]
    info.settings = {name: getattr(settings, name) for name in INDEX_KEYS}
    tmp = info_path.with_name(BUILD_FILE + ".tmp")
    tmp.write_text(json.dumps(info.to_json(), indent=1))
    os.replace(tmp, info_path)
    if report.skipped and not quiet:
        print(f"{len(report.skipped)} notes could not be indexed, e.g. {report.skipped[0]}", file=sys.stderr)
    return kb, info


@dataclass
class ModeRun:
    mode: str
    run: dict[str, list[str]]  # qid -> ranked unique doc ids
    latencies_ms: list[float]

    @property
    def median_ms(self) -> float:
        return statistics.median(self.latencies_ms) if self.latencies_ms else 0.0

    @property
    def p95_ms(self) -> float:
        if not self.latencies_ms:
            return 0.0
        ordered = sorted(self.latencies_ms)
        return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


def run_mode(
    kb: KnowledgeBase,
    queries: Sequence[tuple[str, str]],
    mode: str,
    doc_of: Callable[[Hit], str | None],
    *,
    depth: int = 300,
    exclude_self: bool = False,
    timed_k: int = 10,
    typed: Collection[str] = (),
) -> ModeRun:
    """Every query through ``kb.search``, the product's one search path.

    Each query is searched twice: once with ``k=timed_k`` (what a person waits for: the timed
    latency, query-embedding cache cleared so every query pays for its embedding), once with
    ``k=depth`` chunks for the ranking, collapsed to documents at their best chunk. With
    ``exclude_self`` a document whose id equals the query id is dropped (BEIR's rule). The
    queries whose ids are in ``typed`` are searched as the app does while they are typed (the
    last word also a prefix); the others as finished queries, as a script or an agent sends them.
    """
    measure = Measure(kb)
    if queries:  # warm up: model load, vector mirror, SQLite pages
        kb.search(queries[0][1], k=timed_k, mode=mode)
    run: dict[str, list[str]] = {}
    latencies: list[float] = []
    for qid, text in queries:
        typing = qid in typed
        measure.clear_query_cache()
        started = time.perf_counter()
        kb.search(text, k=timed_k, mode=mode, typing=typing)
        latencies.append((time.perf_counter() - started) * 1000)
        hits = kb.search(text, k=depth, mode=mode, typing=typing).hits
        ranked = metrics.unique(doc_of(h) for h in hits)
        if exclude_self:
            ranked = [d for d in ranked if d != qid]
        run[qid] = ranked
    return ModeRun(mode, run, latencies)


def modes_for(choice: str) -> list[str]:
    return list(EVAL_MODES) if choice == "all" else [choice]
