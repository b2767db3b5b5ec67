"""Plain data the engine hands out: search hits and results, sync plans and sync reports."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from enum import Enum, StrEnum
from typing import Any, NamedTuple, overload

# The result types of their own modules, and how every result names a note and a time: front
# ends import them from here, the engine's contract (re-exported, hence noqa F401).
from .graph_results import LINK_STATUSES, Link, Mention, NoteGraph, RelatedNote  # noqa: F401
from .index_results import (  # noqa: F401
    ADD_FROM_CLI, SYNC_FROM_CLI, CollectionSummary, IndexStatus, no_collections_notice,
    nothing_indexed_notice, skipped_json,
)
from .output_rules import (  # noqa: F401
    NOTE_URI_PREFIX, NOTE_URI_TEMPLATE, id_of_uri, iso_time, json_value, note_id, note_uri,
)

SNIPPET_OPEN = "«"
SNIPPET_CLOSE = "»"
# The search modes: both lanes fused, or one lane alone.
# How a search note starts when hybrid search left the vector lane out because vectors are still
# being computed (Settings.vector_min_share); front ends match it to say so briefly.
VECTORS_FILLING_IN = "vector lane off while vectors are computed"
# ... and because the stored vectors are another model's (a model switch, until `reindex`)
VECTORS_OTHER_MODEL = "vector lane off until `pms-tui reindex` re-embeds with the configured model"
MODES = ("hybrid", "bm25", "vector")


class ModelState(StrEnum):
    """The embedding model's state (``KnowledgeBase.model.state``): the value is what is shown."""

    NOT_LOADED = "not loaded"
    LOADING = "loading"
    READY = "ready"
    ERROR = "error"  # see KnowledgeBase.model.error
    MISMATCH = "mismatch"  # the index's vectors are another model's (KnowledgeBase.model.mismatch)


class VectorOut(Enum):
    """Why a hybrid search left its vector lane out (``SearchResult.vector_out``); the search's
    note says it in a sentence, which starts with the value."""

    FILLING_IN = VECTORS_FILLING_IN
    OTHER_MODEL = VECTORS_OTHER_MODEL
    # the query is written in a script the model cannot read (a Chinese query, an English model),
    # or in a language it reads poorly (German): its ranking would be noise that fusion follows
    UNREAD_SCRIPT = "vector lane left out: the model cannot read the query's script"
    UNREAD_LANGUAGE = "vector lane left out: the model reads the query's language poorly"


# ``progress(done, total, phase)`` of a sync. Phases: "scanning" (files seen, total 0),
# "deleting" and "reading" (notes done of the notes to write: text, chunks, full-text rows),
# "embedding" (queued texts embedded of those queued), then "done". Called at least ten
# times a second while there is news, at least once a second in every phase.
SyncProgress = Callable[[int, int, str], None]


class ProgressMeter:
    """Rate and time left of the current phase, from ``(done, total, phase)`` calls.

    The rate is measured over the last ~10 seconds of the phase, so a pause (another writer,
    a cancelled batch) shows in it soon, and the ETA is what is left at that rate.
    """

    WINDOW = 10.0

    def __init__(self, clock: Callable[[], float] | None = None) -> None:
        import time

        self.clock = clock or time.monotonic
        self.phase = ""
        self.samples: list[tuple[float, int]] = []
        self.done = 0
        self.total = 0

    def update(self, done: int, total: int, phase: str) -> None:
        now = self.clock()
        if phase != self.phase or done < self.done:
            self.phase, self.samples = phase, []
        self.done, self.total = done, total
        self.samples.append((now, done))
        while len(self.samples) > 2 and now - self.samples[0][0] > self.WINDOW:
            self.samples.pop(0)

    @property
    def rate(self) -> float | None:
        """Items a second, or None before there is a second's worth of evidence."""
        if len(self.samples) < 2:
            return None
        (t0, d0), (t1, d1) = self.samples[0], self.samples[-1]
        if t1 - t0 < 1.0 or d1 <= d0:
            return None
        return (d1 - d0) / (t1 - t0)

    @property
    def eta(self) -> float | None:
        """Seconds left at the current rate, or None when unknown."""
        rate = self.rate
        if rate is None or not self.total:
            return None
        return max(0.0, (self.total - self.done) / rate)

    def describe(self) -> str:
        """``embedding 1,204/3,410 · 21/s · 1m45s left`` (the status line's words)."""
        text = self.phase
        if self.total:
            text += f" {self.done:,}/{self.total:,}"
        elif self.done:
            text += f" {self.done:,}"
        if (rate := self.rate) is not None:
            text += f" · {rate:,.0f}/s" if rate >= 10 else f" · {rate:.1f}/s"
        if (eta := self.eta) is not None:
            minutes, seconds = divmod(int(eta + 0.5), 60)
            text += f" · {minutes}m{seconds:02d}s left" if minutes else f" · {seconds}s left"
        return text


