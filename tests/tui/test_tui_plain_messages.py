"""What the app says is the engine's sentence, in plain words: a query with no match is shown as
typed (no Python repr doubling a backslash), and the sync toast counts the skips that stand as
the CLI counts them (``SyncReport.skips``), not only this sync's new ones."""

from __future__ import annotations

from tests.tui.tui_helpers import make_app, run, settled, until, write_note


def test_no_match_shows_the_query_as_typed_and_the_sync_toast_counts_standing_skips(tmp_path):
    from pms_tui.core.kb import KnowledgeBase

    notes = tmp_path / "notes"
    write_note(notes, "a.md", "# Alpha\n\nSome words about alpha.\n")
    (notes / "broken.pdf").write_bytes(b"not a pdf at all\n")
    home = tmp_path / "home"
    with KnowledgeBase(home=home, embedder=None) as kb:
        kb.collections.create(notes, name="notes")
        assert kb.sync(embed=False).skipped  # the broken PDF's skip stands from here on

    async def scenario():
        app = make_app(home, load_model=False)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            for key in ("z", "q", "backslash", "x"):
                await pilot.press(key)
            await settled(app, pilot)
            assert screen.results.empty_message == "No matches for “zq\\x”."
            await pilot.press("ctrl+s")
            assert await until(pilot, lambda: any(n.title == "Sync done" for n in app.notified), 120)
            done = next(n for n in app.notified if n.title == "Sync done")
            assert "1 skipped (as before)" in done.message, done.message

    run(scenario())
