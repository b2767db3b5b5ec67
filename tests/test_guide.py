"""The bundled guide steps aside once the user has notes of their own: out of the default
search scope (the KnowledgeBase decides, for every front end), still there with ``in:guide``
or its collection chosen, removable, and said once (here through the KnowledgeBase and the
CLI as a real process; the app's notice in tests/tui/test_tui_actions.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pms_tui.core.errors import CollectionError
from pms_tui.core.kb import KnowledgeBase
from tests.kb_helpers import write

QUESTION = "sourdough starter feeding schedule"


def _collections(hits) -> set[str]:
    return {h.collection for h in hits}


@pytest.fixture
def guide_home(tmp_path):
    """A home as the app's first run leaves it: the guide, indexed by its words."""
    home = tmp_path / "home"
    with KnowledgeBase(home) as kb:
        kb.scope.add_guide()
        kb.sync(embed=False)
    return home


@pytest.fixture
def own_notes(tmp_path):
    folder = tmp_path / "notes"
    write(folder, "garden.md", "# Garden\n\nWater the tomatoes on a schedule; feed them compost.\n")
    write(folder, "git.md", "# Git\n\nRebase the branch, then push.\n")
    return folder


def test_the_guide_alone_answers(guide_home):
    with KnowledgeBase(guide_home) as kb:
        assert kb.scope.guide_aside() is None and kb.scope.default_ids() is None
        assert kb.search(QUESTION, mode="bm25")[0].relpath == "examples/sourdough.md"
        assert kb.scope.guide_notice() is None


def test_once_the_user_has_notes_the_guide_steps_aside(guide_home, own_notes):
    with KnowledgeBase(guide_home) as kb:
        kb.collections.create(own_notes, name="notes")
        kb.sync(embed=False)
        for mode in ("hybrid", "bm25"):  # hybrid answers by BM25 here: no vectors yet
            assert _collections(kb.search(QUESTION, mode=mode)) <= {"notes"}
        assert _collections(kb.search("tag:guide")) == set()  # filters alone too
        assert _collections(kb.recent()) == {"notes"}
        # asked for: in:guide, or the collection chosen
        hits = kb.search(f"{QUESTION} in:guide", mode="bm25")
        assert hits[0].relpath == "examples/sourdough.md"
        assert kb.search(QUESTION, mode="bm25", collections=["guide"])[0].relpath == "examples/sourdough.md"
        assert _collections(kb.search(f"{QUESTION} in:notes", mode="bm25")) <= {"notes"}
        # a guide note asked about is explained, not filtered out
        assert kb.searcher.explain(QUESTION, "guide/examples/sourdough.md", vector=False).bm25_rank is not None
        # said once, for every front end of the home
        notice = kb.scope.guide_notice()
        assert notice and "in:guide" in notice and "pms-tui remove guide" in notice
        assert kb.scope.guide_notice() is None
    with KnowledgeBase(guide_home) as kb:
        assert kb.scope.guide_notice() is None
        kb.collections.delete("guide")
        assert kb.scope.guide() is None and kb.scope.default_ids() is None
        with pytest.raises(CollectionError, match="already exists"):
            kb.collections.create(own_notes.parent, name="notes")


def _cli(home, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pms_tui", "--home", str(home), *args],
                          capture_output=True, text=True, timeout=120)


def test_cli_says_it_once_and_searches_the_users_notes(guide_home, own_notes, tmp_path):
    added = _cli(guide_home, "add", str(own_notes), "--name", "notes")
    assert added.returncode == 0, added.stderr
    told = [line for line in added.stdout.splitlines() if "guide" in line]
    assert len(told) == 1 and "in:guide" in told[0] and "pms-tui remove guide" in told[0]
    assert _cli(guide_home, "sync", "--no-embed").returncode == 0
    other = tmp_path / "more"
    write(other, "x.md", "# X\n\nMore notes.\n")
    again = _cli(guide_home, "add", str(other), "--name", "more")
    assert again.returncode == 0 and "guide" not in again.stdout  # once only
    found = json.loads(_cli(guide_home, "search", QUESTION, "--mode", "bm25", "--json").stdout)
    assert {h["collection"] for h in found["hits"]} <= {"notes", "more"}
    asked = json.loads(_cli(guide_home, "search", f"{QUESTION} in:guide", "--mode", "bm25", "--json").stdout)
    assert asked["hits"][0]["path"].endswith("examples/sourdough.md")
    listed = _cli(guide_home, "collections").stdout
    assert "searched only when asked: in:guide" in listed
    removed = _cli(guide_home, "remove", "guide")
    assert removed.returncode == 0, removed.stderr
    assert "guide" not in _cli(guide_home, "collections").stdout.split()


def test_related_notes_leave_the_guide_out_once_it_steps_aside(tmp_path):
    folder = tmp_path / "notes"
    write(folder, "bread.md", "# Bread\n\nFeed the sourdough starter with flour and water every day.\n")
    write(folder, "git.md", "# Git\n\nRebase the branch, then push.\n")
    with KnowledgeBase(tmp_path / "home") as kb:
        kb.scope.add_guide()
        kb.collections.create(folder, name="notes")
        kb.sync()
        assert [r.path for r in kb.graph.related("notes/bread.md")] == ["git.md"]
        assert "examples/sourdough.md" in [r.path for r in kb.graph.related("guide/examples/python-asyncio.md")]