@dataclass(frozen=True)
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
    vector_pending: bool = False  # its vector is still in the embedding queue (shown "vec …")
    modified: float | None = None  # the note file's modification time (epoch seconds)

    @property
    def breadcrumb(self) -> str:
        return " > ".join(self.heading_path)

    @property
    def id(self) -> str:
        """Its note's id (``collection/path``: what ``show``, ``explain`` and MCP ``get`` take)."""
        return note_id(self.collection, self.relpath)

    def to_json(self, with_text: bool = True) -> dict:
        """The one way a hit is written out, by the CLI's ``--json`` and the MCP server alike
        (``id`` is what ``show``, ``explain`` and MCP ``get`` take); ``with_text``: the passage's
        whole text besides its snippet."""
        data = {
            "id": self.id, "uri": note_uri(self.collection, self.relpath),
            "collection": self.collection, "path": self.relpath,
            "file": self.path, "title": self.title, "headings": list(self.heading_path),
            "lines": [self.start_line, self.end_line], "start_line": self.start_line, "end_line": self.end_line,
            "snippet": self.snippet, "score": round(self.score, 4), "rrf": self.rrf,
            "bm25_rank": self.bm25_rank, "vector_rank": self.vector_rank, "bm25": self.bm25,
            "distance": self.distance, "vector_pending": self.vector_pending, "chunk_id": self.chunk_id,
        }
        if with_text:
            data["text"] = self.text
        return data


