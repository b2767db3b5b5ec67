"""The reader shows the passage the results highlight, also when the index changes under it
(an edit, a sync) right after the highlight moved: the sync's "render the shown note again"
must not put back the passage the reader showed before."""

from __future__ import annotations

from pathlib import Path

from tests.tui.tui_helpers import make_app, run, settle, type_query, write_note


def test_a_refresh_right_after_a_new_highlight_shows_the_highlighted_passage(tmp_path: Path):
    from pms_tui.core.kb import KnowledgeBase

    folder = tmp_path / "notes"
    write_note(folder, "zle.md", "# List Available Zle Keybindings\n\nThe keybindings of zle: bindkey lists them.\n")
    write_note(folder, "pane.md", "# Pane Killer\n\nKill a pane with its keybindings, bindkey style.\n")
    home = tmp_path / "home"
    with KnowledgeBase(home=home) as kb:
        kb.collections.create(folder, name="notes")
        kb.sync(embed=False)

    async def scenario():
        app = make_app(home, load_model=False)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(app, pilot)
            await type_query(app, pilot, "keybindings bindkey")
            screen = app.search_screen
            reader = screen.reader
            hits = list(screen.results.hits)
            assert len({h.relpath for h in hits}) == 2 and reader.hit.chunk_id == hits[0].chunk_id
            other = next(h for h in hits if h.relpath != hits[0].relpath)
            # the results highlight another passage (a search after an edit), and at once the
            # sync that made it asks the reader to render what it shows again
            screen.results.show_hits([other, hits[0]], keep_selection=False)
            screen.show_result(other, screen.searcher.shown_query)  # (what its HitHighlighted does, at once)
            reader.refresh_view()
            await settle(app, pilot)
            assert screen.results.current.chunk_id == other.chunk_id
            assert reader.hit.chunk_id == other.chunk_id, (reader.hit.title, other.title)
            assert other.title in reader.markdown.source or other.text.strip()[:20] in reader.markdown.source
            # the same results again (Escape and the query retyped): still the highlighted one
            screen.results.show_hits([other, hits[0]], keep_selection=True)
            await settle(app, pilot)
            assert reader.hit.chunk_id == other.chunk_id
    run(scenario())
