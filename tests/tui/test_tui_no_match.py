"""The app says "No note matches well" and dims the nearest results (Pilot)."""

from __future__ import annotations

from tests.tui.tui_helpers import make_app, run, type_query, wait_for_model


def test_a_query_no_note_answers_is_shown_dimmed(tui_home):
    async def scenario():
        app = make_app(tui_home)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            await type_query(app, pilot, "symptoms of vitamin d deficiency")
            assert screen.results.hits  # the nearest, still listed
            assert screen.results.weak and screen.status.status.answer.weak
            assert "No note matches well" in str(screen.status.query_one("#status-text").render())
            for _ in "symptoms of vitamin d deficiency":
                await pilot.press("backspace")
            await type_query(app, pilot, "undo the last commit")
            assert not screen.results.weak and not screen.status.status.answer.weak
            assert "No note matches well" not in str(screen.status.query_one("#status-text").render())

    run(scenario())
