"""A Chinese or Japanese word typed into the app finds its note (BM25's CJK pairs), Pilot."""

from __future__ import annotations

from tests.tui.tui_helpers import make_app, run, synced_home, type_query, wait_for_model, write_note


def test_a_cjk_query_shows_its_hit(tmp_path, tui_notes):
    write_note(tui_notes, "zh/database.md", "# 数据库索引\n\n为了加快查询速度，我们在数据库中创建索引。\n")
    write_note(tui_notes, "ja/bread.md", "# パン作り\n\nパン生地を一晩発酵させると、風味が良くなります。\n")
    home = synced_home(tmp_path / "home", tui_notes)

    async def scenario():
        app = make_app(home)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            await type_query(app, pilot, "索引")
            hits = screen.results.hits
            assert hits and hits[0].relpath == "zh/database.md"
            assert hits[0].bm25_rank == 1 and "«索引»" in hits[0].snippet
            assert screen.reader.hit is not None and screen.reader.hit.chunk_id == hits[0].chunk_id
            for _ in range(2):
                await pilot.press("backspace")
            await type_query(app, pilot, "発酵")
            assert screen.results.hits[0].relpath == "ja/bread.md"

    run(scenario())
