"""Shared fixtures: real knowledge bases in temporary homes, with the real offline model."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kb_helpers import NOTES, write

# Tests never read the developer's own config or index.
os.environ.pop("PMS_TUI_HOME", None)
for key in list(os.environ):
    if key.startswith("PMS_TUI_"):
        os.environ.pop(key)


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
