"""A click in the reader right after a key that changes it never ends the app.

A long note's whole-note view paints a screenful as one widget and mounts the blocks right
after (widgets/first_screen.py); the blocks of a long note come in pieces. A click that lands
while a widget is being swapped for another must reach a widget that is still in the screen's
tree: Textual's screen reads the clicked widget's parent, and a detached one has none."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual import events
from tests.tui.tui_helpers import make_app, run, settle, type_query, write_note


def long_note(title: str, sections: int = 60) -> str:
    parts = [f"# {title}\n"]
    for i in range(sections):
        parts.append(f"## Section {i}\n\nThe walrus keeps section {i} of {title} in a paragraph long "
                     "enough to wrap across the reader at most widths, with a [link](other.md) in it.\n\n"
                     f"- item one of {i}\n- item two of {i}\n\n```\ncode {i}\n```\n")
    return "\n".join(parts)


def _home(tmp_path: Path) -> Path:
    from pms_tui.core.kb import KnowledgeBase

    folder = tmp_path / "notes"
    write_note(folder, "alpha.md", long_note("Alpha"))
    write_note(folder, "beta.md", long_note("Beta"))
    write_note(folder, "other.md", "# Other\n\nShort.\n")
    home = tmp_path / "home"
    with KnowledgeBase(home=home) as kb:
        kb.collections.create(folder, name="notes")
        kb.sync(embed=False)
    return home


async def click_storm(app, widget, seconds: float) -> int:
    """Clicks on ``widget`` at every turn of the event loop for ``seconds`` (a person clicking
    at any moment of a render), as the terminal driver sends them; how many."""
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    sent = 0
    while loop.time() < end:
        region = widget.region
        x, y = region.x + region.width // 2, region.y + region.height // 3
        for event in driver_click(x, y):
            app.post_message(event)
        sent += 1
        await asyncio.sleep(0)
    return sent


def driver_click(x: int, y: int) -> list[events.MouseEvent]:
    """A click at screen cell (x, y), as the terminal driver posts it to the app."""
    args = dict(widget=None, x=x, y=y, delta_x=0, delta_y=0, button=1, shift=False, meta=False, ctrl=False,
                screen_x=x, screen_y=y)
    return [events.MouseDown(**args), events.MouseUp(**args), events.Click(**args, chain=1)]


def press(app, key: str) -> None:
    """A key as the driver sends it, handled while the caller goes on."""
    app.post_message(events.Key(key, None))


def test_clicks_right_after_a_key_that_changes_the_whole_note_never_raise(tmp_path: Path):
    home = _home(tmp_path)

    async def scenario():
        app = make_app(home, load_model=False)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(app, pilot)
            await type_query(app, pilot, "walrus section")
            screen = app.search_screen
            reader = screen.reader
            assert reader.hit is not None
            bar = screen.query_one("#search")
            sent = 0
            for key in ("ctrl+r", "down", "down", "up", "end", "home", "down", "ctrl+r", "ctrl+r"):
                bar.focus()
                await pilot.pause()
                press(app, key)  # not pilot.press: it waits until the app is idle, the render done
                sent += await click_storm(app, reader, 0.4)
            await settle(app, pilot)
            assert sent > 100
            assert reader.hit is not None and reader.markdown.first_screen is None
    run(scenario())
