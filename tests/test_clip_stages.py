"""Clipping stage by stage: progress the front ends show, a cancel that leaves nothing
half-written, words that are no address refused before any network, and a duplicate told in
each front end's words."""

from __future__ import annotations

import os
import pty
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

from pms_tui.core.errors import ClipError, ClipStopped
from tests.test_cli import run
from tests.webserver import SLOW_DELAY, web  # noqa: F401  (fixture)


def snapshot(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _big_page(sections: int) -> str:
    """A long documentation page: a navigation bar, a sidebar, then many sections of prose,
    lists, tables and code, as a one-page reference manual is."""
    nav = "".join(f"<li><a href='/docs/{i}'>Section {i}</a></li>" for i in range(100))
    body = []
    for i in range(sections):
        body.append(
            f"<section id='s{i}'><h2>Command number {i}</h2>"
            f"<p>The command number {i} reads its input line by line and writes what it keeps; "
            f"its options are described below, with an example for each one of them.</p>"
            f"<ul><li>-a keeps all lines of section {i}</li><li>-n numbers the kept lines</li></ul>"
            f"<table><tr><th>option</th><th>meaning</th></tr><tr><td>-q</td><td>quiet {i}</td></tr></table>"
            f"<pre><code class='language-sh'>command{i} -a -n input.txt</code></pre></section>")
    body.append("<section><h2>Closing words</h2><p>The very last paragraph of the manual, "
                "zephyrquill, must survive the extraction of so large a page.</p></section>")
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>One-page manual</title></head><body>"
            f"<header><nav><ul>{nav}</ul></nav></header><main><article><h1>One-page manual</h1>"
            f"{''.join(body)}</article></main><footer>All rights reserved</footer></body></html>")


@pytest.fixture
def clips(kb, tmp_path):
    folder = tmp_path / "clips"
    folder.mkdir()
    (folder / "mine.md").write_text("# Mine\n\nuntouched\n")
    kb.collections.create(folder, name="clips")
    kb.sync()
    return folder


def test_progress_names_each_stage_in_order(kb, clips, web):  # noqa: F811
    stages: list[tuple[str, int, int]] = []
    result = kb.clipper.clip(web.url("/2024/03/lazy-pipelines/"), "clips",
                     progress=lambda done, total, stage: stages.append((stage, done, total)))
    assert result.status == "created" and not result.stopped
    order = list(dict.fromkeys(stage for stage, _, _ in stages))
    assert order[:4] == ["fetching", "extracting", "writing", "indexing"] and order[-1] == "done"
    assert set(order) <= {"fetching", "extracting", "writing", "indexing", "embedding", "done"}
    fetched = [done for stage, done, _ in stages if stage == "fetching"]
    assert fetched == sorted(fetched) and fetched[-1] == len((web.routes["/2024/03/lazy-pipelines/"]).body)


@pytest.mark.parametrize("stage", ["fetching", "extracting", "writing"])
def test_a_cancel_before_the_note_is_written_writes_nothing(kb, clips, web, stage):  # noqa: F811
    before = snapshot(clips)
    cancel = threading.Event()

    def progress(done, total, now):
        if now == stage:
            cancel.set()

    with pytest.raises(ClipStopped, match="nothing was written"):
        kb.clipper.clip(web.url("/2024/03/lazy-pipelines/"), "clips", progress=progress, cancel=cancel)
    assert snapshot(clips) == before


def test_a_cancel_while_indexing_keeps_the_note_whole_and_sync_finishes_it(kb, clips, web):  # noqa: F811
    cancel = threading.Event()
    result = kb.clipper.clip(web.url("/2024/03/lazy-pipelines/"), "clips", cancel=cancel,
                     progress=lambda done, total, stage: stage == "indexing" and cancel.set())
    assert result.status == "created" and result.stopped
    text = result.path.read_text(encoding="utf-8")
    assert text.startswith("---\n") and "def read_lines(path):" in text
    assert kb.sync().added or kb.search("lazy pipelines read lines", k=1)[0].path == str(result.path)
    assert kb.search("lazy pipelines read lines", k=1)[0].path == str(result.path)


@pytest.mark.slow  # a regression guard of benchmarks/big_clip.py's page (minutes of embedding on a busy machine)
def test_a_big_page_is_clipped_whole(kb, clips, web):  # noqa: F811
    from pms_tui.core.clip.html_to_markdown import FAST_FROM_CHARS

    page = _big_page(2500)
    assert len(page) > FAST_FROM_CHARS  # extracted by trafilatura's own extractor alone
    url = web.add("/manual/one-page", page)
    result = kb.clipper.clip(url, "clips")
    text = result.path.read_text(encoding="utf-8")
    assert "zephyrquill" in text and "Command number 2499" in text and "Section 42" not in text
    assert kb.search("zephyrquill", k=1, mode="bm25")[0].path == str(result.path)


