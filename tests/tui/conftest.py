"""Fixtures for the terminal UI: a real index of a few fixed notes, synced with the real model."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.tui.tui_helpers import MTIMES, TUI_NOTES, synced_home, write_note


@pytest.fixture
def tui_notes(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    for rel, text in TUI_NOTES.items():
        write_note(folder, rel, text, MTIMES[rel])
    return folder


@pytest.fixture
def tui_home(tmp_path: Path, tui_notes: Path) -> Path:
    """A home whose index holds the notes above as the collection ``notes``, fully synced."""
    return synced_home(tmp_path / "home", tui_notes)


@pytest.fixture(autouse=True)
def no_watching_unless_asked(monkeypatch):
    """Watch mode starts a thread whose status text would make snapshots racy: off in the UI
    tests, except where a test turns it on."""
    monkeypatch.setenv("PMS_TUI_WATCH", "false")
