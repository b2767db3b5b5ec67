"""Hints name keys as they are bound now: remap a key in config.toml and every hint follows."""

from __future__ import annotations

import html
import re

from tests.tui.tui_helpers import make_app, run, settle, wait_for_model, write_note

from pms_tui.tui.dialogs.help import HelpScreen


def screen_text(app) -> str:
    """The text on the terminal, from the app's own screenshot."""
    svg = app.export_screenshot()
    text = html.unescape("".join(re.findall(r"<text[^>]*>(.*?)</text>", svg, re.S)))
    return " ".join(text.replace("\xa0", " ").split())


def test_sync_remapped_to_f5_is_named_f5_in_every_hint(tmp_path):
    from pms_tui.core.kb import KnowledgeBase

    notes = tmp_path / "notes"
    notes.mkdir()
    home = tmp_path / "home"
    with KnowledgeBase(home=home) as kb:
        kb.collections.create(notes, name="notes")  # added, not synced yet: the hint says to sync
    (home / "config.toml").write_text('[keys]\n"app.sync" = "f5"\n')

    async def scenario():
        app = make_app(home, load_model=False)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await settle(app, pilot)
            assert screen.results.empty_message == "Nothing indexed yet: press f5 to index the notes."
            shown = screen_text(app)
            assert "press f5 to index the notes" in shown and "f5 Sync" in shown  # the list and the footer
            assert "ctrl+s" not in shown and "^s" not in shown
            await pilot.press("f1")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            assert {row.binding_id: row.keys for row in app.screen.rows}["app.sync"] == "f5"
            assert "^s" not in screen_text(app) and "ctrl+s" not in screen_text(app)
            # the id a remap is written with is in view: the table needs no sideways scroll
            table = app.screen.query_one("#help-keys")
            assert table.virtual_size.width <= table.scrollable_content_region.width
            await pilot.press("escape")
            write_note(notes, "okapi.md", "# Okapi\n\nThe okapi is a forest giraffe.\n")
            await pilot.press("ctrl+s")  # the old key does nothing now
            await settle(app, pilot)
            assert screen.status.status.counts.documents == 0
            await pilot.press("f5")
            await settle(app, pilot)
            assert screen.status.status.counts.documents == 1

    run(scenario())


def test_hints_follow_every_remapped_key(tmp_path):
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "config.toml").write_text(
        '[keys]\n"app.add_collection" = "f6"\n"app.help" = "f2"\n"app.toggle_document" = "f7"\n'
        '"app.open_editor" = "f8"\n"app.cycle_mode" = "f9"\n"app.cycle_collection" = "f10"\n'
    )

    async def scenario():
        app = make_app(tmp_path / "home", load_model=False)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await settle(app, pilot)
            assert screen.search_bar.placeholder == "Search your notes…  (f2 keys · ctrl+p commands)"
            assert screen.results.empty_message == "No collections yet: press f6 to add a folder of notes."
            welcome = screen.reader.empty_text
            for key in ("f7", "f8", "f9", "f10", "f2", "ctrl+p"):
                assert f"**{key}**" in welcome
            assert not re.search(r"ctrl\+[rgtln]\b", welcome)
            await pilot.press("ctrl+o")  # no collection to clip into: the hint names the add key
            await pilot.pause()
            assert any("with f6" in n.message for n in app.notified)
            await pilot.press("f2")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            assert "ctrl+p opens the command palette" in app.screen.intro

    run(scenario())
