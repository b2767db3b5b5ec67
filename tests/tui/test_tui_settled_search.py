"""The app's results, once typing pauses, are the CLI's and MCP's for the same words: the last
word matches as a prefix only while it is typed ("git" must not put a page of github.com
links first once the person stops typing)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tests.mcp_client import McpClient
from tests.tui.tui_helpers import make_app, run, settle, type_query, wait_for_model, write_note

NOTES = {
    "links.md": "# Bookmarks\n\n" + "\n".join(f"- https://github.com/someone/project{i} on github.com" for i in range(40)),
    "git.md": "# Version control\n\nUndo the last commit with git reset, then look at the log.\n",
    "bread.md": "# Bread\n\nFlour, water, salt and a long slow rise overnight.\n",
}


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    from pms_tui.core.kb import KnowledgeBase

    root = tmp_path_factory.mktemp("settled")
    for rel, text in NOTES.items():
        write_note(root / "notes", rel, text)
    with KnowledgeBase(home=root / "home") as kb:
        kb.collections.create(root / "notes", name="notes")
        kb.sync()
    return root / "home"


def _ranks(hits: list[dict]) -> list[tuple]:
    return [(h["chunk_id"], h["bm25_rank"], h["vector_rank"]) for h in hits]


def _cli(home: Path, query: str, k: int) -> list[tuple]:
    proc = subprocess.run([sys.executable, "-m", "pms_tui", "--home", str(home), "search", "--json", "-k", str(k),
                           query], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    data = json.loads(proc.stdout)
    return _ranks(data["hits"] if isinstance(data, dict) else data)


def _app(home: Path, query: str) -> tuple[list[tuple], list[tuple], int]:
    """(the results while typed, the results once typing paused, how many were asked for)."""

    async def go():
        app = make_app(home)
        async with app.run_test(size=(160, 40)) as pilot:
            await wait_for_model(app, pilot)
            screen = app.search_screen
            await type_query(app, pilot, query)
            typed = [(h.chunk_id, h.bm25_rank, h.vector_rank) for h in screen.results.hits]
            assert screen.searcher.shown_typing  # searched as typed: the last word a prefix
            while screen.searcher.settle_pending:
                await pilot.pause(0.05)
            await settle(app, pilot)
            assert not screen.searcher.shown_typing
            settled = [(h.chunk_id, h.bm25_rank, h.vector_rank) for h in screen.results.hits]
            return typed, settled, len(screen.results.hits)

    return run(go())


@pytest.mark.parametrize("query", ["git", "in:nope git"])
def test_settled_results_are_the_cli_and_mcp_results(home, query):
    typed, settled, _ = _app(home, query)
    links = [cid for cid, bm25, _ in typed if bm25 == 1]
    assert links and links != [cid for cid, bm25, _ in settled if bm25 == 1]  # the prefix's first is not the word's
    k = 90  # what the app asks for in its notes view
    assert settled == _cli(home, query, k)[:len(settled)]
    client = McpClient(home)
    try:
        result = client.call("search", {"query": query, "k": k})
        assert not result.is_error, result.content
        assert settled == _ranks(result.structured_content["hits"])[:len(settled)]
    finally:
        client.close()


def test_a_click_in_the_list_settles_the_query_at_once_and_keeps_the_row(home):
    """Clicking a row right after typing: the query is finished; its settled results come at
    once (not a second later, under the person's pointer) and the clicked note stays highlighted."""

    async def go():
        app = make_app(home)
        async with app.run_test(size=(160, 40)) as pilot:
            await wait_for_model(app, pilot)
            screen = app.search_screen
            screen.searcher.settle_seconds = 60  # a pause longer than this test: only the click settles it
            await type_query(app, pilot, "git")
            assert screen.searcher.settle_pending
            await pilot.click("#results", offset=(4, 1))
            assert not screen.searcher.settle_pending
            clicked = screen.results.current
            await settle(app, pilot)
            assert not screen.searcher.shown_typing
            kept = screen.results.current
            if any(h.chunk_id == clicked.chunk_id for h in screen.results.hits):
                assert kept.chunk_id == clicked.chunk_id
            assert screen.reader.hit is not None and screen.reader.hit.chunk_id == kept.chunk_id

    run(go())