def test_words_that_are_no_address_are_refused_before_any_lookup(kb, clips, monkeypatch):
    looked_up: list[object] = []
    real = socket.getaddrinfo
    monkeypatch.setattr(socket, "getaddrinfo", lambda host, *a, **k: looked_up.append(host) or real(host, *a, **k))
    for words in ("not-a-url", "notes", "1.2.3", "-bad-.org/x"):
        with pytest.raises(ClipError, match="is not a web address"):
            kb.clipper.clip(words, "clips")
    assert looked_up == []


def test_cli_refuses_words_as_an_address_in_one_sentence(tmp_path, web):  # noqa: F811
    home, folder = tmp_path / "home", tmp_path / "clips"
    folder.mkdir()
    run(home, "add", str(folder), "--name", "vault")
    proc = run(home, "clip", "not-a-url", "-c", "vault", check=False)
    assert proc.returncode == 1
    assert proc.stderr == ("pms-tui: not-a-url is not a web address: give one such as "
                           "https://example.org/page.\n")


def test_cli_says_its_own_flag_for_a_page_clipped_again(tmp_path, web):  # noqa: F811
    home, folder = tmp_path / "home", tmp_path / "clips"
    folder.mkdir()
    run(home, "add", str(folder), "--name", "notes")
    url = web.url("/docs/config.html")
    run(home, "clip", url, "-c", "notes")
    again = run(home, "clip", url, "-c", "notes", check=False)
    assert again.returncode == 3
    assert again.stderr.strip().endswith("; run it again with --update to refresh it.")
    assert "update=True" not in again.stderr and "clip it again with update" not in again.stderr
    assert run(home, "clip", url, "-c", "notes", "--update").returncode == 0


def _clip_on_a_terminal(home, url, interrupt_at: str | None = None):
    """``pms-tui clip`` with its stderr on a pseudo-terminal (where the stages are shown), sent
    ctrl+c's SIGINT once a whole line holding ``interrupt_at`` is shown; (exit code, stderr)."""
    import select

    leader, follower = pty.openpty()
    child = subprocess.Popen([sys.executable, "-m", "pms_tui", "--home", str(home), "clip", url, "-c", "notes"],
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=follower)
    os.close(follower)
    shown = b""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.2)
        if ready:
            try:
                data = os.read(leader, 65536)
            except OSError:  # the child closed the terminal
                break
            if not data:
                break
            shown += data
            whole_lines = shown.rpartition(b"\n")[0].splitlines()
            if interrupt_at is not None and any(interrupt_at.encode() in line for line in whole_lines):
                child.send_signal(signal.SIGINT)
                interrupt_at = None
        elif child.poll() is not None:
            break
    child.wait(timeout=60)
    os.close(leader)
    return child.returncode, shown.decode("utf-8", "replace").replace("\r\n", "\n")


def test_cli_shows_the_stages_on_a_terminal(tmp_path, web):  # noqa: F811
    home, folder = tmp_path / "home", tmp_path / "clips"
    folder.mkdir()
    run(home, "add", str(folder), "--name", "notes")
    code, err = _clip_on_a_terminal(home, web.url("/2024/03/lazy-pipelines/"))
    assert code == 0, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines[0].startswith("Fetching http://127.0.0.1:")
    assert lines[1].startswith("Fetched ") and " KB; " in lines[1] and lines[1].endswith("extracting the article…")
    assert lines[2].startswith("Writing the note (") and lines[3] == "Indexing its text…"
    assert "Traceback" not in err


def test_cli_ctrl_c_before_writing_ends_cleanly(tmp_path, web):  # noqa: F811
    home, folder = tmp_path / "home", tmp_path / "clips"
    folder.mkdir()
    run(home, "add", str(folder), "--name", "notes")
    before = snapshot(folder)
    code, err = _clip_on_a_terminal(home, web.url("/slow"), interrupt_at="Fetching")
    assert code == 130, err
    assert err.strip().splitlines()[-1] == "Stopped: nothing was written."
    assert "Traceback" not in err and snapshot(folder) == before


def test_cli_ctrl_c_while_embedding_keeps_the_note_and_says_so(tmp_path, web):  # noqa: F811
    home, folder = tmp_path / "home", tmp_path / "clips"
    folder.mkdir()
    run(home, "add", str(folder), "--name", "notes")
    url = web.add("/manual/embedded", _big_page(600))
    code, err = _clip_on_a_terminal(home, url, interrupt_at="Embedding")
    assert code == 130, err
    assert err.strip().splitlines()[-1] == (
        "Stopped while indexing: the note is saved whole; `pms-tui sync` finishes indexing it.")
    [note] = folder.glob("*.md")
    assert "zephyrquill" in note.read_text(encoding="utf-8") and "Traceback" not in err
    assert "waiting for their vectors" in run(home, "status").stdout