@dataclass(frozen=True)
class SearchResult(Sequence[Hit]):
    """What a search found: its hits, best first, the lanes that answered (``lanes``), notes
    for the user (``notes``, e.g. "vector lane waiting for the model") and how the hits were
    fused and match. A sequence of hits: ``for hit in kb.search(...)``, ``kb.search(...)[0]``,
    ``len()``, ``.index(hit)``; a slice is a SearchResult with the same query, lanes and notes."""

    hits: tuple[Hit, ...] = ()
    lanes: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    # the parsed query (search.query_syntax.ParsedQuery): its filters, what was ignored
    query: Any = None
    # the RRF parameters the hits were fused with (search.lane_trust.Fusion), None when nothing
    # was fused
    fusion: Any = None
    # how well the best passage matches (search.match_quality.MatchQuality), None when nothing
    # was ranked
    match: Any = None
    # why the vector lane was left out of a hybrid search, when it was (the sentence is a note)
    vector_out: VectorOut | None = None

    def __post_init__(self) -> None:
        for name in ("hits", "lanes", "notes"):  # any iterable given: held as a tuple
            object.__setattr__(self, name, tuple(getattr(self, name)))

    def __iter__(self) -> Iterator[Hit]:
        return iter(self.hits)

    def __len__(self) -> int:
        return len(self.hits)

    @overload
    def __getitem__(self, index: int) -> Hit: ...
    @overload
    def __getitem__(self, index: slice) -> SearchResult: ...
    def __getitem__(self, index: int | slice) -> Hit | SearchResult:
        if isinstance(index, slice):
            return replace(self, hits=self.hits[index])
        return self.hits[index]

    def keeping(self, keep: Callable[[Hit], bool]) -> SearchResult:
        """The same result with only the hits ``keep`` accepts."""
        return replace(self, hits=tuple(hit for hit in self.hits if keep(hit)))

    @property
    def weak(self) -> bool:
        """True when no note matches the query well: the hits are only the nearest ones
        (calibrated per model; False when not known)."""
        return bool(self.match is not None and self.match.weak)

    def to_json(self, with_text: bool = True, evidence: Callable[[Hit], Evidence] | None = None) -> dict:
        """The one way a search's answer is written out: the parsed query, the lanes that answered,
        the notes for the user, how well it matches, how it was fused, its filters and what was
        ignored, and the hits (``Hit.to_json``; each with its ``evidence`` when given)."""
        hits = [h.to_json(with_text) for h in self.hits]
        if evidence is not None:
            hits = [{**data, "evidence": evidence(h).to_json()} for data, h in zip(hits, self.hits)]
        query = self.query
        return {
            "query": query.to_json() if query is not None else None, "lanes": list(self.lanes),
            "notes": list(self.notes), "weak": self.weak, "match": self.match and self.match.to_json(),
            "fusion": self.fusion and self.fusion.to_json(),
            "filters": list(query.chips()) if query is not None else [],
            "ignored": [{"text": i.text, "reason": i.reason} for i in query.ignored] if query is not None else [],
            "hits": hits,
        }

    def by_note(self) -> list[list[Hit]]:
        """The hits grouped by note, each note at its best passage's rank."""
        groups: dict[tuple[str, str], list[Hit]] = {}
        for hit in self.hits:
            groups.setdefault((hit.collection, hit.relpath), []).append(hit)
        return list(groups.values())


class PendingFile(NamedTuple):
    collection: str
    path: str  # relative to the collection folder

    def __str__(self) -> str:
        return note_id(self.collection, self.path)


class _StatusFields(NamedTuple):
    to_add: list[PendingFile]
    to_delete: list[PendingFile]
    to_update: list[PendingFile]


class SyncStatus(_StatusFields):
    """What a sync would do: ``to_add, to_delete, to_update = kb.check_sync_status()``.

    ``skipped`` (not part of the tuple) lists the files a sync skipped and would skip again,
    unchanged since, as (PendingFile, reason): they are neither new nor modified.
    """

    skipped: list[tuple[PendingFile, str]]
    files: dict[str, tuple[int, int]]  # collection -> (notes, documents) its folder holds

    def __new__(cls, to_add, to_delete, to_update, skipped=None):
        self = super().__new__(cls, to_add, to_delete, to_update)
        self.skipped = list(skipped or [])
        self.files = {}
        return self

    @property
    def summary(self) -> str:
        text = (
            f"Sync status: +{len(self.to_add)} new, ~{len(self.to_update)} modified, "
            f"-{len(self.to_delete)} deleted"
        )
        skipped = getattr(self, "skipped", [])  # _replace/_make bypass __new__
        return text + f", {len(skipped)} skipped" if skipped else text

    def __str__(self) -> str:
        return self.summary


