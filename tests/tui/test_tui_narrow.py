"""At 80x24: the title gets the room in a result row, the footer shows whole keys, and with
the links panel and the evidence panel open the results stay in view (Pilot, snapshots)."""

from __future__ import annotations

from rich.cells import cell_len
from tests.tui.tui_helpers import make_app, run, settle, settled, type_query, wait_for_model
from textual.widgets import Input

from pms_tui.core.results import Hit
from pms_tui.tui.widgets.results import hit_row

SIZE = (80, 24)
PINNED = "rrf_k = 60\nbm25_weight = 1.0\nvector_weight = 1.0\nlane_depth = 50\ntheme = \"pms-dark\"\n"


def _hit(title: str) -> Hit:
    return Hit(chunk_id=1, collection="notes", relpath="git/undo.md", path="/n/git/undo.md", title=title,
               heading_path=[title], start_line=1, end_line=9, snippet="a snippet", text="a snippet",
               score=0.87, rrf=0.03, bm25_rank=2, vector_rank=14)


def test_a_narrow_row_gives_its_title_the_room():
    title = "Quicker Commit Fixes With The Fixup Flag"
    first = hit_row(_hit(title), 38, recent=False).split("\n")[0].plain
    shown = first.split("  ")[0].rstrip("… ")
    assert cell_len(shown) >= 20 and title.startswith(shown)  # was 11 beside "0.87  bm25 #2  vec #14"
    assert first.rstrip().endswith("0.87 b#2 v#14")
    wide = hit_row(_hit(title), 90, recent=False).split("\n")[0].plain
    assert title in wide and wide.rstrip().endswith("0.87  bm25 #2  vec #14")


def test_the_footer_shows_only_whole_keys_at_80_columns(tui_home):
    async def scenario():
        app = make_app(tui_home, load_model=False)
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            await pilot.pause(0.2)
            keys = [w for w in app.screen.query("FooterKey")]
            palette = [k for k in keys if k.has_class("-command-palette")]
            shown = [k for k in keys if k not in palette]
            assert palette and shown and shown[0].description == "Help"
            for key in shown:  # each whole, none under the palette's key
                assert key.region.right <= palette[0].region.x, key.description
                assert key.region.width >= cell_len(key.key_display) + cell_len(key.description) + 1

    run(scenario())


def test_links_and_evidence_open_at_80x24_keep_the_results(tui_home):
    async def scenario():
        app = make_app(tui_home, load_model=False)
        async with app.run_test(size=SIZE) as pilot:
            screen = app.search_screen
            await type_query(app, pilot, "undo the last commit")
            await settled(app, pilot)
            await pilot.press("f6")
            await settle(app, pilot)
            await pilot.press("f4")
            await settle(app, pilot)
            assert screen.links_panel.display and screen.evidence.display
            results = screen.results
            assert results.display and results.region.height >= 5 and results.region.width >= 40
            assert screen.links_panel.region.width > 0

    run(scenario())


def test_snapshot_links_and_evidence_at_80x24(snap_compare, tui_home):
    (tui_home / "config.toml").write_text(PINNED, encoding="utf-8")

    async def run_before(pilot) -> None:
        for field in pilot.app.query(Input):
            field.cursor_blink = False
        await wait_for_model(pilot.app, pilot)
        await type_query(pilot.app, pilot, "undo the last commit")
        await settled(pilot.app, pilot)
        for key in ("f6", "f4"):
            await pilot.press(key)
            await settle(pilot.app, pilot)

    assert snap_compare(make_app(tui_home), terminal_size=SIZE, run_before=run_before)


def test_snapshot_results_at_80x24(snap_compare, tui_home):
    (tui_home / "config.toml").write_text(PINNED, encoding="utf-8")

    async def run_before(pilot) -> None:
        for field in pilot.app.query(Input):
            field.cursor_blink = False
        await wait_for_model(pilot.app, pilot)
        await type_query(pilot.app, pilot, "undo the last commit soft reset")
        await settled(pilot.app, pilot)

    assert snap_compare(make_app(tui_home), terminal_size=SIZE, run_before=run_before)
