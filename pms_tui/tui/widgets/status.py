"""The status line: what is indexed, what runs, how the last search was answered.

A widget of typed fields, each bound on its own to the search screen's state it shows
(``data_bind`` in ``SearchScreen.compose``): the counts, the model's state (the enum), a sync's
progress (its phase, counts, rate and time left as numbers), the clip under way, the mode, the
filter, the view, the sort and the answer of the search shown. The words are made here, at
render, from those fields (:func:`status_parts`), fitted to the width (:mod:`..status_fit`);
nothing is parsed back from text.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from textual.containers import Horizontal
from textual.content import Content
from textual.reactive import reactive, var
from textual.widget import Widget
from textual.widgets import ProgressBar

from pms_tui.core.results import ModelState, VectorOut

from ..status_fit import Part, Span, cut, fit, part, shorter_in_words


@dataclass(frozen=True)
class Counts:
    """What is indexed: notes, chunks, vectors waiting to be embedded."""

    documents: int = 0
    chunks: int = 0
    pending: int = 0


@dataclass(frozen=True)
class Answer:
    """How the shown search was answered (what the status line says of it)."""

    lanes: tuple[str, ...] = ()
    hits: int | None = None
    elapsed_ms: float | None = None
    recent: bool = False
    ignored: tuple[str, ...] = ()  # parts of the query left out, with why
    weak: bool = False  # no note matches the query well (the hits are only the nearest)
    notes: tuple[str, ...] = ()  # the search's notes on its lanes
    vector_out: VectorOut | None = None  # why the search left its vector lane out (SearchResult's)
    words: bool = True  # the query had words to rank by (filters alone: no vector lane to ask)


@dataclass(frozen=True)
class Progress:
    """A sync at work: its phase ("reading", "embedding", "waiting for pid 12"), how far, its
    rate (items a second) and time left where known; ``of``: a text sync beside the running
    one names its collections; ``stopping``: stopped, finishing its note."""

    phase: str = ""
    done: int = 0
    total: int = 0
    rate: float | None = None
    eta: float | None = None
    of: str = ""
    stopping: bool = False


@dataclass(frozen=True)
class Clipping:
    """A page being clipped: its host, what the clip does now (where the engine says), seconds
    since it began."""

    host: str
    stage: str = ""
    seconds: int = 0


@dataclass(frozen=True)
class Status:
    """Everything the status line shows, in one value (what :func:`status_parts` reads)."""

    counts: Counts = field(default_factory=Counts)
    model: ModelState | None = ModelState.LOADING  # None: no knowledge base to search
    sync: Progress | None = None
    text_sync: Progress | None = None
    watch: str = ""  # "" | watching | polling every 30 s
    clip: Clipping | None = None
    mode: str = "hybrid"
    collection: str | None = None  # the filter; None for all
    aside: str = ""  # a collection left out unless named (the bundled guide, once it steps aside)
    view: str = "notes"  # notes | passages
    sort: str = "relevance"  # relevance | modified
    answer: Answer = field(default_factory=Answer)


# what the status line says of the model, by its state
MODEL_WORDS = {ModelState.NOT_LOADED: "loading", ModelState.LOADING: "loading", ModelState.READY: "ready",
               ModelState.ERROR: "error (keywords only)", ModelState.MISMATCH: "mismatch: reindex",
               None: "unavailable"}


# How important each part is to keep on a narrow line (status_fit.fit; higher stays longer):
# urgent and changing parts (a model that failed, a weak match, a sync's progress, why the
# vector lane is out, what of the query was ignored) outlast the hits, which outlast constant
# parts (the collection, the mode, "model ready", watch). These are the shortest forms; each
# longer form of a part is kept 12 less (status_fit.part) unless said.
MODEL_TROUBLE, WEAK, SYNC, CLIP, PENDING, VECTOR_OUT, IGNORED = 97, 95, 90, 88, 85, 80, 74
HITS, FILTER, COUNTS, RECENT, LANES, MODEL_LOADING, MODE = 65, 58, 50, 45, 42, 40, 38
ALL_COLLECTIONS, MODEL_READY, WATCH = 15, 10, 5
SEPARATOR = " │ "
SEPARATOR_STYLE = "$text-muted 50%"
IGNORED_CELLS = 36  # an ignored part's reason is shortened (in whole words) to this on a narrow line


def compact(count: int) -> str:
    """``12k`` for 12,345: a count in a few cells."""
    for limit, unit in ((1_000_000, "M"), (1_000, "k")):
        if count >= limit:
            value = count / limit
            return f"{value:.1f}{unit}" if value < 10 else f"{value:.0f}{unit}"
    return str(count)


def _rate(rate: float | None) -> str:
    if rate is None:
        return ""
    return f"{rate:,.0f}/s" if rate >= 10 else f"{rate:.1f}/s"


def _left(eta: float | None) -> str:
    if eta is None:
        return ""
    minutes, seconds = divmod(int(eta + 0.5), 60)
    return f"{minutes}m{seconds:02d}s left" if minutes else f"{seconds}s left"


def _count(p: Progress) -> str:
    return f" {p.done:,}/{p.total:,}" if p.total else (f" {p.done:,}" if p.done else "")


def sync_forms(sync: Progress | None, text_sync: Progress | None) -> list[str]:
    """A sync's words, longest first: ``syncing: embedding 1,204/3,410 · 21/s · 1m45s left``,
    then without the rate, without the time left, without "syncing: " (the progress bar beside
    says it), and the phase alone (the bar shows how far); a text sync beside it follows."""
    beside = f"text of {text_sync.of}: {text_sync.phase}{_count(text_sync)}" if text_sync else ""
    if sync is None:
        return [beside] if beside else []
    if sync.stopping:
        forms = ["stopping…"]
    elif not sync.phase:
        forms = ["syncing"]
    else:
        counted = f"{sync.phase}{_count(sync)}"
        rate, left = _rate(sync.rate), _left(sync.eta)
        forms = [" · ".join(w for w in (f"syncing: {counted}", rate, left) if w),
                 " · ".join(w for w in (f"syncing: {counted}", left) if w),
                 f"syncing: {counted}", counted, sync.phase]
    if beside:
        forms = [f"{form} · {beside}" for form in forms[:3]] + forms
    return list(dict.fromkeys(forms))


def _vector_out(s: Status) -> tuple[str, str] | None:
    """Why hybrid or vector search ran without the vector lane: (in full, in a few words)."""
    a = s.answer
    if s.mode not in ("hybrid", "vector") or "vector" in a.lanes:
        return None
    if not a.words:  # the search's own reason: nothing to embed, whatever the model's state
        return "the query has no words, only filters", "filters only"
    if a.vector_out is VectorOut.FILLING_IN:
        return "vector joins when more passages are embedded", "vectors filling in"
    if a.vector_out is VectorOut.UNREAD_SCRIPT:
        return "vector off: the model cannot read this script", "script unread"
    if a.vector_out is VectorOut.UNREAD_LANGUAGE:
        return "vector off: the model reads this language poorly", "language unread"
    if s.model is ModelState.MISMATCH or a.vector_out is VectorOut.OTHER_MODEL:
        return "vector off until reindex", "reindex"
    if s.model in (ModelState.LOADING, ModelState.NOT_LOADED):
        return "vector waiting for the model", "model loading"
    return "vector off: no model", "no model"


def status_parts(s: Status, show_timings: bool = True) -> list[Part]:
    """The status line's parts, in screen order, each with its shorter forms."""
    c, a = s.counts, s.answer
    parts: list[Part] = [part(COUNTS, [(f"{c.documents:,} notes · {c.chunks:,} chunks", "$text")],
                              [(f"{c.documents:,} notes", "$text")], [(f"{compact(c.documents)} notes", "$text")])]
    syncing = sync_forms(s.sync, s.text_sync)
    if syncing:
        style = "bold $text-warning"
        parts.append(part(SYNC, *([(words, style)] for words in syncing)))
    elif c.pending:
        style = "$text-warning"
        parts.append(part(PENDING, [(f"{c.pending:,} vectors pending", style)],
                          [(f"{compact(c.pending)} vectors pending", style)]))
    if s.watch:
        parts.append(part(WATCH, [(s.watch, "")], [(s.watch.split()[0], "")]))
    if s.clip:
        style = "bold $text-warning"
        clip = s.clip
        took = f" · {clip.seconds} s" if clip.seconds else ""
        stage = f": {clip.stage}" if clip.stage else ""
        parts.append(part(CLIP, [(f"clipping {clip.host}{stage}{took}", style)],
                          [(f"clipping{stage}{took}", style)], [("clipping…", style)]))
    words = MODEL_WORDS[s.model]
    model_style = {"ready": "$text-success", "loading": "$text-warning"}.get(words, "$text-error")
    model = cut([(words, model_style)], 30)[0]
    if words in ("ready", "loading"):  # "ready" alone would not say what is
        parts.append(part(MODEL_READY if words == "ready" else MODEL_LOADING, [("model ", ""), model]))
    else:
        parts.append(part(MODEL_TROUBLE, [("model ", ""), model], [model]))
    mode = (s.mode, "bold $text-accent")
    parts.append(part(MODE, [("mode ", ""), mode], [mode]))
    if s.collection:
        named = [("in ", ""), (s.collection, "$text-primary")]
        parts.append(part(FILTER, named, cut(named, 20)))
    else:
        everywhere = [("all but ", ""), (s.aside, "")] if s.aside else [("all collections", "")]
        parts.append(part(ALL_COLLECTIONS, [("in ", ""), *everywhere]))
    if a.recent:
        parts.append(part(RECENT, [("recent notes", "")]))
    elif a.lanes:
        lanes = ("+".join(a.lanes), "$text")
        why = _vector_out(s)
        if why is None:
            parts.append(part(LANES, [("lanes ", ""), lanes], [lanes]))
        else:
            full, short = ((f" ({words})", "$text-warning") for words in why)
            # the reason in full is kept less than the hits: "(vectors filling in)" says it
            parts.append(part(VECTOR_OUT, [("lanes ", ""), lanes, full], [lanes, full], [lanes, short], step=20))
    if a.hits is not None and not a.recent:
        unit = "note" if s.view == "notes" else "passage"
        hits: list[Span] = [(f"{a.hits} {unit}{'' if a.hits == 1 else 's'}", "")]
        if s.sort != "relevance":
            hits.append((" newest first", "$text-accent"))
        timed = [(f" in {a.elapsed_ms:.0f} ms", "")] if a.elapsed_ms is not None and show_timings else []
        parts.append(part(HITS, hits + timed, hits))
    if a.weak and not a.recent:
        parts.append(part(WEAK, [("No note matches well", "bold $text-warning")]))
    for n, item in enumerate(a.ignored[:2]):
        # never cut mid-word: the reason in full, up to its parenthesis, or the filter alone
        # (the evidence panel, f4, and the struck-out chip say it in full)
        forms = [item, *shorter_in_words(item, IGNORED_CELLS - len("ignored "))]
        parts.append(part(IGNORED - n, *([(f"ignored {form}", "$text-warning")] for form in forms), step=6))
    return parts


