"""Escape and the keys after it read by the app in one go (a busy app, tmux send-keys, a slow
link): the bytes a terminal sends go through Textual's own terminal parser (the part of Textual
that turns them into keys; a private module, used here as the terminal's stand-in) and the keys
it makes are posted at once, as the driver posts them."""

from __future__ import annotations

import time

from textual import events
from textual._xterm_parser import XTermParser
from textual.app import App
from tests.tui.tui_helpers import make_app, run, settle, type_query

from pms_tui.tui.history import History
from pms_tui.tui.typing_input import TypingInput


def parsed(data: str) -> list[events.Key]:
    """The keys the terminal parser makes of ``data`` read at once (its escape delay waited)."""
    parser = XTermParser()
    made = list(parser.feed(data))
    time.sleep(0.15)
    made += list(parser.tick())
    return [e for e in made if isinstance(e, events.Key)]


def test_the_parser_reads_escape_and_a_letter_together_as_alt():
    """What the app is given (if Textual changes it, the workaround may go)."""
    assert [k.key for k in parsed("\x1babc")] == ["alt+a", "b", "c"]


class ClearOnEscape(App):
    BINDINGS = [("escape", "clear", "Clear")]

    def compose(self):
        yield TypingInput("old query", select_on_focus=False)

    def action_clear(self) -> None:
        self.query_one(TypingInput).value = ""


def test_escape_then_text_in_one_read_clears_then_types():
    async def scenario() -> str:
        app = ClearOnEscape()
        async with app.run_test() as pilot:
            for key in parsed("\x1babcdef"):
                app.post_message(key)
            await pilot.pause()
            await pilot.pause()
            return app.query_one(TypingInput).value

    assert run(scenario()) == "abcdef"


def test_escape_then_text_in_one_burst_in_the_search_bar(tui_home):
    async def scenario():
        app = make_app(tui_home, load_model=False)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await settle(app, pilot)
            await type_query(app, pilot, "pancakes")
            for key in parsed("\x1bCommit") + parsed("\x1bundo"):
                app.post_message(key)
            await settle(app, pilot)
            assert screen.search_bar.value == "undo"
            await pilot.press("ctrl+y")  # acted on: the query enters the history
            await settle(app, pilot)
            assert History(tui_home).recent()[0] == "undo"

    run(scenario())
