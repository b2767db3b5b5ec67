"""A search whose hits are huge chunks (parts of a code fence far longer than a screen) shows
its results, and the reader renders a bounded head of the passage, saying what it left out;
copying the chunk still copies all of it (pms_tui/tui/passage.py)."""

from __future__ import annotations

from tests.tui.tui_helpers import make_app, run, settle, type_query, write_note

from pms_tui.tui.passage import MAX_CHARS, MAX_LINES


def test_a_search_whose_hits_are_huge_chunks_shows_them_bounded(tmp_path):
    from pms_tui.core.kb import KnowledgeBase

    folder = tmp_path / "notes"
    fence = "x = compute(y) + 1\n" * 40_000  # 760 KB of one fence: chunks of ~256 KB each
    write_note(folder, "big.md", f"# Big\n\n```python\n{fence}```\n")
    write_note(folder, "small.md", "# Small\n\nA short note that says compute once.\n")
    home = tmp_path / "home"
    with KnowledgeBase(home=home) as kb:
        kb.collections.create(folder, name="notes")
        kb.sync(embed=False)
        big = [c for c in kb.chunks_of("notes", "big.md")]
    assert len(big) >= 2 and max(len(c.text) for c in big) > 200_000  # the case is what it says

    async def go():
        app = make_app(home, load_model=False)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(app, pilot)
            await type_query(app, pilot, "compute")
            screen = app.search_screen
            results = screen.results
            paths = {row.hit.relpath for row in results.rows}
            assert "big.md" in paths  # the huge chunks are listed
            shown = [h for h in results.hits if h.relpath == "big.md"]
            assert shown and all(len(h.text) > 200_000 for h in shown)
            # each row is a few lines whatever the chunk's size
            for i in range(results.option_count):
                assert len(str(results.get_option_at_index(i).prompt).split("\n")) <= 5
            # highlight a big hit: the reader shows its head and says what follows
            index = next(i for i, row in enumerate(results.rows) if row.hit.relpath == "big.md")
            results.focus()
            results.highlighted = results.get_option_index(str(index))
            await settle(app, pilot)
            reader = screen.reader
            assert reader.hit is not None and reader.hit.relpath == "big.md"
            source = reader.source
            assert len(source) < MAX_CHARS + 1_000 and source.count("\n") <= MAX_LINES + 5
            assert "more lines of this passage" in source
            assert "compute" in source
            await pilot.press("ctrl+y")  # copy the chunk: all of it, not the head shown
            await settle(app, pilot)
            assert app.clipboard == reader.hit.text and len(app.clipboard) > 200_000

    run(go())
