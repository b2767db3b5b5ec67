"""The clip dialog offers a folder the person made writable before a library added earlier
(a shared or read-only folder of manuals is not where a clip should land by default)."""

from __future__ import annotations

from tests.tui.tui_helpers import make_app, run, settle, write_note


def test_a_writable_collection_is_offered_first_for_a_clip(tmp_path):
    from pms_tui.core.kb import KnowledgeBase

    library, mine = tmp_path / "library", tmp_path / "mine"
    write_note(library, "manual.md", "# Manual\n\nA shared library.\n")
    write_note(mine, "inbox.md", "# Inbox\n\nMy own notes.\n")
    home = tmp_path / "home"
    with KnowledgeBase(home=home, embedder=None) as kb:
        kb.collections.create(library, name="library")  # added first
        kb.collections.create(mine, name="mine")
        kb.collections.set_writable("mine", True)

    async def scenario():
        app = make_app(home, load_model=False)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(app, pilot)
            assert app.search_screen.clipper.targets() == ["mine", "library"]

    run(scenario())
