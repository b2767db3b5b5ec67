"""Writing while the person writes: another process appends to the same note (as an editor
saving in place, or a script) while an agent reads its version and writes, many times. Every
line of either side ends in the note: a write made from a version that is no longer the note
is refused (the agent reads again and retries), never merged blindly, never lost."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import pytest

from pms_tui.core.errors import UsageError
from tests.kb_helpers import text_only_kb, write

PERSON = r"""
import os, random, sys, time
path, count = sys.argv[1], int(sys.argv[2])
random.seed(7)
for i in range(count):
    while True:  # for an instant of each write the note's name is the new text's, not yet there:
        try:     # an append then fails, visibly, and is made again (as a person saves again)
            fd = os.open(path, os.O_WRONLY | os.O_APPEND)
            break
        except FileNotFoundError:
            time.sleep(0.001)
    os.write(fd, f"person {i}\n".encode())
    os.close(fd)
    time.sleep(random.random() * 0.004)
"""


def run_race(tmp_path, person_lines: int, agent_lines: int) -> None:
    folder = tmp_path / "notes"
    write(folder, "race.md", "# Race\n\n")
    kb = text_only_kb(tmp_path / "home", folder)
    kb.settings = replace(kb.settings, writes_per_minute=100_000)
    kb.collections.set_writable("notes", True)
    from pms_tui.core.writes.guard import RateLimit

    kb.write._rate = RateLimit(kb.settings)
    person = subprocess.Popen([sys.executable, "-I", "-c", PERSON, str(folder / "race.md"), str(person_lines)])
    refused = 0
    try:
        for i in range(agent_lines):
            for _attempt in range(200):
                version = kb.write.version("notes/race.md")  # the agent's get
                try:
                    kb.write.append("notes/race.md", f"agent {i}", version=version, client="mcp:race")
                    break
                except UsageError as exc:
                    assert "changed since version" in str(exc) or "changed while" in str(exc), exc
                    refused += 1
            else:
                pytest.fail(f"agent line {i} never got written")
    finally:
        assert person.wait(120) == 0
    lines = (folder / "race.md").read_text().split("\n")
    for i in range(person_lines):
        assert lines.count(f"person {i}") == 1, f"person {i} lost or doubled"
    for i in range(agent_lines):
        assert lines.count(f"agent {i}") == 1, f"agent {i} lost or doubled"
    assert sorted(p.name for p in folder.iterdir()) == ["race.md"]  # no temporary file left
    journal = [e for e in kb.write.history(1000) if e.tool == "append"]
    assert len(journal) == agent_lines
    print(f"{agent_lines} agent writes, {person_lines} person writes, {refused} refused and retried")
    kb.close()


def test_no_write_of_either_side_is_lost(tmp_path):
    run_race(tmp_path, person_lines=150, agent_lines=25)


@pytest.mark.slow
def test_no_write_of_either_side_is_lost_over_many_rounds(tmp_path):
    run_race(tmp_path, person_lines=2000, agent_lines=300)


def test_a_note_made_anew_while_a_write_holds_its_name_wins_and_the_version_it_replaced_is_kept(
        tmp_path, monkeypatch):
    """For an instant of a write the note's name is free (its bytes are checked aside). A shell's
    ``>>`` then makes the file anew with its one line: that file wins, the agent's write is
    refused, and the note as it was is kept in the trash under its name, not removed."""
    from pms_tui.core.writes import replace as replace_mod

    folder = tmp_path / "notes"
    write(folder, "race.md", "# Race\n\nthe person's words\n")
    kb = text_only_kb(tmp_path / "home", folder)
    kb.collections.set_writable("notes", True)
    version = kb.write.version("notes/race.md")
    real_link = replace_mod.link_new

    def append_in_the_gap(tmp, target):
        with open(target, "ab") as handle:  # as `echo late >> race.md`, exactly then
            handle.write(b"late\n")
        return real_link(tmp, target)

    monkeypatch.setattr(replace_mod, "link_new", append_in_the_gap)
    with pytest.raises(UsageError):
        kb.write.append("notes/race.md", "agent", version=version, client="mcp:race")
    assert (folder / "race.md").read_text() == "late\n"
    kept = [p for p in (tmp_path / "home" / "trash").rglob("*race.md")]
    assert len(kept) == 1 and kept[0].read_text() == "# Race\n\nthe person's words\n"
    assert sorted(p.name for p in folder.iterdir()) == ["race.md"]
    kb.close()
