"""Sync, clip, add a folder, themes, keys and errors from the keyboard (Pilot, real index)."""

from __future__ import annotations

import pytest
from tests.tui.tui_helpers import make_app, run, settle, type_query, wait_for_model, write_note
from tests.webserver import LocalWebServer, default_routes
from tests.tui.test_tui_status import shown

from pms_tui.core.config import load_state
from pms_tui.tui.dialogs.add_collection import AddCollectionDialog
from pms_tui.tui.dialogs.clip import ClipDialog
from pms_tui.tui.dialogs.help import HelpScreen


def messages_of(app, severity: str | None = None) -> list[str]:
    return [n.message for n in app.notified if severity is None or n.severity == severity]


@pytest.fixture
def web(monkeypatch):
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    site = LocalWebServer().start()
    default_routes(site)
    yield site
    site.stop()


def test_sync_key_indexes_a_new_note_and_it_shows_in_results(tui_home, tui_notes):
    from pms_tui.tui.controllers.sync import Syncer

    messages = []

    async def scenario():
        app = make_app(tui_home)
        async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            await type_query(app, pilot, "quagga")
            assert all(h.bm25_rank is None for h in screen.results.hits)  # only the vector lane's nearest
            write_note(tui_notes, "zoo/quagga.md", "# Quagga\n\nThe quagga is an extinct subspecies of zebra.\n")
            await pilot.press("ctrl+s")
            await settle(app, pilot)
            assert screen.status.status.sync is None
            assert any(isinstance(m, Syncer.Progressed) for m in messages)
            assert any(isinstance(m, Syncer.Finished) for m in messages)
            assert any("+1 new" in m for m in messages_of(app))
            assert [h.relpath for h in screen.results.hits][:1] == ["zoo/quagga.md"]
            assert screen.status.status.counts.documents == 4

    run(scenario())


def test_typing_stays_responsive_during_sync(tui_home, tui_notes):
    for i in range(12):
        write_note(tui_notes, f"bulk/note-{i}.md", f"# Note {i}\n\n" + "Filler text about walruses. " * 40 + "\n")

    async def scenario():
        app = make_app(tui_home)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            await pilot.press("ctrl+s")
            for char in "pancakes":
                await pilot.press(char)
            # the search answered while the sync worker was still going (or just done)
            await settle(app, pilot)
            assert screen.search_bar.value == "pancakes"
            assert screen.results.hits and screen.results.hits[0].relpath == "cooking/pancakes.md"
            assert screen.status.status.counts.documents == 15

    run(scenario())


def test_clip_dialog_clips_from_a_local_server_and_search_finds_it(tui_home, web):
    url = web.url("/2024/03/lazy-pipelines/")

    async def scenario():
        app = make_app(tui_home)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            await pilot.press("ctrl+o")
            await pilot.pause()
            assert isinstance(app.screen, ClipDialog)
            assert app.screen.query_one("#clip-url").value == ""  # clipboard reading is off here
            app.screen.query_one("#clip-url").value = url
            await pilot.press("enter")
            await settle(app, pilot)
            assert not isinstance(app.screen, ClipDialog)
            assert any("Clipped" == n.title for n in app.notified), messages_of(app)
            await type_query(app, pilot, "lazy pipelines generators")
            assert screen.results.hits and screen.results.hits[0].title.startswith("Lazy pipelines")
            # the same page again: a duplicate, and the next ctrl+o offers the update
            await pilot.press("ctrl+o")
            await pilot.pause()
            app.screen.query_one("#clip-url").value = url
            await pilot.press("enter")
            await settle(app, pilot)
            assert any(n.title == "Already clipped" for n in app.notified)
            await pilot.press("ctrl+o")
            await pilot.pause()
            assert app.screen.query_one("#clip-url").value == url
            assert app.screen.query_one("#clip-update").value is True
            await pilot.press("enter")
            await settle(app, pilot)
            clipped = [n.message for n in app.notified if n.title == "Clipped"]
            assert len(clipped) == 2 and clipped[-1].startswith("Refreshed"), messages_of(app)

    run(scenario())


