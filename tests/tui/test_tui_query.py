"""The search language in the app, driven by Pilot over a real index: each filter, the chips
and completion, ignored filters in the status line, notes view, sort, history, saved
searches and the evidence panel."""

from __future__ import annotations

import pytest
from tests.tui.tui_helpers import make_app, run, settle, type_query, wait_for_model, write_note

from pms_tui.core.config import Settings


@pytest.fixture
def query_home(tmp_path, tui_home, tui_notes):
    """The usual notes plus two tagged, dated notes and a second collection."""
    write_note(tui_notes, "git/rebase.md", """
        ---
        tags: [git, history]
        date: 2023-03-01
        ---
        # Rebase

        An interactive rebase rewrites the last commits; squash a commit into another.
        {filler}

        ## Abort

        Abort a rebase that went wrong and every commit is back where it was.
        {filler}
        """.replace("{filler}", "Pick, reword, edit, squash, fixup and drop are the verbs of the todo list. " * 12),
        1_700_000_400)
    write_note(tui_notes, "cooking/bread.md", """
        # Bread

        Bake a commit-free loaf. #baking
        """, 1_700_000_050)
    other = tmp_path / "work"
    write_note(other, "plans.md", "# Plans\n\nCommit to the plan for the next quarter.\n", 1_700_000_500)
    from pms_tui.core.kb import KnowledgeBase

    with KnowledgeBase(home=tui_home) as kb:
        kb.collections.create(other, name="work")
        kb.sync()
    return tui_home


def notes_listed(screen) -> list[str]:
    return [f"{r.hit.collection}/{r.hit.relpath}" for r in screen.results.rows if not r.extra]


@pytest.mark.parametrize("query, expected", [
    ("commit tag:git", {"notes/git/undo-commit.md", "notes/git/rebase.md"}),
    ("commit tag:baking", {"notes/cooking/bread.md"}),
    ("commit path:git/", {"notes/git/undo-commit.md", "notes/git/rebase.md"}),
    ("commit in:work", {"work/plans.md"}),
    ("commit title:rebase", {"notes/git/rebase.md"}),
    ("commit after:2023-11-14 path:git/", {"notes/git/undo-commit.md"}),  # mtime 2023-11-14 (UTC)
    ("commit before:2023-06 -in:work", {"notes/git/rebase.md"}),  # its frontmatter date
    ('"interactive rebase"', {"notes/git/rebase.md"}),
    # the vector lane brings every note the filters allow (there are few)
    ("commit -rebase -in:work", {"notes/git/undo-commit.md", "notes/cooking/bread.md",
                                 "notes/cooking/pancakes.md", "notes/python/asyncio.md"}),
])
def test_each_filter(query_home, query, expected):
    async def scenario():
        app = make_app(query_home)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            await type_query(app, pilot, query)
            assert set(notes_listed(screen)) == expected
            assert screen.chips.chips, "the filters show as chips"

    run(scenario())


def test_chips_ignored_reason_and_completion(query_home):
    async def scenario():
        app = make_app(query_home, load_model=False)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await settle(app, pilot)
            await type_query(app, pilot, "commit tag:git after:someday")
            assert screen.chips.chips == ["tag:git"]
            assert screen.status.status.answer.ignored == ("after:someday is not a date (2024, 2024-05, 2024-05-17, "
                                                    "today, 7d, 2w, 3m, 1y)",)
            await type_query(app, pilot, " in:wo")
            assert screen.search_bar._suggestion == "commit tag:git after:someday in:work"
            await pilot.press("right")  # accept the suggestion
            await settle(app, pilot)
            assert screen.search_bar.value.endswith("in:work")
            assert screen.chips.chips == ["tag:git", "in:work"]
            screen.search_bar.value = "tag:ba"
            await settle(app, pilot)
            assert screen.search_bar._suggestion == "tag:baking"

    run(scenario())


def test_notes_view_expands_and_toggles_and_is_remembered(query_home):
    async def scenario():
        app = make_app(query_home)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            await type_query(app, pilot, "commit rebase abort squash")
            rows = screen.results.rows
            assert screen.view == "notes"
            keys = [r.note for r in rows]
            assert len(keys) == len(set(keys)), "one row per note"
            first = rows[0]
            assert first.hit.relpath == "git/rebase.md" and first.more >= 1
            screen.results.focus()
            await pilot.press("space")  # expand "+N more passages" in place
            await settle(app, pilot)
            assert [r.extra for r in screen.results.rows[: first.more + 1]] == [False] + [True] * first.more
            await pilot.press("space")
            await settle(app, pilot)
            assert not any(r.extra for r in screen.results.rows)
            await pilot.press("f3")  # every passage
            await settle(app, pilot)
            assert screen.view == "passages"
            assert len(screen.results.rows) == len(screen.results.hits)
        app2 = make_app(query_home, load_model=False)
        async with app2.run_test(size=(120, 36)) as pilot:
            await settle(app2, pilot)
            assert app2.search_screen.view == "passages"

    run(scenario())


