"""Point 5: a notes folder never pulls in files from outside it through a symlink."""

from __future__ import annotations

import json
import os

from tests.faults.faults_helpers import cli, text


def test_links_leaving_the_collection_are_skipped_with_a_reason(home, notes, tmp_path):
    secret = tmp_path / "outside" / "secret.md"
    secret.parent.mkdir()
    secret.write_text("# Secret\n\npasswordzebra lives outside the notes folder\n")
    (notes / "inside.md").write_text("# Inside\n\ninsidezebra text\n")
    os.symlink(secret, notes / "p.md")  # a file link out
    os.symlink(secret.parent, notes / "linked-folder")  # a folder link out
    os.symlink(notes / "inside.md", notes / "alias.md")  # a link that stays inside
    os.symlink("/etc/passwd", notes / "passwd.md")
    os.symlink(notes / "missing.md", notes / "dangling.md")
    os.symlink("loop.md", notes / "loop.md")
    cli(home, "add", str(notes), "--name", "notes")
    report = json.loads(cli(home, "sync", "--json").stdout)
    skipped = {s["path"]: s["reason"] for s in report["skipped"]}
    assert "notes/p.md" in skipped and "outside" in skipped["notes/p.md"], skipped
    assert "notes/passwd.md" in skipped, skipped
    assert not any("secret" in path for path in report["added"])
    assert "notes/alias.md" in report["added"] and "notes/inside.md" in report["added"]
    found = cli(home, "search", "passwordzebra", "--mode", "bm25")
    assert "secret" not in text(found.stdout) and "p.md" not in text(found.stdout)
    assert "root:" not in text(cli(home, "search", "root", "--mode", "bm25").stdout)
    status = text(cli(home, "status").stdout)
    assert "+0 new" in status and "skipped" in status, status  # skipped links are not forever "new"
    assert "outside" not in text(cli(home, "sync").stdout)  # reported once, not at every sync
    listed = text(cli(home, "status", "-v").stdout)
    assert "p.md: a link to a file outside the collection folder" in listed, listed


def test_a_setting_follows_links_for_people_who_link_folders_on_purpose(home, notes, tmp_path):
    shared = tmp_path / "shared-notes"
    shared.mkdir()
    (shared / "linked.md").write_text("# Linked\n\nlinkedwombat on purpose\n")
    os.symlink(shared, notes / "shared")
    home.mkdir()
    (home / "config.toml").write_text("follow_external_links = true\n")
    cli(home, "add", str(notes), "--name", "notes")
    report = json.loads(cli(home, "sync", "--json").stdout)
    assert "notes/shared/linked.md" in report["added"], report
    assert "linkedwombat" in text(cli(home, "search", "linkedwombat", "--mode", "bm25").stdout)
