"""The status line: what is indexed, what runs, how the last search was answered."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import ProgressBar, Static

from pms_tui.core.results import VECTORS_FILLING_IN


@dataclass(frozen=True)
class Status:
    documents: int = 0
    chunks: int = 0
    model: str = "loading"  # loading | ready | error: ... | mismatch
    sync: str = "idle"  # idle | syncing | a short note
    pending: int = 0  # vectors waiting in the embedding queue
    watch: str = ""  # "" | watching | polling every 30 s
    clip: str = ""  # "" | clipping
    mode: str = "hybrid"
    collection: str | None = None  # the filter; None for all
    lanes: tuple[str, ...] = field(default_factory=tuple)
    hits: int | None = None
    elapsed_ms: float | None = None
    recent: bool = False
    view: str = "notes"  # notes | passages
    sort: str = "relevance"  # relevance | modified
    ignored: tuple[str, ...] = field(default_factory=tuple)  # parts of the query left out, with why
    weak: bool = False  # no note matches the query well (the hits are only the nearest)
    notes: tuple[str, ...] = field(default_factory=tuple)  # the search's notes on its lanes


class StatusLine(Horizontal):
    DEFAULT_CSS = """
    StatusLine {
        height: 1;
        background: $panel;
        color: $text-muted;
        & > #status-text { width: 1fr; height: 1; padding: 0 1; }
        & > ProgressBar { width: auto; height: 1; display: none; padding: 0 1 0 0; }
        &.-syncing > ProgressBar { display: block; }
        & Bar { width: 24; }
    }
    """

    def __init__(self, *, show_timings: bool = True, **kwargs) -> None:
        super().__init__(**kwargs)
        self.status = Status()
        self.show_timings = show_timings

    def compose(self) -> ComposeResult:
        yield Static(id="status-text")
        yield ProgressBar(total=None, show_eta=False, id="sync-progress")

    def on_mount(self) -> None:
        self._render_status()

    def update_status(self, **changes) -> None:
        self.status = replace(self.status, **changes)
        self.set_class(self.status.sync == "syncing", "-syncing")
        self._render_status()

    def set_progress(self, done: int, total: int) -> None:
        bar = self.query_one(ProgressBar)
        bar.update(total=max(total, 1), progress=done)

    def reset_progress(self) -> None:
        # a determinate bar: the indeterminate one animates at 15 frames a second, CPU taken
        # from the model during a sync
        self.query_one(ProgressBar).update(total=100, progress=0)

    def _render_status(self) -> None:
        s = self.status
        sep = (" │ ", "$text-muted 50%")
        model_style = {"ready": "$text-success", "loading": "$text-warning"}.get(s.model, "$text-error")
        parts: list = [(f"{s.documents:,} notes · {s.chunks:,} chunks", "$text")]
        if s.sync != "idle":
            parts += [sep, (s.sync, "bold $text-warning")]
        elif s.pending:
            parts += [sep, (f"{s.pending:,} vectors pending", "$text-warning")]
        if s.watch:
            parts += [sep, (s.watch, "")]
        if s.clip:
            parts += [sep, (s.clip, "bold $text-warning")]
        parts += [
            sep, ("model ", ""), (s.model if len(s.model) < 30 else s.model[:29] + "…", model_style),
            sep, ("mode ", ""), (s.mode, "bold $text-accent"),
            sep, ("in ", ""), (s.collection or "all collections", "$text-primary" if s.collection else ""),
        ]
        if s.recent:
            parts += [sep, ("recent notes", "")]
        elif s.lanes:
            parts += [sep, ("lanes ", ""), ("+".join(s.lanes), "$text")]
            if s.mode in ("hybrid", "vector") and "vector" not in s.lanes:
                filling = any(n.startswith(VECTORS_FILLING_IN) for n in s.notes)
                why = "vector joins when more passages are embedded" if filling else "vector waiting for the model"
                parts += [(f" ({why})", "$text-warning")]
        if s.hits is not None and not s.recent:
            unit = "note" if s.view == "notes" else "passage"
            parts += [sep, (f"{s.hits} {unit}{'' if s.hits == 1 else 's'}", "")]
            if s.sort != "relevance":
                parts += [(" newest first", "$text-accent")]
        if s.weak and not s.recent:
            parts += [sep, ("No note matches well", "bold $text-warning")]
        if s.elapsed_ms is not None and self.show_timings:
            parts += [(f" in {s.elapsed_ms:.0f} ms", "")]
        for item in s.ignored[:2]:
            parts += [sep, (f"ignored {item}", "$text-warning")]
        self.query_one("#status-text", Static).update(Content.assemble(*parts))
