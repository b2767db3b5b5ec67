"""``pms-tui clip URL``: a web page saved as a note and indexed, stage by stage on a terminal's
stderr (fetching, extracting, writing, indexing, embedding), and ctrl+c ending it cleanly. A
pipe or a log gets the outcome alone, as ``sync`` gives it.

Before the note is written a ctrl+c stops at once (nothing was written); once it is written,
the first ctrl+c lets the indexing stop at its next step (the note stays whole, and the next
sync finishes it) and a second one interrupts. Opening the knowledge base is handed in by
``add_parser`` (no import cycle); ``--json`` prints ``ClipResult.to_json``.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable

from .output import add_json_option, emit, say
from ..core.errors import ClipStopped

# What the CLI says where the engine says "clip it again with update".
UPDATE_HINT = "run it again with --update"
_BEFORE_WRITING = ("", "fetching", "extracting")


class ClipStages:
    """The clip's ``progress``: on a terminal, one line on stderr as each stage begins and the
    embedding's bar (``SyncProgressBar``). ``stage`` is the stage the clip is in."""

    def __init__(self, url: str, quiet: bool, say: Callable, stream=None) -> None:
        from .progress import SyncProgressBar

        self.stream = stream or sys.stderr
        self.url, self.quiet, self.say = url, quiet or not self.stream.isatty(), say
        self.stage = ""
        self.fetched = 0
        self.bar = SyncProgressBar(quiet=quiet, stream=self.stream)

    def __call__(self, done: int, total: int, stage: str) -> None:
        if stage == "fetching":
            self.fetched = done
        if stage != self.stage:
            self.stage = stage
            self._tell(stage, total)
        if stage == "embedding":
            self.bar(done, total, stage)

    def _tell(self, stage: str, total: int) -> None:
        lines = {
            "fetching": f"Fetching {self.url}…",
            "extracting": f"Fetched {_size(self.fetched)}; extracting the article…",
            "writing": f"Writing the note ({_size(total)} of Markdown)…",
            "indexing": "Indexing its text…",
            "embedding": f"Embedding {total:,} passages (ctrl+c stops; `pms-tui sync` finishes)…",
        }
        if stage == "done":
            self.bar.__exit__(None, None, None)
        if not self.quiet and stage in lines:
            self.say(lines[stage], file=self.stream)
            self.stream.flush()
        if stage == "embedding":
            self.bar.__enter__()  # a terminal's bar from here on, until the clip is done


def _size(n: int) -> str:
    return f"{n / 1000:,.0f} KB" if n >= 1000 else f"{n} bytes"


def add_parser(sub, open_kb: Callable) -> None:
    def command(args) -> int:
        with open_kb(args) as kb:
            col = kb.clipper.default_collection(args.collection)
            stages = ClipStages(args.url, args.quiet, say)
            cancel = threading.Event()

            def on_sigint(signum, frame):
                stop_now = cancel.is_set() or stages.stage in _BEFORE_WRITING
                cancel.set()
                if stop_now:  # nothing written yet, or a second ctrl+c
                    raise KeyboardInterrupt

            previous = signal.signal(signal.SIGINT, on_sigint)
            try:
                stages(0, 0, "fetching")  # said before the server answers: a slow one is seen waiting
                result = kb.clipper.clip(args.url, col, update=args.update, progress=stages, cancel=cancel)
            except ClipStopped:
                say("Stopped: nothing was written.", file=sys.stderr)
                return 130
            except KeyboardInterrupt:
                if stages.stage not in _BEFORE_WRITING:
                    raise  # a second ctrl+c while indexing: main's "Interrupted."
                say("Stopped: nothing was written.", file=sys.stderr)
                return 130
            finally:
                signal.signal(signal.SIGINT, previous)
                stages.bar.__exit__(None, None, None)
            def human() -> None:
                say(result.path)
                say(result.message_with(UPDATE_HINT), file=sys.stderr)

            emit(args, result.to_json(col, UPDATE_HINT), human)
            if result.stopped:
                say("Stopped while indexing: the note is saved whole; `pms-tui sync` finishes indexing it.",
                    file=sys.stderr)
                return 130
            return 0 if result.status in ("created", "updated") else 3

    p = sub.add_parser("clip", help="save a web page as a note and index it (ctrl+c stops)")
    p.add_argument("url")
    p.add_argument("-c", "--collection")
    p.add_argument("--update", action="store_true", help="refresh a note already clipped from this URL")
    add_json_option(p)
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    p.set_defaults(func=command)