def test_a_failed_clip_is_a_notification_with_the_reason(tui_home, web):
    async def scenario():
        app = make_app(tui_home)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            await pilot.press("ctrl+o")
            await pilot.pause()
            app.screen.query_one("#clip-url").value = web.url("/missing")
            await pilot.press("enter")
            await settle(app, pilot)
            errors = [n for n in app.notified if n.severity == "error"]
            assert errors and errors[-1].title == "Clip failed" and "404" in errors[-1].message
            assert app.is_running

    run(scenario())


def test_clip_dialog_prefills_a_url_from_the_clipboard(tui_home, monkeypatch):
    import pyperclip

    monkeypatch.setattr(pyperclip, "paste", lambda: "https://example.org/article")

    async def scenario():
        app = make_app(tui_home, read_clipboard=True)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            await pilot.press("ctrl+o")
            await settle(app, pilot)
            assert app.screen.query_one("#clip-url").value == "https://example.org/article"
            await pilot.press("escape")
            assert not isinstance(app.screen, ClipDialog)

    run(scenario())


def test_clip_dialog_without_any_clipboard_is_empty_and_quiet(tui_home, monkeypatch):
    import pyperclip

    def no_clipboard():
        raise pyperclip.PyperclipException("no clipboard mechanism")

    monkeypatch.setattr(pyperclip, "paste", no_clipboard)

    async def scenario():
        app = make_app(tui_home, read_clipboard=True)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            await pilot.press("ctrl+o")
            await settle(app, pilot)
            assert app.screen.query_one("#clip-url").value == ""
            assert not messages_of(app, "error")

    run(scenario())


def journal_folder(tmp_path):
    folder = tmp_path / "journal"
    write_note(folder, "2024/trip.md", "# Trip to Lisbon\n\nPasteis de nata by the river.\n")
    return folder


async def add_in_dialog(app, pilot, path, name: str) -> None:
    """ctrl+n, the folder and the name filled in, enter in the name field."""
    await pilot.press("ctrl+n")
    await pilot.pause()
    assert isinstance(app.screen, AddCollectionDialog)
    app.screen.query_one("#add-path").value = str(path)
    app.screen.query_one("#add-name").value = name
    app.screen.query_one("#add-name").focus()
    await pilot.press("enter")


def test_add_collection_dialog_shows_errors_inline_then_adds_and_syncs(tui_home, tmp_path):
    folder = journal_folder(tmp_path)

    async def scenario():
        app = make_app(tui_home)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            await add_in_dialog(app, pilot, tmp_path / "nope", "journal")
            await settle(app, pilot)
            assert isinstance(app.screen, AddCollectionDialog)
            error = str(app.screen.query_one("#add-error").render())
            assert "is not a folder" in error
            app.screen.query_one("#add-path").value = str(folder)
            app.screen.query_one("#add-name").focus()
            await pilot.press("enter")
            await settle(app, pilot)
            assert not isinstance(app.screen, AddCollectionDialog)
            assert "journal" in screen.collection_names
            await type_query(app, pilot, "pasteis lisbon")
            assert screen.results.hits and screen.results.hits[0].collection == "journal"

    run(scenario())


def test_enter_in_the_folder_field_adds_it_under_the_folder_name(tui_home, tmp_path):
    """The border says "enter to add": a path typed and enter is enough (no name needed)."""
    folder = journal_folder(tmp_path)

    async def scenario():
        app = make_app(tui_home)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_for_model(app, pilot)
            await pilot.press("ctrl+n")
            await pilot.pause()
            assert isinstance(app.screen, AddCollectionDialog)
            app.screen.query_one("#add-path").value = str(folder)
            await pilot.press("enter")
            await settle(app, pilot)
            assert not isinstance(app.screen, AddCollectionDialog)
            assert "journal" in app.search_screen.collection_names

    run(scenario())


