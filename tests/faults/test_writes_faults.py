"""The reliability suite's writing section: a writer killed with SIGKILL at any moment of a
write never leaves a half-written note or loses one (a note it had moved aside is put back by
the next write), what an agent writes reaches no terminal raw (the CLI's history, recent,
show and search print it inert), and a broken journal gives one sentence."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time

import pytest

from pms_tui.core.clip.leftovers import is_leftover_name
from tests.faults.faults_helpers import assert_terminal_safe, cli
from tests.kb_helpers import text_only_kb, write

WRITER = r"""
import sys
from dataclasses import replace
from pms_tui.core.kb import KnowledgeBase
from pms_tui.core.writes.guard import RateLimit
kb = KnowledgeBase(sys.argv[1], embedder=None)
kb.write._rate = RateLimit(replace(kb.settings, writes_per_minute=1_000_000))
i = 0
while True:
    v = kb.write.version("notes/log.md")
    kb.write.append("notes/log.md", f"line {sys.argv[2]}-{i}", version=v, client="kill-test")
    print(f"line {sys.argv[2]}-{i}", flush=True)
    i += 1
"""


def kill_rounds(tmp_path, rounds: int) -> None:
    folder = tmp_path / "notes"
    write(folder, "log.md", "# Log\n\n")
    home = tmp_path / "home"
    kb = text_only_kb(home, folder)
    kb.collections.set_writable("notes", True)
    kb.close()
    confirmed: list[str] = []
    rng = random.Random(3)
    for r in range(rounds):
        proc = subprocess.Popen([sys.executable, "-I", "-c", WRITER, str(home), str(r)], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, cwd=str(tmp_path))
        time.sleep(2.0 + rng.random() * 1.5)
        proc.send_signal(signal.SIGKILL)
        out, err = proc.communicate(30)
        assert b"Traceback" not in err, err.decode()
        confirmed += out.decode().split()
        # every line a write confirmed is in the note (maybe in a note moved aside, put back below)
        from pms_tui.core.kb import KnowledgeBase

        with KnowledgeBase(home, embedder=None) as kb:
            kb.write._recover()
            text = (folder / "log.md").read_text()
        lines = [line.split()[1] if line.startswith("line ") else line for line in text.split("\n")]
        for line in confirmed[1::2]:
            assert line in lines, f"confirmed line {line} lost after kill {r}"
        strays = [p.name for p in folder.iterdir() if p.name != "log.md"]
        assert all(is_leftover_name(name) for name in strays), strays  # a temp file, removed once old
    assert len(confirmed) > rounds  # writes happened between the kills


def test_a_writer_killed_midway_loses_nothing(tmp_path):
    kill_rounds(tmp_path, 3)


@pytest.mark.slow
def test_a_writer_killed_midway_loses_nothing_many_times(tmp_path):
    kill_rounds(tmp_path, 30)


def test_what_an_agent_writes_reaches_no_terminal_raw(tmp_path):
    folder = tmp_path / "notes"
    write(folder, "a.md", "# A\n")
    home = tmp_path / "home"
    kb = text_only_kb(home, folder)
    kb.collections.set_writable("notes", True)
    hostile = "\x1b]52;c;cHduZWQ=\x07 \x1b[2J\x9b31m [red]markup[/red] \u202eevil"
    created = kb.write.create("Hostile title", body=hostile, client="mcp:\x1b[31mclient")
    kb.close()
    for args in (["history"], ["recent", "--since", "1h"], ["show", created.id], ["search", "markup", "--mode", "bm25"],
                 ["history", "--json"]):
        proc = cli(home, *args)
        assert_terminal_safe(proc.stdout, " ".join(args))
        assert b"\xe2\x80\xae" not in proc.stdout  # no bidi override


def test_a_broken_journal_is_one_sentence(tmp_path):
    folder = tmp_path / "notes"
    write(folder, "a.md", "# A\n")
    home = tmp_path / "home"
    kb = text_only_kb(home, folder)
    kb.collections.set_writable("notes", True)
    kb.close()
    (home / "journal.sqlite").write_bytes(b"not a database at all" * 100)
    proc = cli(home, "new", "Title", "--body", "x", "--no-embed", check=False)
    err = proc.stderr.decode()
    assert proc.returncode == 1 and err.count("\n") == 1 and "journal" in err, err
    assert sorted(p.name for p in folder.iterdir()) == ["a.md"]  # nothing written that is not journaled
