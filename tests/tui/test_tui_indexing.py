"""Indexing never gets in the way: searching while a sync embeds, stopping a sync, and an
edit picked up by watch mode with no key pressed."""

from __future__ import annotations

from pathlib import Path

from tests.tui.tui_helpers import make_app, run, synced_home, until, wait_for_model, write_note

WORDS = ("lantern", "harbor", "meadow", "copper", "thistle", "glacier", "saffron", "orchard")


def _big_folder(folder: Path, notes: int = 40) -> None:
    for i in range(notes):
        word = WORDS[i % len(WORDS)]
        body = "\n\n".join(
            f"## Part {j}\n\nNote {i} about the {word} number {i}, paragraph {j}: "
            + " ".join(f"filler{(i * 7 + j * 3 + k) % 97}" for k in range(60))
            for j in range(3)
        )
        write_note(folder, f"n{i:03d}.md", f"# Note {i} {word}\n\n{body}\n")


def _home(tmp_path: Path, watch: bool = False) -> Path:
    from pms_tui.core.kb import KnowledgeBase

    folder = tmp_path / "big"
    _big_folder(folder)
    home = tmp_path / "home"
    with KnowledgeBase(home=home) as kb:
        kb.collections.create(folder, name="big")
    (home / "config.toml").write_text(f"watch = {'true' if watch else 'false'}\n")
    return home


def test_search_while_a_sync_embeds_shows_results_of_the_current_query(tmp_path):
    home = _home(tmp_path)

    async def scenario():
        app = make_app(home)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_for_model(app, pilot)
            screen = app.search_screen
            await pilot.press("ctrl+s")
            assert await until(pilot, lambda: screen.syncer.text_done)  # text in, vectors embedding
            for query in ("lantern", "saffron"):
                for char in query:
                    await pilot.press(char)
                    await pilot.pause(0.01)
                assert await until(pilot, lambda: screen.searcher.shown_query == query and screen.results.hits)
                hits = screen.results.hits
                # while vectors are half in, a passage found by meaning alone may rank among the
                # first (RRF, even first on a tie); every passage the words found is one of the
                # query's notes, so these are the current query's results
                assert all(query in hit.title for hit in hits if hit.bm25_rank is not None)
                assert sum(hit.bm25_rank is not None for hit in hits) >= 3
                assert screen.search_bar.value == query
                await pilot.press("escape")  # clears the query (focus is in the search bar)
            assert screen.syncer.running or app.search_screen.kb.index.vectors_pending == 0
            pending = [h for h in screen.results.hits if h.vector_pending]
            if pending:
                from pms_tui.tui.widgets.results import evidence

                assert "vec …" in evidence(pending[0])
            screen.action_stop_sync()
            await app.wait_for_work()

    run(scenario())


def test_the_stop_key_stops_a_sync_and_the_next_start_carries_on(tmp_path):
    home = _home(tmp_path)

    async def scenario():
        app = make_app(home)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_for_model(app, pilot)
            screen = app.search_screen
            await pilot.press("ctrl+s")
            assert await until(pilot, lambda: screen.syncer.text_done)
            await pilot.press("ctrl+z")
            # stopping cancels the sync's worker at once; its thread finishes the note it is on,
            # then reports: wait for that report, not for the (already cancelled) worker
            assert await until(pilot, lambda: not screen.syncer.running)
            await app.wait_for_work()
            await pilot.pause()
            assert any(n.title == "Sync stopped" for n in app.notified)
            assert screen.kb.stats()["documents"] == 40 and screen.kb.index.vectors_pending > 0
            assert "vectors pending" in str(screen.status.query_one("#status-text").render())

        app = make_app(home)  # started again: the queue drains by itself
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_for_model(app, pilot)
            await app.wait_for_work()
            assert app.search_screen.kb.index.vectors_pending == 0

    run(scenario())


def test_a_watched_edit_is_found_with_no_key_pressed(tmp_path, tui_notes, monkeypatch):
    monkeypatch.setenv("PMS_TUI_WATCH", "true")
    home = synced_home(tmp_path / "home", tui_notes)

    async def scenario():
        app = make_app(home)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_for_model(app, pilot)
            screen = app.search_screen
            assert await until(pilot, lambda: screen.status.status.watch == "watching")
            for char in "pikelet":
                await pilot.press(char)
            assert await until(pilot, lambda: screen.searcher.shown_query == "pikelet")
            assert not any(h.relpath == "cooking/pikelets.md" for h in screen.results.hits)
            write_note(tui_notes, "cooking/pikelets.md", "# Pikelets\n\nA pikelet is a small thick pancake.\n")
            assert await until(pilot, lambda: any(h.relpath == "cooking/pikelets.md" for h in screen.results.hits))
            watcher = next(w for w in app.workers if w.group == "watch")
            screen.syncer.stop_all()  # as on quit: one way to stop it, its worker cancelled
            assert watcher.is_cancelled and watcher.cancelled_event.is_set()

    run(scenario())
