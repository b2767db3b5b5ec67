"""The cross-process writer lock: one writer per home, the pid of the writer in one sentence."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from pms_tui.core.store.writer_lock import WriterBusy, WriterLock

HOLDER = """
import sys, time
from pathlib import Path
from pms_tui.core.store.writer_lock import WriterLock
lock = WriterLock(Path(sys.argv[1]))
lock.acquire()
print("held", flush=True)
time.sleep(600)
"""


def start_holder(home):
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(home)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_a_second_process_is_told_which_pid_writes_and_gets_the_lock_after_kill_9(tmp_path):
    proc = start_holder(tmp_path)
    try:
        lock = WriterLock(tmp_path)
        assert lock.holder() == proc.pid
        with pytest.raises(WriterBusy) as caught:
            lock.acquire(wait=False)
        assert caught.value.pid == proc.pid
        assert f"pid {proc.pid}" in str(caught.value) and str(caught.value).endswith(".")
        with pytest.raises(WriterBusy):
            lock.acquire(wait=0.3)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    lock = WriterLock(tmp_path)
    with lock.hold(wait=5):  # the kernel dropped the dead writer's lock
        assert lock.holder() == os.getpid()
    assert lock.holder() is None


def test_a_waiting_writer_is_told_once_and_proceeds_when_the_first_finishes(tmp_path):
    first, second = WriterLock(tmp_path), WriterLock(tmp_path)  # two KnowledgeBases in one process
    first.acquire()
    told: list = []
    got = threading.Event()

    def wait_turn():
        with second.hold(wait=True, on_wait=told.append):
            got.set()

    thread = threading.Thread(target=wait_turn)
    thread.start()
    while not told:
        time.sleep(0.01)
    assert told == [os.getpid()] and not got.is_set()
    first.release()
    thread.join(10)
    assert got.is_set()


def test_the_same_lock_is_reentrant_in_one_thread_and_cancel_stops_a_wait(tmp_path):
    lock = WriterLock(tmp_path)
    with lock.hold():
        with lock.hold():
            assert lock.held
        assert lock.held
        cancel = threading.Event()
        cancel.set()
        with pytest.raises(WriterBusy):
            WriterLock(tmp_path).acquire(wait=True, cancel=cancel)
    assert not lock.held
