"""A note an agent changed says so in the reader's header, with the client and the time; the
client's name, which an agent chose, is shown inert."""

from __future__ import annotations

from tests.tui.tui_helpers import make_app, run, type_query, wait_for_model

from pms_tui.tui.widgets.breadcrumb import Breadcrumb


def test_the_reader_marks_a_note_an_agent_changed(tui_home):
    from pms_tui.core.kb import KnowledgeBase

    with KnowledgeBase(home=tui_home) as kb:
        kb.collections.set_writable("notes", True)
        note = "notes/git/undo-commit.md"
        kb.write.append(note, "An agent's line.", version=kb.write.version(note), client="mcp:claude\x1b[31m")

    async def scenario():
        app = make_app(tui_home)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            await type_query(app, pilot, "soft reset files stay staged")
            assert screen.reader.hit.relpath == "git/undo-commit.md"
            crumb = str(app.query_one(Breadcrumb).render())
            assert "changed by mcp:claude" in crumb and "\x1b" not in crumb

    run(scenario())
