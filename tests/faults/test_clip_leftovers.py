"""kill -9 during a clip: the temporary file it leaves in the user's folder is removed by a
later sync or clip once it is old enough not to be a running clip's, and nothing else is.

The clip is a real ``pms-tui clip`` process, fetching from the tests' local web server through
trafilatura, killed with SIGKILL while its note is written: the process holds in ``os.fsync``
(the moment between writing the temporary file and moving it into place, milliseconds in a
normal clip), so the kill always lands there."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from tests.faults.faults_helpers import cli, cli_env, tree_hashes
from tests.webserver import web  # noqa: F401 - the fixture is used by name

from pms_tui.core.clip.leftovers import LEFTOVER_AGE, TEMP_PREFIX

# the clip as `pms-tui clip` runs it, held where its temporary file is written
HELD_CLIP = """
import os, sys, time
os.fsync = lambda fd: time.sleep(600)
from pms_tui.cli import main
sys.exit(main(sys.argv[1:]))
"""


def kill_clip_while_writing(home, url: str, folder) -> list[str]:
    proc = subprocess.Popen([sys.executable, "-c", HELD_CLIP, "clip", url, "-c", "notes"],
                            env=cli_env(home), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(1200):
            names = [p.name for p in folder.iterdir() if p.name.startswith(TEMP_PREFIX)]
            if names or proc.poll() is not None:
                break
            time.sleep(0.05)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    return names


def age(path, seconds: float = LEFTOVER_AGE + 60) -> None:
    old = time.time() - seconds
    os.utime(path, (old, old), follow_symlinks=False)


def test_a_killed_clips_temporary_file_is_removed_later_and_nothing_else(tmp_path, web):  # noqa: F811
    home, notes = tmp_path / "home", tmp_path / "notes"
    notes.mkdir()
    (notes / "mine.md").write_text("# Mine\n\nA note of my own.\n")
    cli(home, "add", str(notes), "--name", "notes")
    leftovers = kill_clip_while_writing(home, web.url("/2024/03/lazy-pipelines/"), notes)
    assert len(leftovers) == 1
    leftover = notes / leftovers[0]
    assert sorted(p.name for p in notes.glob("*.md")) == ["mine.md"]  # the clip never landed
    cli(home, "sync")
    assert leftover.exists()  # young: it could be a running clip's
    # look-alikes of the user's, as old: none is the clipper's
    decoys = [".pms-tui-clip-notes.tmp", f"{TEMP_PREFIX}0123456789abcdeg.tmp", "2024-03-01-x.md.0123abcd.tmp",
              ".2024-03-01-x.md.0123abcd.tmp.bak", ".My Note.md.0123abcd.tmp"]
    for name in decoys:
        (notes / name).write_text("keep me\n")
    linked = notes / f"{TEMP_PREFIX}{'ab' * 8}.tmp"
    os.symlink(notes / "mine.md", linked)  # a link with the clipper's name: not a file it wrote
    sub = notes / "sub"
    sub.mkdir()
    (sub / leftovers[0]).write_text("a clip never writes in a subfolder\n")
    for path in [leftover, linked, sub / leftovers[0], *(notes / n for n in decoys)]:
        age(path)
    before = tree_hashes(notes)
    cli(home, "sync")
    assert not leftover.exists()
    assert all((notes / n).exists() for n in decoys) and linked.is_symlink() and (sub / leftovers[0]).exists()
    after = tree_hashes(notes)
    assert after == {k: v for k, v in before.items() if k != leftovers[0]}


def test_a_clip_removes_an_earlier_versions_leftover(tmp_path, web):  # noqa: F811
    home, notes = tmp_path / "home", tmp_path / "notes"
    notes.mkdir()
    cli(home, "add", str(notes), "--name", "notes")
    earlier = notes / ".2024-03-01-lazy-pipelines-in-python.md.0123abcd.tmp"  # how clips were written
    earlier.write_text("---\ntitle: half a clip\n")
    young = notes / f"{TEMP_PREFIX}{'0f' * 8}.tmp"
    young.write_text("a clip running now\n")
    age(earlier)
    cli(home, "clip", web.url("/docs/config.html"), "-c", "notes")
    assert not earlier.exists() and young.exists()
    assert len(list(notes.glob("*.md"))) == 1
