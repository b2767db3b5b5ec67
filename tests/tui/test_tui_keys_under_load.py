"""Escape and the keys after it read by the app in one go (a busy app, tmux send-keys, a slow
link). The bytes a terminal sends go through the app's terminal parser (Textual's, with
tui/escape_key.py's rewrite) and the keys it makes are posted at once, as the driver posts them.
Textual's parser itself is a private module: it is named here, and checked, on purpose."""

from __future__ import annotations

import time

import pytest
from textual import events
from textual.app import App
from tests.tui.tui_helpers import make_app, run, settle, type_query

from pms_tui.tui.escape_key import EscapeAwareParser
from pms_tui.tui.textual_seam import XTermParser
from pms_tui.tui.history import History
from pms_tui.tui.typing_input import TypingInput

LONG = "link to a heading in another note"  # 33 characters: more than the parser's 32


def keys_of(parser: XTermParser, *reads: str) -> list[tuple[str, str | None]]:
    """The keys ``parser`` makes of ``reads`` (each read at once), its escape delay waited."""
    made = []
    for data in reads:
        made += list(parser.feed(data))
    time.sleep(0.15)
    made += list(parser.tick())
    return [(e.key, e.character) for e in made if isinstance(e, events.Key)]


def parsed(*reads: str) -> list[events.Key]:
    return [events.Key(key, char) for key, char in keys_of(EscapeAwareParser(), *reads)]


def test_the_escape_rewrite_is_installed_as_the_input_thread_s_parser():
    from textual.drivers import linux_driver

    assert linux_driver.XTermParser is EscapeAwareParser  # installed by importing the app's input


def test_textual_s_own_parser_still_loses_an_escape_read_with_text():
    """Why tui/escape_key.py exists: when these fail, Textual reads escape right, and it can go."""
    assert keys_of(XTermParser(), "\x1babc") == [("alt+a", "a"), ("b", "b"), ("c", "c")]
    assert keys_of(XTermParser(), "\x1b" + LONG)[0] == ("circumflex_accent", "^")



@pytest.mark.parametrize("reads", [("\x1babc",), ("\x1b", "abc"), ("x\x1b", "abc")])
def test_escape_read_with_text_stays_escape(reads):
    keys = [key for key, _ in keys_of(EscapeAwareParser(), *reads)]
    assert keys[-4:] == ["escape", "a", "b", "c"]


def test_escape_and_a_long_text_give_no_stray_caret():
    keys = keys_of(EscapeAwareParser(), "\x1b" + LONG + "\x1b")
    assert keys[0][0] == "escape" and keys[-1][0] == "escape"
    assert "".join(char or "" for _, char in keys[1:-1]) == LONG


@pytest.mark.parametrize(("reads", "expected"), [
    (("\x1b",), ["escape"]),  # alone: given when the escape delay has passed
    (("\x1b", "[A"), ["up"]),  # a key's sequence split across reads
    (("\x1b[1;5A",), ["ctrl+up"]),
    (("\x1bOP",), ["f1"]),
    (("\x1b\x1b[A",), ["escape", "up"]),
    (("a\x1b[1;3D", "b"), ["a", "alt+left", "b"]),
])
def test_other_keys_are_read_as_before(reads, expected):
    assert [key for key, _ in keys_of(EscapeAwareParser(), *reads)] == expected


def test_a_mouse_click_is_read_as_before():
    parser = EscapeAwareParser()
    made = list(parser.feed("\x1b[<0;10;5M\x1b[<0;10;5m"))
    assert [type(m).__name__ for m in made] == ["MouseDown", "MouseUp"]


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
            for key in parsed("\x1bCommit") + parsed("\x1b" + LONG + "\x1b"):
                app.post_message(key)
            await settle(app, pilot)
            assert screen.search_bar.value == ""  # the last escape cleared it
            for key in parsed("abcdef\x1b" + "undo the last commit"):
                app.post_message(key)
            await settle(app, pilot)
            assert screen.search_bar.value == "undo the last commit"
            await pilot.press("ctrl+y")  # acted on: the query enters the history
            await settle(app, pilot)
            assert History(tui_home).recent()[0] == "undo the last commit"
            assert not any("^" in q or not q.isprintable() for q in History(tui_home).recent())

    run(scenario())
