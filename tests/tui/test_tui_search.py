"""Search as you type, the results list and the reader, on a real index (Pilot)."""

from __future__ import annotations

import subprocess
import sys

from tests.tui.tui_helpers import make_app, run, settle, type_query, wait_for_model

from pms_tui.tui.controllers.search_runs import Searcher
from pms_tui.tui.widgets.breadcrumb import Breadcrumb
from pms_tui.tui.widgets.results import evidence


def test_core_never_imports_textual():
    code = ("import pms_tui.core.kb, pms_tui.core.search.retrieval, pms_tui.core.indexing.sync, sys; "
            "assert not any(m.startswith('textual') for m in sys.modules), 'core imported textual'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_typing_shows_ranked_hits_from_both_lanes(tui_home):
    messages = []

    async def scenario():
        app = make_app(tui_home)
        async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            await type_query(app, pilot, "undo the last commit")
            hits = screen.results.hits
            assert hits, "no hits"
            top = hits[0]
            assert top.relpath == "git/undo-commit.md"
            assert top.bm25_rank is not None and top.vector_rank is not None
            assert evidence(top).startswith(f"{top.score:.2f}  bm25 #{top.bm25_rank}")
            assert f"vec #{top.vector_rank}" in evidence(top)
            assert screen.status.status.answer.lanes == ("bm25", "vector")
            assert screen.status.status.answer.hits == len(screen.results.rows)  # one row per note
            # the results came back as the app's own message, for the current query only
            done = [m for m in messages if isinstance(m, Searcher.ResultsReady)]
            assert done[-1].query == "undo the last commit" and done[-1].generation == screen.searcher.search_generation
            # the highlighted row is the top hit and the reader shows it
            assert screen.results.highlighted == 0
            assert screen.reader.hit is not None and screen.reader.hit.chunk_id == top.chunk_id

    run(scenario())


def test_bm25_answers_before_the_model_then_vector_ranks_fill_in(tui_home):
    async def scenario():
        app = make_app(tui_home, load_model=False)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await settle(app, pilot)
            await type_query(app, pilot, "sourdough pancakes breakfast")
            assert screen.results.hits
            assert all(h.vector_rank is None for h in screen.results.hits)
            assert screen.results.hits[0].bm25_rank == 1
            assert screen.status.status.answer.lanes == ("bm25",)
            assert screen.model_state == "loading"
            screen.model_loader.load_model()
            await wait_for_model(app, pilot)
            assert screen.model_state == "ready"
            assert screen.status.status.answer.lanes == ("bm25", "vector")
            assert any(h.vector_rank is not None for h in screen.results.hits)

    run(scenario())


def test_the_word_being_typed_matches_as_a_prefix(tui_home):
    # "panc" is no word of any note: the app finds "pancakes" while it is typed (a script's
    # search of the same text matches whole words and finds nothing)
    async def scenario():
        app = make_app(tui_home, load_model=False)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await settle(app, pilot)
            await type_query(app, pilot, "panc")
            assert [h.relpath for h in screen.results.hits][:1] == ["cooking/pancakes.md"]
            assert not app.kb.search("panc", mode="bm25").hits

    run(scenario())


def test_moving_the_selection_updates_reader_and_breadcrumb(tui_home):
    async def scenario():
        app = make_app(tui_home)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            await type_query(app, pilot, "git reset")
            hits = [row.hit for row in screen.results.rows]  # one row per note, at its best passage
            assert len(hits) >= 2
            first = screen.reader.hit
            assert first.chunk_id == hits[0].chunk_id
            await pilot.press("down")  # from the search bar
            await settle(app, pilot)
            assert app.focused is screen.search_bar
            assert screen.results.highlighted == 1
            assert screen.reader.hit.chunk_id == hits[1].chunk_id
            crumb = str(app.query_one(Breadcrumb).render())
            assert f"{hits[1].collection}/{hits[1].relpath}:{hits[1].start_line}-{hits[1].end_line}" in crumb
            if len(hits[1].heading_path) > 1:
                assert " › ".join(hits[1].heading_path) in crumb
            # j/k when the list has focus
            screen.results.focus()
            await pilot.press("k")
            await settle(app, pilot)
            assert screen.reader.hit.chunk_id == hits[0].chunk_id
            await pilot.press("escape")
            assert app.focused is screen.search_bar

    run(scenario())


def test_breadcrumb_shows_the_heading_path(tui_home):
    async def scenario():
        app = make_app(tui_home)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            await type_query(app, pilot, "soft reset files stay staged")
            hit = screen.reader.hit
            assert hit.relpath == "git/undo-commit.md"
            assert hit.heading_path == ["Git", "Fixing mistakes", "Undo the last commit"]
            crumb = str(app.query_one(Breadcrumb).render())
            assert "Git › Fixing mistakes › Undo the last commit" in crumb
            assert "git/undo-commit.md:17-27" in crumb
            assert "```bash" in screen.reader.markdown.source

    run(scenario())


def test_chunk_and_whole_note_toggle(tui_home):
    async def scenario():
        app = make_app(tui_home)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            await type_query(app, pilot, "soft reset files stay staged")
            hit = screen.reader.hit
            assert hit.relpath == "git/undo-commit.md" and hit.heading_path[-1] == "Undo the last commit"
            assert screen.reader.markdown.source.strip() == hit.text.strip()
            await pilot.press("ctrl+r")
            await settle(app, pilot)
            assert screen.reader.whole_note
            source = screen.reader.markdown.source
            assert source.startswith("# Git") and "### Throw the changes away" in source
            assert "title: Undo the last commit" not in source  # frontmatter is not shown
            marked = [b.source or "" for b in screen.reader.markdown.query(".-match")]
            assert any("Undo the last commit" in s for s in marked)
            assert any("git reset --soft" in s for s in marked)
            assert not any("Throw the changes away" in s or s.startswith("# Git") for s in marked)
            assert "whole note" in str(app.query_one(Breadcrumb).render())
            await pilot.press("ctrl+r")
            await settle(app, pilot)
            assert not screen.reader.whole_note
            assert screen.reader.markdown.source.strip() == hit.text.strip()

    run(scenario())


def test_operator_characters_are_just_text(tui_home):
    async def scenario():
        app = make_app(tui_home)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            screen.search_bar.value = '"AND * NEAR( -:^'
            await settle(app, pilot)
            assert app.is_running
            assert not [n for n in app.notified if n.severity == "error"]
            assert screen.status.status.answer.hits is not None
            screen.search_bar.value = 'git" OR reset*'
            await settle(app, pilot)
            assert not [n for n in app.notified if n.severity == "error"]
            assert screen.results.hits

    run(scenario())


def test_empty_query_shows_recent_notes(tui_home):
    async def scenario():
        app = make_app(tui_home)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            assert screen.results.recent
            assert [h.relpath for h in screen.results.hits] == [
                "git/undo-commit.md", "cooking/pancakes.md", "python/asyncio.md"]
            await type_query(app, pilot, "asyncio")
            assert not screen.results.recent
            await pilot.press("escape")  # clears the query: recent notes again
            await settle(app, pilot)
            assert screen.search_bar.value == "" and screen.results.recent

    run(scenario())


def test_mode_and_collection_filter_cycle(tui_home, tmp_path):
    from tests.tui.tui_helpers import write_note

    from pms_tui.core.kb import KnowledgeBase

    other = tmp_path / "other"
    write_note(other, "gardening.md", "# Tomatoes\n\nWater tomatoes early in the morning.\n")
    with KnowledgeBase(home=tui_home) as kb:
        kb.collections.create(other, name="garden")
        kb.sync()

    async def scenario():
        app = make_app(tui_home)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            await type_query(app, pilot, "tomatoes morning")
            assert {h.collection for h in screen.results.hits} >= {"garden"}
            await pilot.press("ctrl+t")
            await settle(app, pilot)
            assert screen.mode == "bm25" and screen.status.status.answer.lanes == ("bm25",)
            await pilot.press("ctrl+t")
            await settle(app, pilot)
            assert screen.mode == "vector" and screen.status.status.answer.lanes == ("vector",)
            await pilot.press("ctrl+t")
            await settle(app, pilot)
            assert screen.mode == "hybrid"
            await pilot.press("ctrl+l")  # all -> garden (names sorted)
            await settle(app, pilot)
            assert screen.collection_filter == "garden"
            assert {h.collection for h in screen.results.hits} == {"garden"}
            await pilot.press("ctrl+l")
            await settle(app, pilot)
            assert screen.collection_filter == "notes"
            assert {h.collection for h in screen.results.hits} <= {"notes"}
            await pilot.press("ctrl+l")
            await settle(app, pilot)
            assert screen.collection_filter is None

    run(scenario())


def test_a_long_note_is_shown_as_a_window_around_the_chunk_without_cutting_a_fence():
    from pms_tui.tui.note_window import note_window

    lines = ["---", "title: Long", "---", "# Long"]
    for section in range(200):
        lines += ["", f"## Section {section}", "", f"Paragraph {section}.", "```python", *[f"x = {i}" for i in range(6)], "```"]
    text = "\n".join(lines)
    target = lines.index("## Section 150") + 1  # 1-based file line
    window = note_window(text, target, target + 10, budget=200)
    assert window.clipped and window.total_lines == len(lines)
    shown = window.markdown.split("\n")
    assert window.first_line <= target < window.first_line + len(shown)
    assert shown[target - window.first_line] == "## Section 150"
    assert len(shown) < 260 and sum(line.startswith("```") for line in shown) % 2 == 0
    short = note_window("---\na: 1\n---\n# Short\n\ntext\n", 4, 6)
    assert not short.clipped and short.first_line == 4 and short.markdown.startswith("# Short")


def test_window_cut_points_come_from_the_markdown_scanner():
    from pms_tui.tui.note_window import cut_points, note_window

    lines = ["# Title", "", "~~~", "", "# not a heading", "~~~", "", "    indented code", "", "    more", "", "text"]
    points = cut_points(lines)
    assert 0 in points and 2 in points and 6 in points  # heading, fence start, blank after it
    assert not {3, 4} & set(points)  # a blank line and a '#' line inside the tilde fence
    assert 8 not in points  # a blank line inside an indented code block
    crlf = "# A\r\n" + "".join(f"\r\nline {i}\r\n" for i in range(400))
    window = note_window(crlf, 300, 301, budget=100)
    assert window.clipped and "\r" not in window.markdown
    assert window.markdown.split("\n")[300 - window.first_line] == crlf.split("\r\n")[299]