class StatusText(Widget):
    """The status line's words: one reactive field per thing shown, each bound to the screen's
    own (a change repaints); fitted to the widget's width at every render (so on resize)."""

    DEFAULT_CSS = "StatusText { width: 1fr; height: 1; padding: 0 1; }"

    counts: reactive[Counts] = reactive(Counts)
    model: reactive[ModelState | None] = reactive(ModelState.LOADING)
    sync: reactive[Progress | None] = reactive(None)
    text_sync: reactive[Progress | None] = reactive(None)
    watching: reactive[str] = reactive("")  # how watch mode watches
    clip: reactive[Clipping | None] = reactive(None)
    mode: reactive[str] = reactive("hybrid")
    collection: reactive[str | None] = reactive(None)
    aside: reactive[str] = reactive("")
    view: reactive[str] = reactive("notes")
    sort: reactive[str] = reactive("relevance")
    answer: reactive[Answer] = reactive(Answer)

    def __init__(self, *, show_timings: bool = True, **kwargs) -> None:
        super().__init__(**kwargs)
        self.show_timings = show_timings

    @property
    def status(self) -> Status:
        return Status(counts=self.counts, model=self.model, sync=self.sync, text_sync=self.text_sync,
                      watch=self.watching, clip=self.clip, mode=self.mode, collection=self.collection,
                      aside=self.aside, view=self.view, sort=self.sort, answer=self.answer)

    def render(self) -> Content:
        separator = (SEPARATOR, SEPARATOR_STYLE)
        spans: list[Span] = []
        for form in fit(status_parts(self.status, self.show_timings), self.content_size.width, len(SEPARATOR)):
            spans += ([separator] if spans else []) + list(form.spans)
        return Content.assemble(*spans)


