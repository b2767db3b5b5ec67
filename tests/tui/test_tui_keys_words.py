"""What the keys and the words around them say is true: the help, the ctrl+c toast, the
themes the palette offers, the add-folder dialog (Pilot, real index)."""

from __future__ import annotations

from tests.tui.tui_helpers import make_app, run, settle, type_query
from textual.widgets import Input, Static

from pms_tui.tui.dialogs.add_collection import AddCollectionDialog
from pms_tui.tui.dialogs.help import HelpScreen
from pms_tui.tui.keys import RESULTS_BINDINGS


def test_help_says_which_keys_need_the_results_list(tui_home):
    async def scenario():
        app = make_app(tui_home, load_model=False)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(app, pilot)
            await pilot.press("f1")
            await pilot.pause()
            help_screen = app.screen
            assert isinstance(help_screen, HelpScreen)
            rows = {row.binding_id: row for row in help_screen.rows}
            for binding in RESULTS_BINDINGS:
                assert "in the results list" in rows[binding.id].action, binding.id
            assert "in the results list" in help_screen.intro
            assert "in the results list" not in rows["app.sync"].action

    run(scenario())


def test_down_leaves_you_typing_and_the_list_keys_work_in_the_list(tui_home):
    """↑ ↓ select from the search bar (typing goes on); enter moves to the list, where e explains."""

    async def scenario():
        app = make_app(tui_home, load_model=False)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await type_query(app, pilot, "git")
            await pilot.press("down")
            assert app.focused is screen.search_bar
            await pilot.press("enter")
            await settle(app, pilot)
            assert app.focused is screen.results
            await pilot.press("e")
            await settle(app, pilot)
            assert screen.search_bar.value == "git" and screen.evidence_shown

    run(scenario())


def test_ctrl_c_says_how_to_quit_in_plain_words(tui_home):
    async def scenario():
        app = make_app(tui_home, load_model=False)
        async with app.run_test(size=(120, 36)) as pilot:
            await type_query(app, pilot, "git")
            app.search_screen.results.focus()
            await pilot.pause()
            await pilot.press("ctrl+c")
            await pilot.pause()
            said = [n.message for n in app.notified if "quit" in n.message]
            assert said == ["Press ctrl+q to quit the app."]

    run(scenario())


def test_the_palette_offers_the_readme_s_themes_and_the_person_s(tui_home):
    themes = tui_home / "themes"
    themes.mkdir()
    (themes / "mine.toml").write_text('name = "mine"\nprimary = "#ff8800"\ndark = true\n')

    async def scenario():
        app = make_app(tui_home, load_model=False)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(app, pilot)
            assert set(app.available_themes) == {"pms-dark", "pms-light", "mine"}

    run(scenario())


def test_add_folder_dialog_names_documents_and_tab_back_keeps_the_path(tui_home, tmp_path):
    async def scenario():
        app = make_app(tui_home, load_model=False)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(app, pilot)
            await pilot.press("ctrl+n")
            await pilot.pause()
            dialog = app.screen
            assert isinstance(dialog, AddCollectionDialog)
            hint = str(dialog.query_one("#add-hint", Static).render())
            assert "PDF" in hint and "Word" in hint
            for char in "/tmp/notes":
                await pilot.press(char)
            await pilot.press("tab")
            await pilot.press("shift+tab")
            await pilot.press("2")
            await pilot.pause()
            assert dialog.query_one("#add-path", Input).value == "/tmp/notes2"

    run(scenario())
