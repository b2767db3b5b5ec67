"""UI soak: the terminal app clicked, typed at, resized and its panels toggled at random.

    python benchmarks/ui_soak.py [--minutes 20] [--folder PATH] [--seed N] [--json FILE]

The folder (by default Obsidian's help vault, ../shared/corpora/markdown/obsidian-help) is
indexed in place as a collection, its text only: the app computes the vectors in the
background, as after a first sync. Then, through Textual's Pilot, steps are drawn at random:
words typed (the vault's own titles and words, the search language, hostile text), clicks
anywhere on the screen and inside the reader (where the links are) and the links panel,
clicks in the reader right after each key that changes it (as the terminal sends them),
the terminal resized, the keys that open and close panels and dialogs, the history walked.
The seed comes first on the output, and ``--seed`` repeats a run step for step (the timing of
the app's own workers aside).

It prints the steps taken by kind, the errors the app showed (a notification of severity
"error", as ``app_soak.py`` counts them: goal 0), the exception that ended the app, if any,
with the last steps before it, and whether the app still answered a query at the end.
``tests/tui/test_app_soak.py`` runs it for twenty seconds and, under ``-m slow``, for twenty
minutes (``PMS_UI_SOAK_MINUTES``, ``PMS_UI_SOAK_SEED``).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import random
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path

from textual import events

sys.path.insert(0, str(Path(__file__).resolve().parent))
from app_soak import watch_errors  # noqa: E402
from soak import CORPORA, FILTERS, HOSTILE  # noqa: E402

DEFAULT_FOLDER = CORPORA / "markdown" / "obsidian-help"
SIZES = [(80, 24), (100, 30), (120, 36), (200, 60), (60, 20), (160, 45)]
# keys that open, close or toggle something, move or walk; never ctrl+q (quit)
TOGGLES = ["f6", "f4", "f3", "f12", "ctrl+r", "ctrl+t", "ctrl+l", "f7", "f8", "alt+left", "alt+right"]
MOVES = ["down", "up", "pagedown", "pageup", "enter", "tab", "shift+tab", "escape", "j", "k", "space",
         "e", "s", "v", "home", "end", "left", "right"]
HISTORY = ["ctrl+up", "ctrl+down", "ctrl+up", "ctrl+up"]
DIALOGS = ["f1", "ctrl+p", "ctrl+o", "ctrl+n"]  # each closed again with escape
# keys that change what the reader shows, each followed at once by clicks in the reader (a
# click landing while the reader swaps its widgets once ended the app)
READER_KEYS = ["down", "up", "pagedown", "pageup", "home", "end", "ctrl+r", "alt+left", "alt+right"]
COPIES = ["ctrl+y", "ctrl+f", "ctrl+g"]  # ctrl+g: no $EDITOR here, so a warning
FINAL_QUERY = "canvas"  # asked at the end: the app must still answer
RECENT_STEPS = 40  # kept to print when the app ends with an exception


def vault_words(folder: Path, rng: random.Random) -> list[str]:
    """Titles and words of the vault's notes: what a person would type there."""
    words: list[str] = []
    notes = sorted(folder.rglob("*.md"))
    for path in rng.sample(notes, min(60, len(notes))):
        words.append(path.stem)
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        words += [w.strip(".,:;()[]*`#!?\"'") for w in text.split()[:400:37]]
    return [w for w in words if w and w.isprintable()]


def typed_text(rng: random.Random, words: list[str]) -> str:
    roll = rng.random()
    if roll < 0.6:
        return " ".join(rng.choice(words) for _ in range(rng.randint(1, 3)))
    if roll < 0.8:
        return f"{rng.choice(words)} {rng.choice(FILTERS)}"
    if roll < 0.9:
        return rng.choice(["after:notadate", "tag:", "in:", "path:", "-", '"', "#", "[[", "^"])
    hostile = [h for h in HOSTILE if len(h) < 60 and h.isprintable()]
    return rng.choice(hostile)