def test_a_folder_added_while_a_sync_waits_for_another_writer_is_indexed_after_it(tui_home, tmp_path):
    from pms_tui.core.store.writer_lock import WriterLock

    folder = journal_folder(tmp_path)

    async def scenario():
        app = make_app(tui_home)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            other = WriterLock(tui_home)  # another writer: the app's sync waits for it
            other.acquire(wait=False)
            try:
                screen.start_sync()
                await pilot.pause(0.2)
                assert screen.syncer.running
                await add_in_dialog(app, pilot, folder, "journal")
                while "journal" not in screen.collection_names:
                    await pilot.pause(0.05)
                assert screen.syncer.running
                assert any("its text is indexed now" in m for m in messages_of(app))
                assert not any("already running" in m for m in messages_of(app))
            finally:
                other.release()
            await settle(app, pilot)
            await type_query(app, pilot, "pasteis lisbon")
            assert screen.results.hits and screen.results.hits[0].collection == "journal"

    run(scenario())


def test_theme_switch_from_the_palette_is_remembered(tui_home):
    config = "# my settings, by hand\ndebounce_ms = 100  # fast\n"
    (tui_home / "config.toml").write_text(config)

    async def scenario():
        app = make_app(tui_home)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_for_model(app, pilot)
            assert app.theme == "pms-dark"
            await pilot.press("ctrl+p")
            await pilot.pause()
            for char in "theme: pms-light":
                await pilot.press("space" if char == " " else char)
            await pilot.pause(0.3)
            await pilot.press("enter")
            await settle(app, pilot)
            assert app.theme == "pms-light"
        assert load_state(tui_home)["theme"] == "pms-light"  # app state, not configuration
        assert (tui_home / "config.toml").read_text() == config
        again = make_app(tui_home)
        async with again.run_test(size=(120, 36)) as pilot:
            assert again.theme == "pms-light"

    run(scenario())


def test_user_theme_files_are_loaded_and_bad_ones_reported(tui_home):
    themes = tui_home / "themes"
    themes.mkdir()
    (themes / "mine.toml").write_text('name = "mine"\nprimary = "#ff8800"\ndark = true\n')
    (themes / "broken.toml").write_text('name = "broken"\nprimary = "not a colour"\n')

    async def scenario():
        app = make_app(tui_home, load_model=False)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(app, pilot)
            assert "mine" in app.available_themes and "broken" not in app.available_themes
            assert any("broken.toml" in m for m in messages_of(app, "warning"))
            app.set_theme("mine")
            await pilot.pause()
            assert app.theme == "mine"

    run(scenario())


def test_keys_remapped_in_config_work_and_show_in_help(tui_home, tui_notes):
    (tui_home / "config.toml").write_text('[keys]\n"app.sync" = "f5"\n"app.nope" = "f6"\n')

    async def scenario():
        app = make_app(tui_home)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            assert any("app.nope" in m for m in messages_of(app, "warning"))
            await pilot.press("f1")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            rows = {row.binding_id: row.keys for row in app.screen.rows}
            assert rows["app.sync"] == "f5" and rows["app.clip"] == "^o"
            await pilot.press("escape")
            write_note(tui_notes, "new.md", "# Okapi\n\nThe okapi is a forest giraffe.\n")
            await pilot.press("f5")
            await settle(app, pilot)
            assert any("+1 new" in m for m in messages_of(app))

    run(scenario())


