"""Keys that arrive together keep their order (tui/typing_input.py): a fast typist, an app busy
with a sync, a slow ssh link or tmux send-keys deliver several keys before the app has run
the first. The keys are posted without waiting between them, as such a burst arrives."""

from __future__ import annotations

from textual import events
from textual.app import App
from tests.tui.tui_helpers import make_app, run, settle, wait_for_model

from pms_tui.tui.dialogs.clip import ClipDialog
from pms_tui.tui.typing_input import TypingInput

NAMED = {" ": "space", "/": "slash", ":": "colon", ".": "full_stop"}


def burst(app, keys: list[str]) -> None:
    """Post every key at once: a one-character key is typed, a longer one is a key's name."""
    for key in keys:
        if len(key) == 1:
            app.post_message(events.Key(NAMED.get(key, key), key))
        else:
            app.post_message(events.Key(key, None))


def chars(text: str) -> list[str]:
    return list(text)


class OneInput(App):
    """A bare app holding one TypingInput: the widget on its own."""

    def compose(self):
        yield TypingInput()


class TwoInputs(App):
    def compose(self):
        yield TypingInput(id="first")
        yield TypingInput(id="second")


async def typed(keys: list[str]) -> str:
    app = OneInput()
    async with app.run_test() as pilot:
        burst(app, keys)
        await pilot.pause()
        await pilot.pause()
        return app.query_one(TypingInput).value


def test_editing_keys_apply_where_they_were_pressed():
    assert run(typed(chars("grpe") + ["backspace", "backspace"] + chars("ep"))) == "grep"
    assert run(typed(chars("abc") + ["ctrl+u"] + chars("def"))) == "def"
    assert run(typed(chars("abc") + ["home"] + chars("X"))) == "Xabc"
    assert run(typed(chars("one two") + ["ctrl+w"] + chars("three"))) == "one three"
    assert run(typed(chars("abc") + ["left", "left", "delete"] + chars("B"))) == "aBc"


def test_keys_after_a_focus_move_go_where_the_focus_went():
    keys = chars("abc") + ["tab"] + chars("def") + ["shift+tab", "end"] + chars("g")

    async def scenario(at_once: bool):
        app = TwoInputs()
        async with app.run_test() as pilot:
            if at_once:
                burst(app, keys)
            else:
                await pilot.press(*keys)
            await pilot.pause()
            await pilot.pause()
            return app.query_one("#first", TypingInput).value, app.query_one("#second", TypingInput).value

    assert run(scenario(at_once=False)) == ("abcg", "def")  # one key at a time
    assert run(scenario(at_once=True)) == ("abcg", "def")


def test_the_search_bar_and_the_clip_dialog_keep_a_burst_in_order(tui_home):
    async def scenario():
        app = make_app(tui_home)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            burst(app, chars("undo teh") + ["backspace", "backspace"] + chars("he last commit"))
            await settle(app, pilot)
            assert screen.search_bar.value == "undo the last commit"
            assert screen.results.hits[0].relpath == "git/undo-commit.md"
            burst(app, ["ctrl+u"] + chars("rebase"))
            await settle(app, pilot)
            assert screen.search_bar.value == "rebase"
            burst(app, ["escape"] + chars("commit"))  # the screen's key: clear the query, then type
            await settle(app, pilot)
            assert screen.search_bar.value == "commit"
            assert screen.results.highlighted == 0
            burst(app, ["down", "down", "up"])  # the screen's keys for the results, from the bar
            await settle(app, pilot)
            assert screen.results.highlighted == 1 and screen.focused is screen.search_bar

            await pilot.press("ctrl+o")
            await pilot.pause()
            assert isinstance(app.screen, ClipDialog)
            burst(app, chars("http://exmaple") + ["backspace"] * 5 + chars("ample.org/"))
            await pilot.pause()
            await pilot.pause()
            assert app.screen.query_one("#clip-url", TypingInput).value == "http://example.org/"
            burst(app, ["escape"] + chars(" log"))  # close the dialog, then go on typing in the bar
            await settle(app, pilot)
            assert not isinstance(app.screen, ClipDialog)
            assert screen.search_bar.value == "commit log"

            url = "http://example.net/"
            burst(app, ["ctrl+o"] + chars(url))  # open the dialog and type the URL
            for _ in range(100):  # the keys wait for the dialog to focus its field
                await pilot.pause(0.02)
                if isinstance(app.screen, ClipDialog) and app.screen.query_one("#clip-url").value == url:
                    break
            assert isinstance(app.screen, ClipDialog)
            assert app.screen.query_one("#clip-url", TypingInput).value == url
            assert screen.search_bar.value == "commit log"
            await pilot.press("escape")

    run(scenario())
