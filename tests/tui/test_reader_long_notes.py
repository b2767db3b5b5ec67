"""A long note in the whole-note view: Home and End go to the top and the end of what is
shown at one press, whenever they are pressed while the note is being put on the screen."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual import events
from tests.tui.tui_helpers import make_app, run, settle, type_query, write_note


def sections(title: str, count: int, marked: int, word: str) -> str:
    parts = [f"# {title}\n"]
    for i in range(count):
        extra = f" The {word} lives here." if i == marked else ""
        parts.append(f"## Section {i}\n\nA paragraph of section {i} long enough to wrap at most widths of "
                     f"the reader, about nothing much.{extra}\n\n- one\n- two\n")
    return "\n".join(parts)


def test_home_and_end_in_a_long_whole_note_take_one_press_at_any_moment(tmp_path: Path):
    from pms_tui.core.kb import KnowledgeBase

    folder = tmp_path / "notes"
    write_note(folder, "long.md", sections("Long", 90, 45, "quetzal"))
    home = tmp_path / "home"
    with KnowledgeBase(home=home) as kb:
        kb.collections.create(folder, name="notes")
        kb.sync(embed=False)

    async def scenario():
        app = make_app(home, load_model=False)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(app, pilot)
            await type_query(app, pilot, "quetzal")
            screen = app.search_screen
            reader = screen.reader
            scroll = reader.query_one("#reader-scroll")
            missed = []
            for key, delays in (("home", (0.02, 0.1)), ("end", (0.05,))):
                for delay in delays:
                    if reader.whole_note:
                        screen.search_bar.focus()
                        await pilot.press("ctrl+r")
                        await settle(app, pilot)
                    screen.search_bar.focus()
                    await pilot.press("ctrl+r")  # (pilot.press waits only for the key)
                    scroll.focus()
                    await asyncio.sleep(delay)
                    app.post_message(events.Key(key, None))
                    await settle(app, pilot)
                    await pilot.pause(0.3)  # (the pieces below and above come after the paint)
                    await settle(app, pilot)
                    assert reader.whole_note and scroll.max_scroll_y > 50
                    at = scroll.scroll_y if key == "home" else scroll.max_scroll_y - scroll.scroll_y
                    if at:
                        missed.append((key, delay, scroll.scroll_y, scroll.max_scroll_y))
            assert not missed, missed
    run(scenario())
