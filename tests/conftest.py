"""Shared fixtures: real knowledge bases in temporary homes, with the real offline model."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CORPORA = REPO.parent / "shared" / "corpora"

# Tests never read the developer's own config or index.
os.environ.pop("PMS_TUI_HOME", None)
for key in list(os.environ):
    if key.startswith("PMS_TUI_"):
        os.environ.pop(key)


def write(folder: Path, rel: str, text: str) -> Path:
    path = folder / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


NOTES = {
    "git/undo-commit.md": """
        ---
        title: Undo the last commit
        tags: [git]
        ---
        # Undo the last commit

        ## Keep the changes

        Use a soft reset to move HEAD back one commit while keeping your work staged.

        ```bash
        git reset --soft HEAD~1
        ```

        ## Throw the changes away

        A hard reset discards the commit and the working tree changes.
        """,
    "cooking/bread.md": """
        # Sourdough bread

        Mix flour, water and starter. Let the dough rise overnight, then bake at 250 degrees
        in a dutch oven for forty minutes.
        """,
    "python/asyncio.md": """
        # Python asyncio

        ## Tasks

        Create concurrent coroutines with `asyncio.create_task` and wait for them with
        `asyncio.gather`.

        ## Event loop

        The event loop schedules callbacks and runs coroutines until they complete.
        """,
}


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