@dataclass
class SyncReport:
    added: list[str] = field(default_factory=list)
    modified: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    unchanged: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    # files an earlier sync skipped, unchanged since (not tried again; status lists them)
    skipped_before: int = 0
    problems: list[str] = field(default_factory=list)  # collection-level, e.g. a missing folder
    chunks_written: int = 0
    chunks_embedded: int = 0
    chunks_reused: int = 0
    chunks_queued: int = 0  # new texts queued for embedding by this sync
    vectors_pending: int = 0  # texts still waiting for their vector when the sync returned
    seconds: float = 0.0
    embed_seconds: float = 0.0
    cancelled: bool = False  # stopped between notes or embedding runs; the next sync does the rest
    reindexed: bool = False  # a reindex: every note was read and embedded again, none is new
    embedding_elsewhere: int | None = None  # pid of another process embedding the queue meanwhile
    documents: list[str] = field(default_factory=list)  # PDF and Word files read ("path (N pages)")

    @property
    def changed(self) -> bool:
        return bool(self.added or self.modified or self.deleted)

    @property
    def skips(self) -> str:
        """``13 skipped`` (those that stand: this sync's and earlier ones' unchanged since), and
        how many of them are new when some are not."""
        total = len(self.skipped) + self.skipped_before
        if self.skipped_before and self.skipped:
            return f"{total} skipped ({len(self.skipped)} now, {self.skipped_before} as before)"
        return f"{total} skipped" + (" (as before)" if self.skipped_before else "")

    @property
    def summary(self) -> str:
        if self.reindexed:
            text = (f"Reindexed: {len(self.added) + len(self.modified)} notes, {self.skips}; "
                    f"{self.chunks_embedded} chunks embedded in {self.seconds:.1f}s")
        else:
            text = (
                f"Synced: +{len(self.added)} new, ~{len(self.modified)} modified, "
                f"-{len(self.deleted)} deleted, {self.unchanged} unchanged, {self.skips}; "
                f"{self.chunks_embedded} chunks embedded, {self.chunks_reused} reused "
                f"in {self.seconds:.1f}s"
            )
        if self.embedding_elsewhere and self.vectors_pending and not self.cancelled:
            text += (f"; {self.vectors_pending} chunk texts are searchable by their words and queued for "
                     f"the embedding that pid {self.embedding_elsewhere} is running")
        return text + " (cancelled; sync again to finish)" if self.cancelled else text

    def to_json(self) -> dict:
        """Its fields, the skipped files as ``{path, reason}``, and its ``summary`` sentence."""
        data = asdict(self)
        data["skipped"] = skipped_json(self.skipped)
        data["summary"] = self.summary
        return data


@dataclass(frozen=True)
class Evidence:
    """Why one hit ranks where it does (the evidence panel, ``pms-tui search --explain``)."""

    note: str  # collection/relpath
    start_line: int
    bm25: float | None  # FTS5 bm25 (lower is better)
    bm25_rank: int | None
    matched: dict[str, list[str]]  # column (title, heading, body) -> query words found there
    stems: dict[str, list[str]]  # query word -> the index's stems of it
    missing: list[str]  # query words found nowhere in the passage
    similarity: float | None  # cosine similarity of the passage to the query
    vector_rank: int | None
    rrf_k: int
    contributions: dict[str, float]  # lane -> w / (k + rank)
    rrf: float  # their sum
    filters: list[str]  # filters that applied
    ignored: list[str]  # parts of the query left out, with the reason
    vector_pending: bool  # no vector evidence yet: the passage is queued, or the model is loading
    lane_k: dict[str, int] = field(default_factory=dict)  # each lane's k for this query
    fusion: list[str] = field(default_factory=list)  # why this query's k or weights differ
    vector_queued: bool = False  # the passage itself waits in the embedding queue
    vector_out: str = ""  # the search's own note on why its vector lane was left out

    def lines(self) -> list[str]:
        """The evidence as short plain lines."""
        out = []
        if self.bm25_rank is not None:
            out.append(f"BM25 #{self.bm25_rank}  score {-(self.bm25 or 0.0):.4g}")
        else:
            out.append("BM25: not matched by the keyword lane")
        for column in ("title", "heading", "body"):
            if self.matched.get(column):
                words = ", ".join(_stemmed(w, self.stems) for w in self.matched[column])
                out.append(f"  {column}: {words}")
        if self.missing:
            out.append(f"  missing: {', '.join(self.missing)}")
        if self.vector_pending:
            # the search's own words (the status line reads the same note): never a guess
            out.append("Vector: pending (this passage is queued for embedding)" if self.vector_queued
                       else f"Vector: not in this search ({self.vector_out or 'the vector lane was left out'})")
        elif self.vector_rank is not None:
            out.append(f"Vector #{self.vector_rank}  cosine {self.similarity:.3f}")
        elif self.similarity is not None:
            out.append(f"Vector: outside the lane's depth (cosine {self.similarity:.3f})")
        else:
            out.append("Vector: not ranked")
        parts = [f"{lane} {value:.5f}" for lane, value in self.contributions.items()]
        if parts:
            ks = set(self.lane_k.values()) or {self.rrf_k}
            k = f"k={ks.pop()}" if len(ks) == 1 else "k: " + ", ".join(f"{lane} {v}" for lane, v in self.lane_k.items())
            out.append(f"RRF ({k}): " + " + ".join(parts) + f" = {self.rrf:.5f}")
        for reason in self.fusion:
            out.append(f"  {reason}")
        if self.filters:
            out.append("Filters: " + " ".join(self.filters))
        for item in self.ignored:
            out.append(f"Ignored: {item}")
        return out

    def to_json(self) -> dict:
        return asdict(self)


