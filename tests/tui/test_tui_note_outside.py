"""The reader's whole-note view reads a note through the engine's one guarded read: a symlink
swapped in after indexing that leads outside the collection's folder is never shown."""

from __future__ import annotations

from tests.tui.tui_helpers import make_app, run, settle, type_query, wait_for_model

SECRET = "hunter2 lives outside the collection"


def test_whole_note_view_refuses_a_symlink_swapped_in_after_indexing(tui_home, tui_notes, tmp_path):
    secret = tmp_path / "secret.md"
    secret.write_text(f"# Secret\n\n{SECRET}\n", encoding="utf-8")

    async def scenario():
        app = make_app(tui_home)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            await type_query(app, pilot, "soft reset files stay staged")
            assert screen.reader.hit.relpath == "git/undo-commit.md"
            note = tui_notes / "git" / "undo-commit.md"
            note.unlink()
            note.symlink_to(secret)
            await pilot.press("ctrl+r")
            await settle(app, pilot)
            assert screen.reader.whole_note
            source = screen.reader.markdown.source
            assert SECRET not in source
            assert "notes/git/undo-commit.md now leads outside its collection's folder" in source

    run(scenario())
