"""The status line at 80, 120 and 200 columns: what matters after a search stays visible (the
reason the vector lane is out, "No note matches well", the hits, what of the query was
ignored), nothing runs past the line's end, and the line follows a search's notes while
vectors fill in. The real app, index and model."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from rich.cells import cell_len
from textual.geometry import Region
from textual.widgets import ProgressBar

from pms_tui.core.results import VECTORS_FILLING_IN, VectorOut
from pms_tui.tui.controllers.model import ModelLoader
from pms_tui.tui.widgets.status import Clipping, Progress, StatusText
from tests.tui.tui_helpers import make_app, run, settle, synced_home, type_query, until, wait_for_model, write_note

WIDTHS = (80, 120, 200)
FILLING = f"{VECTORS_FILLING_IN}: 12% of the passages have one (it joins at 80%)"


def shown(app) -> str:
    """The status line's words as drawn on the screen, checked to fit its width."""
    screen = app.search_screen
    words = screen.status.query_one(StatusText)
    drawn = words.render_lines(Region(0, 0, words.outer_size.width, 1))[0].text
    fitted = str(words.render())
    assert cell_len(fitted) <= words.content_size.width  # fitted, so nothing is cropped
    assert drawn.strip() == fitted.strip()
    assert words.region.right <= app.size.width
    bar = screen.status.query_one(ProgressBar)
    if bar.display:
        assert words.region.right <= bar.region.x and bar.region.right <= app.size.width
    return fitted


@pytest.mark.parametrize("width", WIDTHS)
def test_the_status_line_keeps_what_matters_at_every_width(tui_home, width):
    async def scenario():
        app = make_app(tui_home, show_timings=True)
        async with app.run_test(size=(width, 30)) as pilot:
            await wait_for_model(app, pilot)
            screen = app.search_screen
            status = screen.status

            # idle after a search: the hits and the lanes
            await type_query(app, pilot, "undo the last commit")
            text = shown(app)
            hits = screen.status.status.answer.hits
            assert f"{hits} notes" in text and "bm25+vector" in text
            if width >= 120:
                assert "model ready" in text and "mode hybrid" in text and "in all collections" in text

            # a weak match with ignored parts: both said, whatever the width
            await pilot.press(*["backspace"] * len("undo the last commit"))
            await type_query(app, pilot, "zebra quantum after:someday tag:")
            assert status.status.answer.weak and status.status.answer.ignored
            text = shown(app)
            assert "No note matches well" in text and "ignored after:someday" in text
            if width == 200:
                assert status.status.answer.ignored[0] in text  # the reason in full
            else:
                assert "model ready" not in text  # the constant parts went first

            # syncing, the progress bar beside the words
            screen.sync_progress = Progress("embedding", 1204, 3410, rate=21.0, eta=105.0)
            await pilot.pause()
            assert status.query_one(ProgressBar).display
            text = shown(app)
            assert "embedding 1,204/3,410" in text and "No note matches well" in text
            if width == 200:
                assert "1m45s left" in text

            # vectors pending, the vector lane left out and why
            screen.sync_progress = None
            screen.counts = replace(screen.counts, pending=2_222)
            screen.answer = replace(screen.answer, lanes=("bm25",), notes=(FILLING,), weak=False, ignored=(),
                                    vector_out=VectorOut.FILLING_IN)
            await pilot.pause()
            assert not status.query_one(ProgressBar).display
            text = shown(app)
            assert "vectors pending" in text
            assert "bm25 (vectors filling in)" in text or "bm25 (vector joins when more passages are embedded)" in text
            if width >= 120:
                assert "2,222 vectors pending" in text and "vector joins when more passages are embedded" in text

            # resized narrower, the line is fitted again
            await pilot.resize_terminal(60, 30)
            await pilot.pause()
            text = shown(app)
            assert "vectors pending" in text and "(vectors filling in)" in text

    run(scenario())


@pytest.mark.parametrize("width", WIDTHS)
def test_a_failed_model_is_said_first_and_why_the_vector_lane_is_out(tui_home, width):
    async def scenario():
        app = make_app(tui_home, show_timings=True, load_model=False)
        async with app.run_test(size=(width, 30)) as pilot:
            screen = app.search_screen
            await settle(app, pilot)
            screen.model_loader.post_message(ModelLoader.Failed("The bundled embedding model could not be loaded: no such file."))
            await settle(app, pilot)
            assert screen.model_state == "error"
            await type_query(app, pilot, "pancakes")
            text = shown(app)
            assert "error (keywords only)" in text and "bm25 (" in text
            assert ("no model" in text) and f"{screen.status.status.answer.hits} note" in text

    run(scenario())


def test_a_model_mismatch_says_reindex(tmp_path, tui_notes):
    home = synced_home(tmp_path / "home", tui_notes)
    (home / "config.toml").write_text('model = "BAAI/bge-small-en-v1.5"\nwatch = false\n', encoding="utf-8")

    async def scenario():
        app = make_app(home)
        async with app.run_test(size=(80, 30)) as pilot:
            await settle(app, pilot)
            await type_query(app, pilot, "pancakes")
            text = shown(app)
            assert "mismatch: reindex" in text and "bm25 (" in text and "reindex)" in text

    run(scenario())