def _stemmed(word: str, stems: dict[str, list[str]]) -> str:
    found = stems.get(word) or []
    return word if found in ([], [word]) else f"{word} ({' '.join(found)})"


@dataclass(frozen=True)
class NoteExplanation:
    """Where one note ranks for a query, lane by lane (``pms-tui explain QUERY NOTE``)."""

    note: str
    query: dict  # the parsed query
    passes_filters: bool
    failed_filters: list[str]
    bm25_rank: int | None  # rank of its best passage in the BM25 lane (all passages)
    bm25_line: int | None
    vector_rank: int | None  # rank of its best passage by cosine similarity
    similarity: float | None
    vector_line: int | None
    missing: list[str]  # query words the note does not hold at all
    lane_depth: int  # how deep each lane looks for the fusion
    vector_out: str = ""  # why hybrid search leaves the vector lane out of this query ("": it does not)
    fused_rank: int | None = None  # its best passage's rank in what search returns (None: not in lane_depth)

    def lines(self) -> list[str]:
        out = [f"{self.note}"]
        out.append(f"Fused (what search returns): #{self.fused_rank}" if self.fused_rank
                   else f"Fused: not in the first {self.lane_depth}")
        if not self.passes_filters:
            out.append("Filtered out by: " + " ".join(self.failed_filters))
        if self.bm25_rank is None:
            out.append("BM25: no passage matches the query's words")
        else:
            depth = "" if self.bm25_rank <= self.lane_depth else f" (beyond the lane depth {self.lane_depth})"
            out.append(f"BM25: best passage #{self.bm25_rank} (line {self.bm25_line}){depth}")
        if self.similarity is None:
            out.append("Vector: not available (no vectors or the model is not loaded)")
        else:
            depth = "" if (self.vector_rank or 0) <= self.lane_depth else f" (beyond the lane depth {self.lane_depth})"
            out.append(f"Vector: best passage #{self.vector_rank} (line {self.vector_line}), "
                       f"cosine {self.similarity:.3f}{depth}")
        if self.vector_out:
            out.append(f"Vector: not in a hybrid search ({self.vector_out})")
        out.append("Missing words: " + (", ".join(self.missing) if self.missing else "none"))
        return out

    def to_json(self) -> dict:
        return {**asdict(self), "lines": self.lines()}


@dataclass(frozen=True)
class Undone:
    """What an undo put back (``kb.write.undo``: a move undone with the links it rewrote)."""

    results: Sequence[Any]  # WriteResult each

    def to_json(self) -> dict:
        return {"undone": [r.to_json() for r in self.results]}


@dataclass(frozen=True)
class Writes:
    """Writes from the journal (``kb.write.recent``, ``kb.write.history``), the newest first."""

    entries: Sequence[Any]  # journal Entry each

    def to_json(self) -> dict:
        return {"writes": [e.to_json() for e in self.entries]}
