"""Point 6: two writers on one home never collide; remove during a sync leaves no orphans."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

from tests.faults.faults_helpers import assert_healthy, cli, cli_env, make_corpus, text


def start_sync(home, *args):
    return subprocess.Popen([sys.executable, "-m", "pms_tui", "sync", *args], env=cli_env(home),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def finish(proc):
    out, err = proc.communicate(timeout=900)
    err_text = err.decode("utf-8", "replace")
    assert "Traceback" not in err_text and "UNIQUE" not in err_text and "FOREIGN KEY" not in err_text, err_text
    assert "unexpected" not in err_text.lower(), err_text
    return proc.returncode, out.decode("utf-8", "replace"), err_text


def wait_until_writing(home, proc, seconds=300):
    """Until the sync holds the writer lock (its pid in the lock file)."""
    deadline = time.monotonic() + seconds
    lock = home / "writer.lock"
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if lock.read_text().strip() == str(proc.pid):
                return True
        except OSError:
            pass
        time.sleep(0.02)
    return False


def concurrent_sync_trial(home, notes, tag):
    make_corpus(notes, 20, tag=tag)
    first, second = start_sync(home), start_sync(home)
    results = [finish(first), finish(second)]
    for code, _out, err in results:
        assert code == 0, err
    assert any("pid" in err for _c, _o, err in results) or True  # the waiter may say whom it waits for
    facts = assert_healthy(home)
    assert "+0 new, ~0 modified, -0 deleted" in text(cli(home, "status").stdout)
    return facts


def test_two_syncs_at_once_both_succeed_and_leave_a_clean_index(home, notes):
    cli(home, "add", str(notes), "--name", "notes")
    facts = concurrent_sync_trial(home, notes, "a")
    assert len(facts["docs"]) == 20


def test_remove_during_a_sync_waits_for_it_and_leaves_no_orphans(home, notes, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    make_corpus(notes, 30, tag="r")
    make_corpus(other, 5, tag="o")
    cli(home, "add", str(notes), "--name", "notes")
    cli(home, "add", str(other), "--name", "other")
    proc = start_sync(home)
    assert wait_until_writing(home, proc), "the sync never took the writer lock"
    removed = cli(home, "remove", "notes")
    code, _out, err = finish(proc)
    assert code == 0, err
    assert "Removed collection 'notes'" in text(removed.stdout)
    facts = assert_healthy(home)
    assert {c for c, _p in facts["docs"]} == {"other"}
    cli(home, "sync")
    assert_healthy(home)


def test_a_second_writer_that_cannot_wait_names_the_pid(home, notes):
    """The app does not queue a second sync: it says which process is writing."""
    from pms_tui.core.store.writer_lock import WriterBusy, WriterLock

    make_corpus(notes, 30, tag="p")
    cli(home, "add", str(notes), "--name", "notes")
    proc = start_sync(home)
    try:
        assert wait_until_writing(home, proc)
        with pytest.raises(WriterBusy) as caught:
            WriterLock(home).acquire(wait=False)
        assert f"pid {proc.pid}" in str(caught.value)
    finally:
        proc.send_signal(signal.SIGINT)  # ctrl+c: the sync stops at its next note or embedding run
        code, _out, err = finish(proc)
    assert code == 130 and "Stopped:" in err or code == 0, (code, err)


@pytest.mark.slow
def test_concurrent_writers_many_trials(home, notes, tmp_path):
    cli(home, "add", str(notes), "--name", "notes")
    clean = 0
    for trial in range(10):
        concurrent_sync_trial(home, notes, f"t{trial}-")
        clean += 1
    other = tmp_path / "other"
    other.mkdir()
    for trial in range(5):
        make_corpus(other, 30, tag=f"x{trial}-")
        cli(home, "add", str(other), "--name", "other")
        proc = start_sync(home)
        wait_until_writing(home, proc)
        cli(home, "remove", "other")
        code, _o, err = finish(proc)
        assert code == 0, err
        assert_healthy(home)
        clean += 1
    print(f"\nconcurrent trials clean: {clean}/15")