def test_a_query_in_a_script_the_model_cannot_read_says_so(tui_home):
    async def scenario():
        app = make_app(tui_home)
        async with app.run_test(size=(120, 30)) as pilot:
            await wait_for_model(app, pilot)
            await type_query(app, pilot, "松饼")
            text = shown(app)
            assert "bm25 (" in text and "cannot read this script" in text
            assert "no model" not in text

    run(scenario())


def _big_folder(folder: Path, notes: int = 40) -> None:
    for i in range(notes):
        body = "\n\n".join(f"## Part {j}\n\nNote {i} about the lantern, paragraph {j}: "
                           + " ".join(f"filler{(i * 7 + j * 3 + k) % 97}" for k in range(60)) for j in range(3))
        write_note(folder, f"n{i:03d}.md", f"# Note {i} lantern\n\n{body}\n")


def test_the_status_line_says_the_vector_lane_waits_while_vectors_fill_in(tmp_path):
    from pms_tui.core.kb import KnowledgeBase

    _big_folder(tmp_path / "big")
    home = tmp_path / "home"
    with KnowledgeBase(home=home) as kb:
        kb.collections.create(tmp_path / "big", name="big")
    # the lane joins only once every passage has its vector: no race with a fast machine
    (home / "config.toml").write_text("watch = false\nvector_min_share = 1.0\n", encoding="utf-8")

    async def scenario():
        app = make_app(home)
        async with app.run_test(size=(120, 30)) as pilot:
            await wait_for_model(app, pilot)
            screen = app.search_screen
            await type_query(app, pilot, "lantern")
            assert not screen.results.hits
            await pilot.press("ctrl+s")  # once the text is in, the app searches again, vectors embedding

            def filling() -> bool:
                answer = screen.status.status.answer
                return answer.lanes == ("bm25",) and answer.vector_out is VectorOut.FILLING_IN

            assert await until(pilot, filling)
            assert screen.results.hits and screen.syncer.running
            text = shown(app)
            assert "bm25 (vector" in text and ("filling in" in text or "joins when" in text)

            # the sync ends, the app searches again: both lanes, no reason any more
            assert await until(pilot, lambda: not screen.syncer.running and screen.status.status.answer.lanes
                               == ("bm25", "vector"))
            await settle(app, pilot)
            text = shown(app)
            assert "bm25+vector" in text and "filling in" not in text and "joins when" not in text

    run(scenario())


def test_snapshot_a_weak_match_at_80_columns(snap_compare, tui_home):
    """The whole screen at 80 columns: the status line keeps "No note matches well" and the
    ignored filter, the constant parts gone."""
    from textual.widgets import Input

    (tui_home / "config.toml").write_text('rrf_k = 60\ntheme = "pms-dark"\n', encoding="utf-8")

    async def run_before(pilot) -> None:
        for field in pilot.app.query(Input):
            field.cursor_blink = False
        await wait_for_model(pilot.app, pilot)
        await type_query(pilot.app, pilot, "zebra quantum after:someday")

    assert snap_compare(make_app(tui_home), terminal_size=(80, 24), run_before=run_before)


def test_a_toast_leaves_the_status_line_readable(tui_home):
    # a toast (the welcome, "Synced", an error) used to cover the status line's end for seconds
    from textual.widgets._toast import Toast

    async def scenario():
        app = make_app(tui_home, load_model=False)
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await settle(app, pilot)
            app.notify("Synced: +3 new", timeout=30)
            await pilot.pause(0.3)
            toasts = list(app.screen.query(Toast))
            assert toasts
            status = app.search_screen.status.region
            assert all(not toast.region.overlaps(status) for toast in toasts)

    run(scenario())


def test_the_status_line_follows_the_screens_declared_state(tmp_path: Path):
    """The screen's state is declared once (mode, view, sort, the filter, the sync's and the
    clip's progress): setting it is all it takes, the status line and its progress bar follow."""
    async def scenario():
        app = make_app(tmp_path / "home", load_model=False)
        async with app.run_test(size=(200, 30)) as pilot:
            screen = app.search_screen
            await settle(app, pilot)
            bar = screen.status.query_one(ProgressBar)
            assert not bar.display
            screen.mode, screen.view, screen.sort = "bm25", "passages", "modified"
            screen.sync_progress = Progress("reading", 1, 2)
            screen.clipping = Clipping("example.com")
            await pilot.pause()
            status = screen.status.status
            assert (status.mode, status.view, status.sort, status.clip) == ("bm25", "passages", "modified",
                                                                            Clipping("example.com"))
            assert status.sync == Progress("reading", 1, 2) and bar.display
            assert "mode bm25" in shown(app) and "clipping" in shown(app)
            screen.sync_progress, screen.clipping = None, None
            await pilot.pause()
            assert screen.status.status.sync is None and not screen.status.status.clip and not bar.display

    run(scenario())
