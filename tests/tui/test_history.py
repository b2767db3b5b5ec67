"""Search history and saved searches (a real file in a temporary home)."""

from __future__ import annotations

from pms_tui.tui.history import MAX_ENTRIES, History, fingerprint


def test_history_keeps_acted_on_queries_once_most_recent_first(tmp_path):
    h = History(tmp_path)
    for q in ["git undo", "rebase", "git  undo ", "", "   "]:
        h.add(q)
    assert h.recent() == ["git undo", "rebase"]
    assert History(tmp_path).recent() == ["git undo", "rebase"]


def test_history_is_bounded(tmp_path):
    h = History(tmp_path)
    for i in range(MAX_ENTRIES + 20):
        h.add(f"q{i}")
    assert len(History(tmp_path).entries) == MAX_ENTRIES


def test_damaged_file_is_empty_history(tmp_path):
    (tmp_path / "history.json").write_bytes(b"\xff{not json")
    h = History(tmp_path)
    assert h.recent() == [] and h.saved == {}
    h.add("x")
    assert History(tmp_path).recent() == ["x"]
    (tmp_path / "history.json").write_text('{"history": [1, "a", null], "saved": {"n": {"query": 3}}}')
    assert History(tmp_path).recent() == ["a"] and History(tmp_path).saved == {}


def test_saved_search_says_when_its_results_changed(tmp_path):
    h = History(tmp_path)
    before = fingerprint(["notes/a.md", "notes/b.md"])
    h.save("git notes", "git tag:git", before)
    assert h.recheck(lambda q: before) == []
    after = fingerprint(["notes/b.md", "notes/a.md"])
    assert h.recheck(lambda q: after) == ["git notes"]
    assert History(tmp_path).saved["git notes"].changed
    h.seen("git notes", after)
    assert h.recheck(lambda q: after) == []
    h.delete("git notes")
    assert History(tmp_path).saved == {}