class Steps:
    """The random steps, each recorded (kind and detail) before it is taken."""

    def __init__(self, app, pilot, rng: random.Random, words: list[str]) -> None:
        self.app, self.pilot, self.rng, self.words = app, pilot, rng, words
        self.counts: collections.Counter[str] = collections.Counter()
        self.recent: collections.deque[str] = collections.deque(maxlen=RECENT_STEPS)

    def note(self, kind: str, detail: str = "") -> None:
        self.counts[kind] += 1
        self.recent.append(f"{kind} {detail}".strip())

    async def keys(self, kind: str, *keys: str) -> None:
        self.note(kind, " ".join(keys))
        await self.pilot.press(*keys)

    async def type(self) -> None:
        text = typed_text(self.rng, self.words)
        if self.rng.random() < 0.5:
            await self.keys("clear", "ctrl+u")
        if self.rng.random() < 0.5:  # key by key, each waited for
            self.note("type", repr(text))
            for char in text:
                await self.pilot.press("space" if char == " " else char)
        else:  # at once, as a fast typist or a busy app delivers them
            self.note("burst", repr(text))
            for char in text:
                self.app.post_message(events.Key("space" if char == " " else char, char))
            await self.pilot.pause()

    async def click(self) -> None:
        width, height = self.app.size
        screen = self.app.screen
        target = self.rng.random()
        region = None
        if target < 0.5 and screen is self.app.search_screen:  # where the links are
            panel = "#reader" if target < 0.4 else "#links"
            widget = screen.query_one(panel)
            region = widget.region if widget.display and widget.region.area else None
        if region is not None:
            x, y = region.x + self.rng.randrange(region.width), region.y + self.rng.randrange(region.height)
        else:
            x, y = self.rng.randrange(width), self.rng.randrange(height)
        x, y = min(x, width - 1), min(y, height - 1)
        self.note("click", f"{x},{y} at {width}x{height}")
        await self.pilot.click(offset=(x, y), times=self.rng.choice([1, 1, 1, 2]))

    async def key_then_clicks(self) -> None:
        """A key that changes the reader, and clicks in the reader right after it (within
        about 0.15 s, one at each turn of the event loop), as the terminal driver sends them."""
        screen = self.app.screen
        if screen is not self.app.search_screen:
            return await self.keys("move", "escape")
        key = self.rng.choice(READER_KEYS)
        if self.rng.random() < 0.7:
            screen.search_bar.focus()  # (the keys move the results from the bar)
        self.note("key+clicks", key)
        self.app.post_message(events.Key(key, None))
        reader = screen.query_one("#reader")
        loop = asyncio.get_running_loop()
        end = loop.time() + self.rng.choice([0.02, 0.1, 0.15])
        while loop.time() < end:
            region = reader.region
            if region.area:
                x, y = region.x + self.rng.randrange(region.width), region.y + self.rng.randrange(region.height)
                args = dict(widget=None, x=x, y=y, delta_x=0, delta_y=0, button=1, shift=False, meta=False,
                            ctrl=False, screen_x=x, screen_y=y)
                for event in (events.MouseDown(**args), events.MouseUp(**args), events.Click(**args, chain=1)):
                    self.app.post_message(event)
            await asyncio.sleep(0.005)
        await self.pilot.pause()

    async def resize(self) -> None:
        width, height = self.rng.choice(SIZES)
        self.note("resize", f"{width}x{height}")
        await self.pilot.resize_terminal(width, height)

    async def dialog(self) -> None:
        key = self.rng.choice(DIALOGS)
        await self.keys("dialog", key)
        await self.pilot.pause(0.05)
        if self.rng.random() < 0.5:  # typed at, never confirmed
            await self.type()
        await self.pilot.press("escape")

    async def read(self) -> None:
        """Wait for the search typed so far, as a person reading the results."""
        self.note("read")
        screen = self.app.search_screen
        for _ in range(100):
            if not screen.searcher.search_pending:
                break
            await self.pilot.pause(0.02)
        await self.pilot.pause(self.rng.choice([0.05, 0.2, 0.5]))

    async def step(self) -> None:
        roll = self.rng.random()
        if roll < 0.2:
            await self.type()
        elif roll < 0.5:
            await self.click()
        elif roll < 0.56:
            await self.key_then_clicks()
        elif roll < 0.6:
            await self.keys("move", *(self.rng.choice(MOVES) for _ in range(self.rng.randint(1, 4))))
        elif roll < 0.70:
            await self.keys("toggle", self.rng.choice(TOGGLES))
        elif roll < 0.76:
            await self.resize()
        elif roll < 0.81:
            await self.keys("history", self.rng.choice(HISTORY))
        elif roll < 0.85:
            await self.dialog()
        elif roll < 0.88:
            await self.keys("copy", self.rng.choice(COPIES))
        else:
            await self.read()


