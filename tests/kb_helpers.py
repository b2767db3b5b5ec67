"""Test data and helpers shared by the core tests (``from tests.kb_helpers import ...``; tests/tui has its own)."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# beside the repository, or where PMS_TUI_CORPORA says (as benchmarks/corpora.py; read before conftest clears PMS_TUI_*)
CORPORA = Path(os.environ.get("PMS_TUI_CORPORA") or REPO.parent / "shared" / "corpora")


def write(folder: Path, rel: str, text: str) -> Path:
    path = folder / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def text_only_kb(home: Path, folder: Path, name: str = "notes"):
    """A KnowledgeBase holding ``folder`` as one collection, synced by its words only (no model)."""
    from pms_tui.core.kb import KnowledgeBase

    kb = KnowledgeBase(home, embedder=None)
    kb.collections.create(folder, name=name)
    kb.sync(embed=False)
    return kb


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


def home_with_4_kb_pages(home: Path) -> Path:
    """A home whose index file was made with 4 KB pages (as before 8 KB pages were chosen)."""
    import sqlean

    home.mkdir(parents=True)
    conn = sqlean.connect(str(home / "index.sqlite"), isolation_level=None)
    conn.execute("PRAGMA page_size = 4096")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.close()
    return home
