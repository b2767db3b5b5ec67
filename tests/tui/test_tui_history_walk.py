"""Walking the search history with ctrl+up / ctrl+down (Pilot over a real index): the walk is
stable while recalled queries are read, the first step goes to an older query than the one in
the bar, and the history is safe to change while a worker re-runs the saved searches."""

from __future__ import annotations

import threading

from tests.tui.tui_helpers import make_app, run, settle, type_query

from pms_tui.tui.controllers import query as query_controller
from pms_tui.tui.history import History, fingerprint

OLDEST_FIRST = ["pancakes", "asyncio", "reflog", "commit"]


async def read_for_a_while(app, pilot) -> None:
    """Long enough for the read timer (shortened by the test) to fire."""
    await settle(app, pilot)
    await pilot.pause(0.3)
    await settle(app, pilot)


def test_walking_the_history_is_stable_while_recalled_queries_are_read(tui_home, monkeypatch):
    monkeypatch.setattr(query_controller, "READ_SECONDS", 0.05)
    history = History(tui_home)
    for query in OLDEST_FIRST:
        history.add(query)

    async def scenario():
        app = make_app(tui_home, load_model=False)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await settle(app, pilot)
            seen = []
            for _ in range(6):
                await pilot.press("ctrl+up")
                await read_for_a_while(app, pilot)  # a hit highlighted on screen, "read"
                seen.append(screen.search_bar.value)
            assert seen == ["commit", "reflog", "asyncio", "pancakes", "pancakes", "pancakes"]
            back = []
            for _ in range(4):
                await pilot.press("ctrl+down")
                await read_for_a_while(app, pilot)
                back.append(screen.search_bar.value)
            assert back == ["asyncio", "reflog", "commit", ""]
            assert History(tui_home).recent() == list(reversed(OLDEST_FIRST))  # recalling saved nothing

    run(scenario())


def test_the_first_ctrl_up_goes_to_an_older_query_than_the_one_in_the_bar(tui_home):
    history = History(tui_home)
    for query in OLDEST_FIRST:
        history.add(query)

    async def scenario():
        app = make_app(tui_home, load_model=False)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await settle(app, pilot)
            await type_query(app, pilot, "commit")  # the newest in the history, typed again
            await pilot.press("ctrl+up")
            assert screen.search_bar.value == "reflog"
            await pilot.press("ctrl+down")
            assert screen.search_bar.value == "commit"  # the query typed comes back
            await pilot.press("ctrl+up", "ctrl+up")
            assert screen.search_bar.value == "asyncio"
            await pilot.press("ctrl+u")
            await type_query(app, pilot, "git")  # typed over: a new walk from here
            await pilot.press("ctrl+up")
            assert screen.search_bar.value == "commit"

    run(scenario())


def test_a_used_recalled_query_moves_to_the_newest_without_moving_the_walk(tui_home):
    history = History(tui_home)
    for query in OLDEST_FIRST:
        history.add(query)

    async def scenario():
        app = make_app(tui_home, load_model=False)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await settle(app, pilot)
            await pilot.press("ctrl+up", "ctrl+up", "ctrl+up")
            await settle(app, pilot)
            assert screen.search_bar.value == "asyncio"
            await pilot.press("ctrl+y")  # copied: used, so the newest now
            await settle(app, pilot)
            assert History(tui_home).recent()[0] == "asyncio"
            await pilot.press("ctrl+up")
            assert screen.search_bar.value == "pancakes"  # the walk goes on where it was
            await pilot.press("ctrl+down", "ctrl+down")
            assert screen.search_bar.value == "reflog"

    run(scenario())


def test_history_is_safe_while_a_worker_rechecks_the_saved_searches(tmp_path):
    history = History(tmp_path)
    for n in range(40):
        history.save(f"s{n}", f"query {n}", fingerprint([f"a{n}"]))
    failures: list[BaseException] = []
    stop = threading.Event()

    def worker() -> None:
        try:
            while not stop.is_set():
                history.recheck(lambda q: fingerprint([q]))
        except BaseException as exc:  # noqa: BLE001 - what the test looks for
            failures.append(exc)

    thread = threading.Thread(target=worker)
    thread.start()
    try:
        for n in range(300):  # the UI thread saves and deletes meanwhile
            history.save(f"new {n}", f"other {n}")
            history.delete(f"new {n - 1}")
            history.add(f"typed {n}")
    finally:
        stop.set()
        thread.join()
    assert failures == []
    assert "new 299" in History(tmp_path).saved


def test_history_never_keeps_control_characters(tmp_path):
    history = History(tmp_path)
    history.add("\x1b[1;5Alink to a heading\x1b")
    history.add("tab\there\u200b")
    assert all(q.isprintable() for q in History(tmp_path).recent())
    (tmp_path / "history.json").write_text('{"history": ["\\u001b\\u001b", "ok\\u0007"]}', encoding="utf-8")
    assert History(tmp_path).recent() == ["ok"]
