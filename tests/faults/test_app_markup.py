"""Point 2 (and 1, in the app): names and titles from notes and pages are text, never markup.

A file or folder named ``[/]x`` or a page titled ``[@click=app.quit]`` once crashed the app
with a MarkupError on ctrl+s / ctrl+o, or turned into a clickable action that quit it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.tui.tui_helpers import make_app, run, settle, type_query, wait_for_model
from tests.webserver import LocalWebServer

CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
HOSTILE_TITLE = "[@click=app.quit]Quit[/] [/] x [b]bold \x1b]0;pwned\x07"


def toast_texts(app) -> list[str]:
    from textual.widgets._toast import Toast

    out = []
    for screen in app.screen_stack:
        for toast in screen.query(Toast):
            out.append(str(toast.render()))
    return out


@pytest.fixture
def hostile_home(tmp_path):
    from pms_tui.core.kb import KnowledgeBase

    folder = tmp_path / "[" / "]notes [@click=app.quit]"  # a folder path holding "[/]"
    folder.mkdir(parents=True)
    (folder / "[").mkdir()  # relpath "[/]x.md"
    (folder / "[/]x.md").write_text(f"# {HOSTILE_TITLE}\n\nzeppelin \x1b[2J body \x1b]52;c;ZXZpbA==\x07 end\n")
    (folder / "[@click=app.quit].md").write_bytes(b"\x00binary zeppelin")  # skipped: named in a toast
    home = tmp_path / "home"
    with KnowledgeBase(home=home) as kb:
        kb.collections.create(folder, name="notes")
    return home, folder


def test_sync_and_results_with_markup_names_neither_crash_nor_act(hostile_home):
    home, folder = hostile_home

    async def scenario():
        app = make_app(home)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_for_model(app, pilot)
            await pilot.press("ctrl+s")
            await settle(app, pilot)
            assert app.is_running and app.return_code is None
            messages = [n.message for n in app.notified]
            assert any("[@click=app.quit].md" in m for m in messages), messages
            assert not any(n.markup for n in app._notifications)
            for shown in toast_texts(app):
                assert not CONTROL.search(shown)
            await type_query(app, pilot, "zeppelin")
            assert app.search_screen.results.hits and app.search_screen.results.hits[0].relpath == "[/]x.md"
            for toast in list(app.screen.query("Toast")):
                await pilot.click(toast.__class__)  # a click on a toast must not run an action
            await pilot.click("#results")
            await pilot.click("#reader")
            await settle(app, pilot)
            assert app.is_running and app.return_code is None
            row = str(app.search_screen.results.get_option_at_index(0).prompt)
            assert "[@click=app.quit]Quit[/]" in row and not CONTROL.search(row)
            crumb = str(app.search_screen.reader.query_one("Breadcrumb").render())
            assert "[/]x.md" in crumb and not CONTROL.search(crumb)

    run(scenario())


def test_clipping_a_page_titled_like_markup_is_harmless(tmp_path, monkeypatch):
    from pms_tui.core.kb import KnowledgeBase
    from pms_tui.tui.dialogs.clip import ClipDialog

    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    folder = tmp_path / "clips"
    folder.mkdir()
    home = tmp_path / "home"
    with KnowledgeBase(home=home) as kb:
        kb.collections.create(folder, name="clips")
    site = LocalWebServer().start()
    page = ("<!DOCTYPE html><html><head><title>[@click=app.quit] [/] x</title></head><body><article>"
            "<h1>[@click=app.quit] [/] x</h1><p>" + "A real paragraph about zeppelins and airships. " * 8
            + "</p></article></body></html>")
    url = site.add("/markup", page)
    try:
        async def scenario():
            app = make_app(home)
            async with app.run_test(size=(120, 36)) as pilot:
                await wait_for_model(app, pilot)
                await pilot.press("ctrl+o")
                await pilot.pause()
                assert isinstance(app.screen, ClipDialog)
                app.screen.query_one("#clip-url").value = url
                await pilot.press("enter")
                await settle(app, pilot)
                assert app.is_running and app.return_code is None
                assert any(n.title == "Clipped" for n in app.notified), [n.message for n in app.notified]
                await type_query(app, pilot, "zeppelins airships")
                await pilot.click("#results")
                await settle(app, pilot)
                assert app.is_running and app.return_code is None

        run(scenario())
    finally:
        site.stop()