def test_sort_by_modified(query_home):
    async def scenario():
        app = make_app(query_home)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            await type_query(app, pilot, "commit")
            await pilot.press("f12")
            await settle(app, pilot)
            rows = [r.hit for r in screen.results.rows]
            worded = [h for h in rows if h.bm25_rank is not None]  # the notes holding the word
            assert rows[:len(worded)] == worded and screen.sort == "modified"  # first, then the model's alone
            for group in (worded, rows[len(worded):]):
                times = [h.modified for h in group]
                assert times == sorted(times, reverse=True)
            assert notes_listed(screen)[0] == "work/plans.md"

    run(scenario())


def test_history_keeps_queries_that_were_acted_on(query_home):
    async def scenario():
        app = make_app(query_home, load_model=False)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await settle(app, pilot)
            await type_query(app, pilot, "pancakes")
            await pilot.press("ctrl+y")  # copied: acted on
            await settle(app, pilot)
            screen.search_bar.value = ""
            await type_query(app, pilot, "asyncio")
            screen.remember_query()  # read for a while (the timer's effect, without waiting)
            screen.search_bar.value = ""
            await type_query(app, pilot, "never acted on")
            screen.search_bar.value = ""
            await settle(app, pilot)
            await pilot.press("ctrl+up")
            assert screen.search_bar.value == "asyncio"
            await pilot.press("ctrl+up")
            assert screen.search_bar.value == "pancakes"
            await pilot.press("ctrl+down")
            assert screen.search_bar.value == "asyncio"
            labels = [c[0] for c in screen.palette_commands()]
            assert "History: pancakes" in labels and "History: never acted on" not in labels

    run(scenario())


def test_saved_search_reruns_and_reports_changes_after_sync(query_home, tui_notes):
    async def scenario():
        app = make_app(query_home, load_model=False)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await settle(app, pilot)
            await type_query(app, pilot, "tag:git")
            screen.action_save_search()
            await settle(app, pilot)
            app.screen.query_one("#name-input").value = "git notes"
            await pilot.press("enter")
            await settle(app, pilot)
            assert "git notes" in screen.historian.history.saved
            write_note(tui_notes, "git/stash.md", "---\ntags: [git]\n---\n# Stash\n\nStash work.\n", 1_800_000_000)
            screen.action_sync()
            await settle(app, pilot, rounds=6)
            assert screen.historian.history.saved["git notes"].changed
            labels = [c[0] for c in screen.palette_commands()]
            assert "Saved: git notes (changed)" in labels
            screen.search_bar.value = ""
            screen.run_saved("git notes")
            await settle(app, pilot)
            assert screen.search_bar.value == "tag:git"
            assert "notes/git/stash.md" in notes_listed(screen)
            assert not screen.historian.history.saved["git notes"].changed

    run(scenario())


def test_evidence_panel_and_explain(query_home):
    async def scenario():
        app = make_app(query_home)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            await type_query(app, pilot, "undo commit tag:git")
            await pilot.press("f4")
            await settle(app, pilot)
            text = str(screen.evidence.render())
            k = f"RRF (k: bm25 {Settings.confident_k}, vector {Settings.rrf_k})"
            assert "BM25 #" in text and k in text and "Filters: tag:git" in text
            assert "holds 100% of the query's words" in text  # why this query's k differs
            assert "title:" in text or "body:" in text
            await pilot.press("down")
            await settle(app, pilot)
            second = screen.results.current
            assert f"Why passage #{screen.searcher.last_result.index(second) + 1}: notes/{second.relpath}" in str(
                screen.evidence.render())
            screen.results.focus()
            await pilot.press("e")  # explain the highlighted note
            await settle(app, pilot)
            text = str(screen.evidence.render())
            assert "Explain:" in text and "BM25: best passage #" in text and "Missing words" in text
            await pilot.press("f4")
            assert not screen.evidence.has_class("-shown")

    run(scenario())


def test_explain_any_note_even_one_the_filter_left_out(query_home):
    """The palette's "Explain any note's rank…": a note outside the results, its path completed."""
    async def scenario():
        app = make_app(query_home)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            await type_query(app, pilot, "undo commit tag:git")
            assert "notes/cooking/bread.md" not in notes_listed(screen)
            screen.action_explain_any_note()
            await settle(app, pilot)
            field = app.screen.query_one("#name-input")
            field.value = ""
            await pilot.press(*"notes/cooking/br")
            await pilot.press("right")  # accept the completion
            assert field.value == "notes/cooking/bread.md"
            await pilot.press("enter")
            await settle(app, pilot)
            text = str(screen.evidence.render())
            assert "Explain: notes/cooking/bread.md" in text and "BM25" in text
            screen.results.focus()
            await pilot.press("down")  # another hit: its own evidence again
            await settle(app, pilot)
            text = str(screen.evidence.render())
            assert "Why passage #" in text and "Explain:" not in text

    run(scenario())
