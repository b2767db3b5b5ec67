"""Shared fixtures: real knowledge bases in temporary homes, with the real offline model."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.kb_helpers import NOTES, write

# Tests never read the developer's own config or index.
os.environ.pop("PMS_TUI_HOME", None)
for key in list(os.environ):
    if key.startswith("PMS_TUI_"):
        os.environ.pop(key)


@pytest.fixture(scope="session", autouse=True)
def pilot_idle_checks_every_5_ms():
    """Textual's Pilot waits for the app to go idle after every key press and pause, checking
    the process's CPU time in 20 ms steps (``textual._wait``): typing a 30-letter query sleeps
    over a second. Checking every 5 ms, with the same idle ratio (CPU under 1/20 of the wall
    time), types it in a third of that. The tests still wait for what they check (``settle``,
    ``wait_for_model`` and Pilot's own wait for every pending message).

    Why a private module is patched: Pilot offers no setting for it, and the whole TUI suite
    would take three times as long (pms_tui/tui/textual_seam.py lists it).
    ``tests/tui/test_textual_seam.py`` notices when it stops being needed (Textual's own step
    at 5 ms or less) or stops working (the names gone)."""
    from pms_tui.tui.textual_seam import pilot_idle_step

    with pilot_idle_step(1 / 200):
        yield


@pytest.fixture
def notes_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    for rel, text in NOTES.items():
        write(folder, rel, text)
    return folder


@pytest.fixture
def kb(tmp_path: Path):
    from pms_tui.core.kb import KnowledgeBase

    base = KnowledgeBase(home=tmp_path / "home")
    yield base
    base.close()


@pytest.fixture
def synced_kb(kb, notes_dir):
    kb.collections.create(notes_dir, name="notes")
    kb.sync()
    return kb
