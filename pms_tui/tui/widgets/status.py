"""The status line: what is indexed, what runs, how the last search was answered."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.reactive import var
from textual.widget import Widget
from textual.widgets import ProgressBar

from pms_tui.core.results import ModelState, VectorOut

from ..status_fit import Part, Span, cut, fit, part, shorter_in_words


@dataclass(frozen=True)
class Status:
    documents: int = 0
    chunks: int = 0
    model: str = "loading"  # shown: loading | ready | error: ... | mismatch: reindex
    model_state: ModelState | None = None  # the state itself, when the model is known not to serve
    sync: str = "idle"  # idle | syncing | a short note
    pending: int = 0  # vectors waiting in the embedding queue
    watch: str = ""  # "" | watching | polling every 30 s
    clip: str = ""  # "" | clipping
    mode: str = "hybrid"
    collection: str | None = None  # the filter; None for all
    aside: str = ""  # a collection left out unless named (the bundled guide, once it steps aside)
    lanes: tuple[str, ...] = field(default_factory=tuple)
    hits: int | None = None
    elapsed_ms: float | None = None
    recent: bool = False
    view: str = "notes"  # notes | passages
    sort: str = "relevance"  # relevance | modified
    ignored: tuple[str, ...] = field(default_factory=tuple)  # parts of the query left out, with why
    weak: bool = False  # no note matches the query well (the hits are only the nearest)
    notes: tuple[str, ...] = field(default_factory=tuple)  # the search's notes on its lanes
    vector_out: VectorOut | None = None  # why the search left its vector lane out (SearchResult's)


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


def _vector_out(s: Status) -> tuple[str, str] | None:
    """Why hybrid or vector search ran without the vector lane: (in full, in a few words)."""
    if s.mode not in ("hybrid", "vector") or "vector" in s.lanes:
        return None
    if s.vector_out is VectorOut.FILLING_IN:
        return "vector joins when more passages are embedded", "vectors filling in"
    if s.vector_out is VectorOut.UNREAD_SCRIPT:
        return "vector off: the model cannot read this script", "script unread"
    if s.model_state is ModelState.MISMATCH or s.vector_out is VectorOut.OTHER_MODEL:
        return "vector off until reindex", "reindex"
    if s.model == "loading":
        return "vector waiting for the model", "model loading"
    return "vector off: no model", "no model"


def status_parts(s: Status, show_timings: bool = True) -> list[Part]:
    """The status line's parts, in screen order, each with its shorter forms."""
    parts: list[Part] = [part(COUNTS, [(f"{s.documents:,} notes · {s.chunks:,} chunks", "$text")],
                              [(f"{s.documents:,} notes", "$text")], [(f"{compact(s.documents)} notes", "$text")])]
    if s.sync != "idle":
        style = "bold $text-warning"
        pieces = s.sync.split(" · ")
        steady = " · ".join(p for p in pieces if not p.endswith("/s"))  # the rate goes before the time left
        first = pieces[0].removeprefix("syncing: ")  # beside the progress bar, the phase says it
        phase = re.sub(r" [\d,/]+$", "", first)  # "embedding 1,204/3,410": the bar shows how far
        parts.append(part(SYNC, *([(words, style)] for words in (s.sync, steady, pieces[0], first, phase))))
    elif s.pending:
        style = "$text-warning"
        parts.append(part(PENDING, [(f"{s.pending:,} vectors pending", style)],
                          [(f"{compact(s.pending)} vectors pending", style)]))
    if s.watch:
        parts.append(part(WATCH, [(s.watch, "")], [(s.watch.split()[0], "")]))
    if s.clip:
        parts.append(part(CLIP, [(s.clip, "bold $text-warning")]))
    model_style = {"ready": "$text-success", "loading": "$text-warning"}.get(s.model, "$text-error")
    model = cut([(s.model, model_style)], 30)[0]
    if s.model in ("ready", "loading"):  # "ready" alone would not say what is
        parts.append(part(MODEL_READY if s.model == "ready" else MODEL_LOADING, [("model ", ""), model]))
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
    if s.recent:
        parts.append(part(RECENT, [("recent notes", "")]))
    elif s.lanes:
        lanes = ("+".join(s.lanes), "$text")
        why = _vector_out(s)
        if why is None:
            parts.append(part(LANES, [("lanes ", ""), lanes], [lanes]))
        else:
            full, short = ((f" ({words})", "$text-warning") for words in why)
            # the reason in full is kept less than the hits: "(vectors filling in)" says it
            parts.append(part(VECTOR_OUT, [("lanes ", ""), lanes, full], [lanes, full], [lanes, short], step=20))
    if s.hits is not None and not s.recent:
        unit = "note" if s.view == "notes" else "passage"
        hits: list[Span] = [(f"{s.hits} {unit}{'' if s.hits == 1 else 's'}", "")]
        if s.sort != "relevance":
            hits.append((" newest first", "$text-accent"))
        timed = [(f" in {s.elapsed_ms:.0f} ms", "")] if s.elapsed_ms is not None and show_timings else []
        parts.append(part(HITS, hits + timed, hits))
    if s.weak and not s.recent:
        parts.append(part(WEAK, [("No note matches well", "bold $text-warning")]))
    for n, item in enumerate(s.ignored[:2]):
        # never cut mid-word: the reason in full, up to its parenthesis, or the filter alone
        # (the evidence panel, f4, and the struck-out chip say it in full)
        forms = [item, *shorter_in_words(item, IGNORED_CELLS - len("ignored "))]
        parts.append(part(IGNORED - n, *([(f"ignored {form}", "$text-warning")] for form in forms), step=6))
    return parts


class StatusText(Widget):
    """The status line's words, fitted to the widget's width at every render (so on resize)."""

    DEFAULT_CSS = "StatusText { width: 1fr; height: 1; padding: 0 1; }"

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.parts: list[Part] = []

    def show(self, parts: list[Part]) -> None:
        self.parts = parts
        self.refresh()

    def render(self) -> Content:
        separator = (SEPARATOR, SEPARATOR_STYLE)
        spans: list[Span] = []
        for form in fit(self.parts, self.content_size.width, len(SEPARATOR)):
            spans += ([separator] if spans else []) + list(form.spans)
        return Content.assemble(*spans)


class StatusLine(Horizontal):
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

    status: var[Status] = var(Status())  # the search screen binds its own to it (data_bind)

    def __init__(self, *, show_timings: bool = True, **kwargs) -> None:
        super().__init__(**kwargs)
        self.show_timings = show_timings

    def compose(self) -> ComposeResult:
        yield StatusText(id="status-text")
        yield ProgressBar(total=None, show_eta=False, id="sync-progress")

    def on_mount(self) -> None:
        self._render_status()

    def update_status(self, **changes) -> None:
        self.status = replace(self.status, **changes)
        self.set_class(self.status.sync == "syncing", "-syncing")

    def watch_status(self) -> None:
        if self.is_mounted:
            self._render_status()

    def set_progress(self, done: int, total: int) -> None:
        bar = self.query_one(ProgressBar)
        bar.update(total=max(total, 1), progress=done)

    def reset_progress(self) -> None:
        # a determinate bar: the indeterminate one animates at 15 frames a second, CPU taken
        # from the model during a sync
        self.query_one(ProgressBar).update(total=100, progress=0)

    def _render_status(self) -> None:
        self.query_one(StatusText).show(status_parts(self.status, self.show_timings))
