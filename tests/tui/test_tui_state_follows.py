"""What the status line says follows the index and the search: counts changed by another
process, a clip under way (and stopped), a query of filters alone; the clip dialog offers the
collection last clipped into (Pilot, real index, a real CLI process, a web server on 127.0.0.1)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from tests.tui.tui_helpers import make_app, run, settle, type_query, until, wait_for_model, write_note
from tests.webserver import LocalWebServer, default_routes

from pms_tui.tui.dialogs.clip import ClipDialog
from pms_tui.tui.widgets.status import StatusText


@pytest.fixture
def web(monkeypatch):
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    site = LocalWebServer().start()
    default_routes(site)
    yield site
    site.stop()


def _words(screen) -> str:
    return str(screen.status.query_one(StatusText).render())


def _cli(home, *args: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "pms_tui", "--home", str(home), *args],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr


def test_counts_follow_a_collection_added_and_synced_by_the_cli(tui_home, tmp_path):
    other = tmp_path / "other"
    for n in range(3):
        write_note(other, f"n{n}.md", f"# Other {n}\n\nA note of another folder, number {n}.\n")

    async def scenario():
        app = make_app(tui_home, load_model=False)
        async with app.run_test(size=(200, 30)) as pilot:
            screen = app.search_screen
            await settle(app, pilot)
            before = screen.counts.documents
            assert f"{before:,} notes" in _words(screen)
            _cli(tui_home, "add", str(other), "--name", "other")
            _cli(tui_home, "sync")
            assert await until(pilot, lambda: screen.counts.documents == before + 3, 20)
            await pilot.pause()
            assert f"{before + 3:,} notes" in _words(screen)
            assert "other" in screen.collection_names  # ctrl+l offers it

    run(scenario())


def test_a_query_of_filters_alone_says_so_beside_a_ready_model(tui_home):
    async def scenario():
        app = make_app(tui_home)
        async with app.run_test(size=(200, 30)) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            await type_query(app, pilot, "title:pancakes")
            words = _words(screen)
            assert screen.results.hits and "model ready" in words
            assert "no model" not in words and "only filters" in words

    run(scenario())


def test_a_clip_shows_where_it_is_and_the_stop_key_stops_it(tui_home, web):
    async def scenario():
        app = make_app(tui_home, load_model=False)
        async with app.run_test(size=(200, 30)) as pilot:
            screen = app.search_screen
            await settle(app, pilot)
            await pilot.press("ctrl+o")
            await pilot.pause()
            app.screen.query_one("#clip-url").value = web.url("/slow")
            await pilot.press("enter")
            assert await until(pilot, lambda: screen.clipping is not None, 10)
            await pilot.pause(1.2)
            assert screen.clipping.seconds >= 1  # it counts while it works
            assert "clipping 127.0.0.1 · " in _words(screen)
            await pilot.press("ctrl+z")
            await pilot.pause()
            assert screen.clipping is None and "clipping" not in _words(screen)
            said = [n.message for n in app.notified]
            assert any(m.startswith("Stopped clipping 127.0.0.1") for m in said), said
            assert not any("No sync is running" in m or "Nothing to stop" in m for m in said)
            await pilot.press("ctrl+z")
            await pilot.pause()
            assert any("Nothing to stop" in n.message for n in app.notified)

    run(scenario())


def test_the_clip_dialog_offers_the_collection_last_clipped_into(tui_home, tmp_path, web):
    from pms_tui.core.kb import KnowledgeBase

    (tmp_path / "aaa").mkdir()
    (tmp_path / "zzz").mkdir()

    async def scenario():
        app = make_app(tui_home, load_model=False)
        async with app.run_test(size=(200, 30)) as pilot:
            await settle(app, pilot)

            async def dialog_default() -> str:
                await pilot.press("ctrl+o")
                await pilot.pause()
                assert isinstance(app.screen, ClipDialog)
                value = str(app.screen.query_one("#clip-collection").value)
                return value

            # a collection added later, first by name, is not offered in its place
            with KnowledgeBase(home=tui_home) as kb:
                kb.collections.create(tmp_path / "aaa", name="aaa")
            assert await dialog_default() == "notes"
            await pilot.press("escape")
            # clipped into zzz: offered next time, also after a restart
            with KnowledgeBase(home=tui_home) as kb:
                kb.collections.create(tmp_path / "zzz", name="zzz")
            await pilot.press("ctrl+o")
            await pilot.pause()
            app.screen.query_one("#clip-url").value = web.url("/2024/03/lazy-pipelines/")
            app.screen.query_one("#clip-collection").value = "zzz"
            await pilot.press("enter")
            await settle(app, pilot)
            assert any(n.title == "Clipped" for n in app.notified), app.notified
            assert await dialog_default() == "zzz"

    run(scenario())


def test_a_search_waiting_for_vectors_runs_again_when_another_process_has_embedded_them(tui_home, tui_notes):
    """Another writer (here a second KnowledgeBase, on its own connection, as the CLI's) indexes
    notes' text, then their vectors: the app's search that went without its vector lane runs
    again by itself once none is pending, and the status line no longer says it waits."""
    import asyncio

    from pms_tui.core.kb import KnowledgeBase
    from pms_tui.core.results import VectorOut

    (tui_home / "config.toml").write_text("watch = false\nvector_min_share = 1.0\n", encoding="utf-8")

    async def scenario():
        app = make_app(tui_home)
        async with app.run_test(size=(200, 30)) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            other = KnowledgeBase(home=tui_home)
            try:
                for n in range(3):
                    write_note(tui_notes, f"lamps/lantern{n}.md", f"# Lantern {n}\n\nA brass lantern, number {n}.\n")
                await asyncio.to_thread(other.sync, embed=False)
                await type_query(app, pilot, "brass lantern ")
                assert screen.answer.vector_out is VectorOut.FILLING_IN
                await asyncio.to_thread(other.index.embed_pending)
                assert await until(pilot, lambda: screen.answer.lanes == ("bm25", "vector"), 30)
                assert "filling in" not in _words(screen)
            finally:
                other.close()

    run(scenario())
