"""Hostile links: cycles, self-links, missing and non-Markdown targets, 100,000 links in one
note, unbalanced brackets, links that try to leave the collection (``..``, absolute paths, a
symlinked folder) and escape sequences in link text. Nothing outside the collection is ever
opened or indexed through a link, the sync finishes, and every answer is one sentence."""

from __future__ import annotations

import json
import os

from tests.faults.faults_helpers import cli, text


def test_hostile_links_never_leave_the_collection(home, notes, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n\nzebrasecret\n")
    os.symlink(outside, notes / "linked")  # a folder link out: not followed, so never a target
    (notes / "A.md").write_text("# A\n\n[[B]] [[A]] [[#A]] [[Missing]] ![[pic.png]] [[doc.pdf]]\n"
                                "[[../../etc/passwd]] [[/etc/passwd]] [[linked/secret]] [[secret]]\n"
                                "[x](../outside/secret.md) [y](/etc/passwd.md) [[C:\\Windows\\win]]\n"
                                "[[unbalanced [[ ]] ]] [[[[x]]]] [[a|b|c]] [[e\x1bc]]\n")
    (notes / "B.md").write_text("# B\n\n[[A]] and back [[B]]\n")  # a cycle and a self-link
    (notes / "many.md").write_text(" ".join(f"[[n{i}]]" for i in range(100_000)) + "\n")
    cli(home, "add", str(notes), "--name", "notes")
    report = json.loads(cli(home, "sync", "--no-embed", "--json").stdout)
    assert sorted(report["added"]) == ["notes/A.md", "notes/B.md", "notes/many.md"]
    assert any("many.md" in s["path"] and "first 10,000 links" in s["reason"] for s in report["skipped"])
    links = json.loads(cli(home, "links", "notes/A.md", "--json").stdout)["links"]
    status = {link["target"]: link["status"] for link in links}
    for target in ("../../etc/passwd", "/etc/passwd", "../outside/secret.md", "/etc/passwd.md", "C:/Windows/win"):
        assert status[target] == "outside", (target, status)
    assert status["linked/secret"] == "dangling" and status["secret"] == "dangling"
    assert status["Missing"] == "dangling" and status["pic.png"] == "file" and status["doc.pdf"] == "file"
    assert status["B"] == "resolved" and status["A"] == "resolved" and status[""] == "resolved"
    assert not any(link["target_path"] and "secret" in link["target_path"] for link in links)
    back = json.loads(cli(home, "backlinks", "A", "--json").stdout)["backlinks"]
    assert {b["source"] for b in back} == {"B.md"}  # the cycle; A's own [[A]] and [[#A]] are not backlinks
    shown = text(cli(home, "links", "notes/A.md").stdout)
    assert "\x1b" not in shown and "^[" in shown  # escape sequences are shown inert
    assert "zebrasecret" not in text(cli(home, "search", "zebrasecret", "--mode", "bm25").stdout)
    many = json.loads(cli(home, "links", "many", "--json").stdout)["links"]
    assert len(many) == 10_000 and all(link["status"] == "dangling" for link in many[:5])
    status_text = text(cli(home, "status").stdout)
    assert "dangling" in status_text and "leaving the folder" in status_text