class StatusLine(Horizontal):
    """The words (a :class:`StatusText`, whose fields the screen binds) and a sync's
    ``ProgressBar``, shown while a sync works (not while a stopped one finishes its note);
    the screen composes both inside it."""

    DEFAULT_CSS = """
    StatusLine {
        height: 1;
        background: $panel;
        color: $text-muted;
        & > ProgressBar { width: auto; height: 1; display: none; padding: 0 1 0 0; }
        &.-syncing > ProgressBar { display: block; }
        & Bar { width: 24; }
    }
    """

    sync: var[Progress | None] = var(None)  # the running sync, bound beside its words'
    text_sync: var[Progress | None] = var(None)

    @property
    def words(self) -> StatusText:
        return self.query_one(StatusText)

    @property
    def status(self) -> Status:
        """What the line shows now, in one value."""
        return self.words.status

    def watch_sync(self, sync: Progress | None) -> None:
        self._show_bar()
        if sync is not None and sync.total:
            self.query_one(ProgressBar).update(total=max(sync.total, 1), progress=sync.done)
        elif sync is not None and not sync.phase:  # a sync starting: the bar from empty
            self.query_one(ProgressBar).update(total=100, progress=0)

    def watch_text_sync(self) -> None:
        self._show_bar()

    def _show_bar(self) -> None:
        busy = (self.sync is not None and not self.sync.stopping) or self.text_sync is not None
        self.set_class(busy, "-syncing")