async def still_answers(app, pilot) -> bool:
    """Back on the search screen with the bar focused, a query typed: are its results shown?"""
    for _ in range(5):
        if app.screen is app.search_screen:
            break
        await pilot.press("escape")
        await pilot.pause(0.1)
    screen = app.search_screen
    await pilot.press("escape")
    await pilot.pause(0.05)
    screen.search_bar.focus()
    await pilot.press("ctrl+u", *FINAL_QUERY)
    for _ in range(1200):  # a minute at most: a sync may be writing
        if screen.searcher.shown_query == FINAL_QUERY and not screen.searcher.search_pending:
            return screen.search_bar.value == FINAL_QUERY and bool(screen.results.hits)
        await pilot.pause(0.05)
    return False


async def _soak(home: Path, folder: Path, minutes: float, seed: int) -> dict:
    from pms_tui.tui.app import PmsApp

    rng = random.Random(seed)
    words = vault_words(folder, rng)
    app = PmsApp(home=home, first_run_sample=False, read_clipboard=False)
    shown_errors = watch_errors(app)
    crash = None
    responsive = False
    steps: Steps | None = None
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            while app.first_screen_ms is None:
                await pilot.pause(0.05)
            steps = Steps(app, pilot, rng, words)
            stop = time.monotonic() + minutes * 60
            while time.monotonic() < stop:
                await steps.step()
                await pilot.pause()
            responsive = await still_answers(app, pilot)
    except Exception:  # noqa: BLE001 - the figure this run exists for
        crash = traceback.format_exc(limit=8)
    return {
        "seed": seed, "minutes": minutes, "steps": dict(steps.counts) if steps else {},
        "errors_shown": len(shown_errors), "errors": shown_errors[:5], "crash": crash,
        "last_steps": list(steps.recent) if steps and crash else [],
        "responsive": responsive, "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def run(minutes: float, folder: Path, seed: int) -> dict:
    from pms_tui.core.kb import KnowledgeBase

    tmp = Path(tempfile.mkdtemp(prefix="pms-ui-soak-"))
    try:
        with KnowledgeBase(home=tmp / "home") as kb:
            kb.collections.create(folder, name=folder.name)
            kb.sync(embed=False)  # the app computes the vectors while it is used
        return asyncio.run(_soak(tmp / "home", folder, minutes, seed))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def report(r: dict) -> str:
    taken = ", ".join(f"{kind} {n}" for kind, n in sorted(r["steps"].items(), key=lambda kv: -kv[1]))
    lines = [
        f"ui soak: seed {r['seed']}, {r['minutes']} min, {sum(r['steps'].values())} steps ({taken}); "
        f"load average {r['load_average']}",
        f"  errors shown: {r['errors_shown']} (goal 0){': ' + ' | '.join(r['errors']) if r['errors'] else ''}",
        f"  the app ended with an exception: {'yes' if r['crash'] else 'no'}; "
        f"it answered a query at the end: {'yes' if r['responsive'] else 'no'}",
    ]
    if r["crash"]:
        lines += ["  last steps: " + " · ".join(r["last_steps"]), r["crash"]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=20)
    parser.add_argument("--folder", type=Path, default=DEFAULT_FOLDER)
    parser.add_argument("--seed", type=int, default=None, help="repeat a run (printed first)")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1_000_000)
    print(f"ui soak seed: {seed} (repeat with --seed {seed})", flush=True)
    for name in ("EDITOR", "VISUAL"):  # ctrl+g must not start a real editor
        os.environ.pop(name, None)
    os.environ.setdefault("PMS_TUI_WATCH", "false")
    result = run(args.minutes, args.folder.resolve(), seed)
    print(report(result))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0 if not result["crash"] and not result["errors_shown"] and result["responsive"] else 1


if __name__ == "__main__":
    sys.exit(main())
