"""A search whose query is typed over stops (real SQLite, real model) and shows nothing; the
newest query's results always show, with no error (Pilot)."""

from __future__ import annotations

import threading
import time

from tests.tui.tui_helpers import make_app, run, settle, type_query, until, wait_for_model

from pms_tui.core.errors import SearchStopped


def test_a_search_typed_over_stops_and_the_newest_query_shows(tui_home):
    outcomes: list[str] = []

    async def scenario():
        app = make_app(tui_home)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            search = screen.kb.search
            in_flight = threading.Event()

            def held_search(query, *args, stop=None, **kwargs):
                """The real search; the one for "pancakes" waits, in flight, until a newer
                query replaces it (as a slow search on a busy machine would)."""
                if query == "pancakes":
                    in_flight.set()
                    deadline = time.monotonic() + 30
                    while not stop() and time.monotonic() < deadline:
                        time.sleep(0.005)
                try:
                    result = search(query, *args, stop=stop, **kwargs)
                except SearchStopped:
                    outcomes.append(f"stopped {query}")
                    raise
                outcomes.append(f"answered {query}")
                return result

            screen.kb.search = held_search
            await pilot.press(*"pancakes")
            assert await until(pilot, in_flight.is_set, 30)
            await pilot.press("ctrl+u")
            await type_query(app, pilot, "undo the last commit")
            await settle(app, pilot)
            # (on a busy machine the debounce may fire between keys: a prefix's search, stopped
            # or answered, may come between)
            assert outcomes[0] == "stopped pancakes"
            assert outcomes[-1] == "answered undo the last commit"
            assert screen.searcher.searches_stopped == sum(o.startswith("stopped") for o in outcomes)
            assert screen.results.hits and screen.results.hits[0].relpath == "git/undo-commit.md"
            assert screen.status.status.answer.lanes == ("bm25", "vector")
            assert not [n for n in app.notified if n.severity == "error"]
            # the stopped search's connection answers the next search as before
            await pilot.press("ctrl+u")
            await type_query(app, pilot, "pancakes")
            assert outcomes[-1] == "answered pancakes"
            assert screen.results.hits[0].relpath == "cooking/pancakes.md"

    run(scenario())
