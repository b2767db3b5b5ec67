"""kill -9 at random moments of sync, reindex and clip: the next run converges to the index an
uninterrupted sync builds, and no note is ever modified."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time

import pytest

from tests.faults.faults_helpers import assert_healthy, cli, cli_env, make_corpus, tree_hashes


def kill_after(home, delay, *args):
    proc = subprocess.Popen([sys.executable, "-m", "pms_tui", *args], env=cli_env(home),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    return proc.returncode == -signal.SIGKILL


def docs_of(facts):
    return facts["docs"]


def reference(tmp_path, notes):
    ref_home = tmp_path / "reference"
    cli(ref_home, "add", str(notes), "--name", "notes")
    cli(ref_home, "sync")
    return docs_of(assert_healthy(ref_home))


@pytest.mark.slow
def test_one_kill_during_sync_converges(tmp_path, home, notes):
    make_corpus(notes, 40, tag="k")
    before = tree_hashes(notes)
    expected = reference(tmp_path, notes)
    cli(home, "add", str(notes), "--name", "notes")
    kill_after(home, 3.0, "sync")
    cli(home, "sync")
    assert docs_of(assert_healthy(home)) == expected
    assert tree_hashes(notes) == before


@pytest.mark.slow
def test_kill_9_loop_over_sync_reindex_and_edits(tmp_path, home, notes):
    rng = random.Random(9)
    make_corpus(notes, 120, tag="k")
    before = tree_hashes(notes)
    cli(home, "add", str(notes), "--name", "notes")
    converged = 0
    trials = 20
    for trial in range(trials):
        if trial % 4 == 3:  # some edits and deletes between trials
            victims = sorted(notes.rglob("*.md"))[trial::17]
            for path in victims[:3]:
                path.write_text(path.read_text() + f"\n\nedited in trial {trial}\n")
            before = tree_hashes(notes)
        command = ("reindex",) if trial % 5 == 4 else ("sync",)
        kill_after(home, rng.uniform(0.3, 8.0), *command)
        cli(home, "sync")
        facts = assert_healthy(home)
        expected_home = tmp_path / f"ref-{trial}"
        cli(expected_home, "add", str(notes), "--name", "notes")
        cli(expected_home, "sync")
        assert docs_of(facts) == docs_of(assert_healthy(expected_home)), trial
        assert tree_hashes(notes) == before
        converged += 1
    print(f"\nkill -9 trials converged: {converged}/{trials}")
