"""Snapshots of the main screens at a fixed size, on fixed notes, cursor blink off.

Regenerate with ``pytest tests/tui --snapshot-update`` and look at the SVGs before committing.
"""

from __future__ import annotations

import pytest
from tests.tui.tui_helpers import make_app, settle, settled, type_query, wait_for_model
from textual.widgets import Input

SIZE = (120, 36)
# Ranking settings pinned, so tuning the engine's defaults does not churn these pictures.
PINNED = "rrf_k = 60\nbm25_weight = 1.0\nvector_weight = 1.0\nlane_depth = 50\ntheme = \"pms-dark\"\n"


@pytest.fixture
def tui_home(tui_home):
    (tui_home / "config.toml").write_text(PINNED, encoding="utf-8")
    return tui_home


async def _ready(pilot) -> None:
    app = pilot.app
    for field in app.query(Input):
        field.cursor_blink = False
    await wait_for_model(app, pilot)


def _search(query: str, *keys: str):
    async def run_before(pilot) -> None:
        await _ready(pilot)
        await type_query(pilot.app, pilot, query)
        await settled(pilot.app, pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot.app, pilot)
        for field in pilot.app.screen.query(Input):
            field.cursor_blink = False

    return run_before


def test_snapshot_results_and_reader(snap_compare, tui_home):
    assert snap_compare(make_app(tui_home), terminal_size=SIZE, run_before=_search("undo the last commit soft reset"))


def test_snapshot_whole_note(snap_compare, tui_home):
    assert snap_compare(make_app(tui_home), terminal_size=SIZE,
                        run_before=_search("files stay staged", "ctrl+r"))


def test_snapshot_help(snap_compare, tui_home):
    assert snap_compare(make_app(tui_home), terminal_size=SIZE, run_before=_search("", "f1"))


def test_snapshot_clip_dialog(snap_compare, tui_home):
    assert snap_compare(make_app(tui_home), terminal_size=SIZE, run_before=_search("pancakes", "ctrl+o"))


def test_snapshot_light_theme(snap_compare, tui_home):
    async def run_before(pilot) -> None:
        pilot.app.set_theme("pms-light")
        await _search("asyncio gather tasks")(pilot)

    assert snap_compare(make_app(tui_home), terminal_size=SIZE, run_before=run_before)
