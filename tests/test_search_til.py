"""Filters on a real vault (jbranchaud/til, read in place), with hand-checked expectations.

A slice is indexed (the tmux folder, the git notes about commits, one rails note and the
README) to keep the test short. What was checked by hand in the files:
- TIL has no frontmatter tags; its only inline tag outside code is ``#find_or_create_by``,
  in the heading of rails/specify-new-attributes-for-find-or-create-by.md and in the README's
  link text to it. ``[Git](#git)`` in the README is a link target, CSS colours like ``#fff``
  sit in code blocks: neither is a tag, so ``tag:git`` finds nothing.
- No note has a frontmatter date, so ``after:``/``before:`` use each file's modification day.
"""

from __future__ import annotations

import datetime as dt

import pytest

from tests.kb_helpers import CORPORA

TIL = CORPORA / "markdown/jbranchaud-til"
pytestmark = pytest.mark.skipif(not TIL.is_dir(), reason="shared corpora absent")
RAILS = "rails/specify-new-attributes-for-find-or-create-by.md"


@pytest.fixture(scope="module")
def til_kb(tmp_path_factory):
    from pms_tui.core.kb import KnowledgeBase

    only = {f"tmux/{p.name}" for p in (TIL / "tmux").glob("*.md")}
    only |= {f"git/{p.name}" for p in (TIL / "git").glob("*commit*.md")}
    only |= {RAILS, "README.md"}
    kb = KnowledgeBase(home=tmp_path_factory.mktemp("til") / "home")
    kb.collections.create(TIL, name="til")
    kb.sync(only_paths=only)
    yield kb
    kb.close()


def relpaths(result) -> set[str]:
    return {h.relpath for h in result}


def test_path_filter(til_kb):
    for mode in ("hybrid", "bm25", "vector"):
        found = relpaths(til_kb.search("split the window into panes path:tmux/", k=10, mode=mode))
        assert len(found) >= 5 and all(p.startswith("tmux/") for p in found), mode
    found = relpaths(til_kb.search("undo the last commit path:git/", k=10))
    assert found and all(p.startswith("git/") for p in found)
    assert relpaths(til_kb.search("commit -path:git/ path:tmux/ -path:README", k=10)) <= {
        p for p in relpaths(til_kb.search("path:tmux/", k=100))}


def test_tag_filter(til_kb):
    # the README writes "#find_or_create_by" only inside a link's text: a title, not a tag
    assert relpaths(til_kb.search("tag:find_or_create_by", k=10)) == {RAILS}
    assert relpaths(til_kb.search("attributes tag:find_or_create_by -path:README", k=10)) == {RAILS}
    assert list(til_kb.search("tag:git", k=10)) == []
    assert list(til_kb.search("tag:fff", k=10)) == []
    assert "find_or_create_by" in til_kb.searcher.facet_values()["tag"]


def test_date_filters_use_the_file_day(til_kb):
    day = dt.date.fromtimestamp((TIL / RAILS).stat().st_mtime)
    nxt = (day + dt.timedelta(days=1)).isoformat()
    assert RAILS in relpaths(til_kb.search(f"find_or_create_by after:{day.isoformat()}", k=10))
    assert RAILS not in relpaths(til_kb.search(f"find_or_create_by after:{nxt}", k=10))
    assert RAILS in relpaths(til_kb.search(f"find_or_create_by before:{nxt}", k=10))
    assert RAILS not in relpaths(til_kb.search(f"find_or_create_by before:{day.isoformat()}", k=10))