def test_copy_and_editor_keys_never_crash(tui_home, monkeypatch):
    monkeypatch.delenv("EDITOR", raising=False)
    monkeypatch.delenv("VISUAL", raising=False)

    async def scenario():
        app = make_app(tui_home)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            await type_query(app, pilot, "asyncio gather")
            hit = screen.reader.hit
            await pilot.press("ctrl+y")
            await settle(app, pilot)
            assert app.clipboard == hit.text
            await pilot.press("ctrl+f")
            await settle(app, pilot)
            assert app.clipboard == hit.path
            await pilot.press("ctrl+g")
            await settle(app, pilot)
            assert any("EDITOR" in m for m in messages_of(app, "warning"))
            assert app.is_running

    run(scenario())


def test_first_run_indexes_the_bundled_guide(tmp_path):
    from pms_tui.tui.sample import sample_dir

    before = sorted(p.name for p in sample_dir().rglob("*"))

    async def scenario():
        app = make_app(tmp_path / "fresh", first_run_sample=True)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await pilot.pause()
            await wait_for_model(app, pilot)
            await settle(app, pilot)
            assert screen.collection_names == ["guide"]
            assert any(n.title == "Welcome to pms-tui" for n in app.notified)
            assert screen.results.recent and screen.results.hits
            await type_query(app, pilot, "how do I remap keys")
            assert screen.results.hits and screen.results.hits[0].collection == "guide"
        assert load_state(tmp_path / "fresh")["sample_added"] is True  # app state, not configuration
        assert not (tmp_path / "fresh" / "config.toml").exists()

    run(scenario())
    assert sorted(p.name for p in sample_dir().rglob("*")) == before  # nothing written into the package


def test_clip_needs_a_collection_of_ones_own(tmp_path):
    async def scenario():
        app = make_app(tmp_path / "fresh", first_run_sample=True)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_for_model(app, pilot)
            await pilot.press("ctrl+o")
            await pilot.pause()
            assert not isinstance(app.screen, ClipDialog)
            assert any("ctrl+n" in m for m in messages_of(app, "warning"))

    run(scenario())


def test_a_damaged_index_is_reported_not_a_traceback(tmp_path):
    home = tmp_path / "bad"
    home.mkdir()
    (home / "index.sqlite").write_bytes(b"this is not a database at all" * 100)

    async def scenario():
        app = make_app(home)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await pilot.pause()
            assert app.kb is None
            assert any("cannot be opened" in m for m in messages_of(app, "error"))
            screen.search_bar.value = "anything"
            await pilot.press("ctrl+s")
            await settle(app, pilot)
            assert app.is_running

    run(scenario())


def test_the_guide_steps_aside_once_the_user_adds_notes(tmp_path):
    """After the first run's guide, a folder of one's own: one notice, then searches answer
    from the user's notes; the guide is there when asked for (in:guide)."""
    folder = journal_folder(tmp_path)
    write_note(folder, "bread.md", "# Bread\n\nBake it on Sundays.\n")

    async def scenario():
        app = make_app(tmp_path / "fresh", first_run_sample=True)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            await settle(app, pilot)
            await type_query(app, pilot, "sourdough starter feeding schedule")
            assert screen.results.hits[0].collection == "guide"  # the guide alone answers
            assert not any("guide now stays out" in n.message for n in app.notified)
            assert "in all collections" in shown(app)
            await add_in_dialog(app, pilot, folder, "journal")
            await settle(app, pilot)
            assert "journal" in screen.collection_names
            told = [n for n in app.notified if "guide now stays out" in n.message]
            assert len(told) == 1 and "in:guide" in told[0].message
            assert "in all but guide" in shown(app)  # the status line says where it searches
            screen.search_bar.value = ""
            await type_query(app, pilot, "sourdough starter feeding schedule")
            assert {h.collection for h in screen.results.hits} <= {"journal"}
            screen.search_bar.value = ""
            await type_query(app, pilot, "sourdough starter in:guide")
            assert screen.results.hits and screen.results.hits[0].collection == "guide"
            screen.refresh_collections()  # again (a folder removed, another added): not said twice
            assert len([n for n in app.notified if "guide now stays out" in n.message]) == 1

    run(scenario())
