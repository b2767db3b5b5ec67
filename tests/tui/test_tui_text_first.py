"""Every folder's text at once: a folder added (ctrl+n) or a sync asked for (ctrl+s) while a
long embedding runs is searchable by its words while that embedding still has vectors to do."""

from __future__ import annotations

import pytest

from pathlib import Path

from tests.tui.test_tui_actions import add_in_dialog, journal_folder, messages_of
from tests.tui.tui_helpers import make_app, run, until, wait_for_model, write_note


def _long_folder(folder: Path, notes: int) -> None:
    """Notes of three ~700-character sections each: with the real model on two cores, minutes
    of embedding (the test needs seconds of it, and must find its notes while it still runs)."""
    for i in range(notes):
        body = "\n\n".join(
            f"## Part {j}\n\nPassage {j} of note {i}: "
            + " ".join(f"filler{(i * 11 + j * 5 + k) % 211}" for k in range(90))
            for j in range(3)
        )
        write_note(folder, f"long/n{i:04d}.md", f"# Long note {i}\n\n{body}\n")


def _home(tmp_path: Path) -> Path:
    from pms_tui.core.kb import KnowledgeBase

    folder = tmp_path / "big"
    # 2,400 texts: minutes of embedding. Pilot waits for the app to be idle after each key, which
    # it never is while the model embeds, so typing a query here takes tens of seconds: the
    # embedding must outlast that, and the test stops it once it has seen what it needs.
    _long_folder(folder, 800)
    home = tmp_path / "home"
    with KnowledgeBase(home=home) as kb:
        kb.collections.create(folder, name="big")
    (home / "config.toml").write_text("watch = false\n")
    return home


async def _type(pilot, text: str) -> None:
    """Type without waiting for the workers (the sync's would take minutes)."""
    for char in text:
        await pilot.press("space" if char == " " else char)
        await pilot.pause(0.01)


@pytest.mark.slow  # the engine's side runs in every suite (tests/test_text_first.py)
def test_a_folder_added_during_a_long_embedding_is_found_by_its_words_before_it_ends(tmp_path):
    home = _home(tmp_path)
    journal = journal_folder(tmp_path)

    async def scenario():
        app = make_app(home)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_for_model(app, pilot)
            screen = app.search_screen
            await pilot.press("ctrl+s")
            assert await until(pilot, lambda: screen.syncer.text_done)  # the big folder's vectors embed now
            await add_in_dialog(app, pilot, journal, "journal")
            assert await until(pilot, lambda: "journal" in screen.collection_names)
            await _type(pilot, "pasteis")
            assert await until(pilot, lambda: screen.results.hits
                                and screen.results.hits[0].collection == "journal")
            # found while the first folder's embedding still runs, with vectors to do
            assert screen.syncer.running and screen.kb.index.vectors_pending > 0
            assert any("its text is indexed now" in m for m in messages_of(app))
            assert not any("already running" in m for m in messages_of(app))

            # ctrl+s during the embedding: the text of an edit goes in at once too
            write_note(journal, "2025/port.md", "# Porto\n\nFrancesinha in a tiled cafe.\n")
            await pilot.press("ctrl+s")
            await pilot.press("escape")  # clears the query
            await _type(pilot, "francesinha")
            assert await until(pilot, lambda: screen.results.hits
                                and screen.results.hits[0].relpath == "2025/port.md")
            assert screen.syncer.running and screen.kb.index.vectors_pending > 0
            screen.action_stop_sync()
            await app.wait_for_work()

    run(scenario())
