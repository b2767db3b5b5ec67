"""Regenerate the README's screenshots: ``python scripts/screenshots.py``.

Builds a throwaway home that indexes the bundled user guide, runs the app headless at
120x36 and saves SVGs into ``screenshots/``: search results with the reader on a chunk with
a code block, a sync in progress, the clip dialog, and the light theme.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "screenshots"
SIZE = (120, 36)
sys.path.insert(0, str(REPO))


def build_home(root: Path) -> Path:
    from pms_tui.core.kb import KnowledgeBase
    from pms_tui.tui.sample import SAMPLE_NAME, sample_dir

    home = root / "home"
    with KnowledgeBase(home=home) as kb:
        kb.collections.create(sample_dir(), name=SAMPLE_NAME)
        kb.sync()
    return home


def bulk_notes(folder: Path, count: int = 400) -> None:
    """Notes for a sync that lasts long enough to be seen."""
    from pms_tui.tui.sample import sample_dir

    sources = sorted(sample_dir().rglob("*.md"))
    for i in range(count):
        src = sources[i % len(sources)]
        text = src.read_text(encoding="utf-8")
        (folder / f"{i:03d}-{src.name}").write_text(f"{text}\n\nCopy {i}: note number {i} of the archive.\n",
                                                     encoding="utf-8")


async def settle(app, pilot) -> None:
    """Until the results shown are those a person reads once typing pauses."""
    for _ in range(3):
        while app.search_screen.searcher.search_pending or app.search_screen.searcher.settle_pending:
            await pilot.pause(0.02)
        await app.wait_for_work()
        await pilot.pause()


async def type_query(app, pilot, text: str) -> None:
    for char in text:
        await pilot.press("space" if char == " " else char)
    await settle(app, pilot)


async def shoot(home: Path, name: str, scenario) -> None:
    from textual.widgets import Input

    from pms_tui.tui.app import PmsApp

    app = PmsApp(home=home, first_run_sample=False, read_clipboard=False, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        for field in app.query(Input):
            field.cursor_blink = False
        while app.search_screen.model_state == "loading":
            await pilot.pause(0.05)
        await settle(app, pilot)
        await scenario(app, pilot)
        for field in app.screen.query(Input):
            field.cursor_blink = False
        await pilot.pause()
        path = app.save_screenshot(filename=f"{name}.svg", path=str(OUT))
        print(f"wrote {Path(path).relative_to(REPO)}")


async def results(app, pilot) -> None:
    app.set_theme("pms-dark")
    await type_query(app, pilot, "undo the last commit")


async def light(app, pilot) -> None:
    app.set_theme("pms-light")
    await type_query(app, pilot, "gather with a timeout")


async def clip(app, pilot) -> None:
    app.set_theme("pms-dark")
    await type_query(app, pilot, "clip a web page")
    await pilot.press("ctrl+o")
    await pilot.pause()
    app.screen.query_one("#clip-url").value = "https://example.org/2024/03/lazy-pipelines/"
    await pilot.pause()


async def sync(app, pilot) -> None:
    app.set_theme("pms-dark")
    await type_query(app, pilot, "sourdough")
    await pilot.press("ctrl+s")
    bar = app.search_screen.status.query_one("#sync-progress")
    for _ in range(600):
        if (bar.total or 0) > 0 and 0 < (bar.progress or 0) < bar.total:
            break
        await pilot.pause(0.02)


def main() -> int:
    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="pms-shots-") as tmp:
        root = Path(tmp)
        home = build_home(root)
        clips = root / "clips"
        clips.mkdir()
        from pms_tui.core.kb import KnowledgeBase

        with KnowledgeBase(home=home) as kb:
            kb.collections.create(clips, name="clips")
        asyncio.run(shoot(home, "results", results))
        asyncio.run(shoot(home, "clip-dialog", clip))
        bulk_notes(clips)
        asyncio.run(shoot(home, "sync-in-progress", sync))
        asyncio.run(shoot(home, "light-theme", light))
        shutil.rmtree(clips, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
