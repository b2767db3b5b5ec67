"""A hostile ``json.py``, ``select.py`` and ``re.py`` in the folder pms-tui is started from (any
Python project holds such names) are never run, by any process of the product: the sync, the
watcher, the app's sync, a one-shot search and the MCP server started as ``mcp install``
writes it; and every document beside the notes is still read."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import sysconfig
import threading
import time
from pathlib import Path

import pytest

from tests.faults.document_files import page_lines, write_text_pdf
from tests.faults.faults_helpers import cli_env

HOSTILE = ("json", "select", "re")


@pytest.fixture
def hostile_folder(tmp_path: Path) -> Path:
    """A working folder whose ``json.py``, ``select.py`` and ``re.py`` each leave a marker file
    (``ran-<name>``) and print when imported."""
    folder = tmp_path / "project"
    folder.mkdir()
    for name in HOSTILE:
        marker = folder / f"ran-{name}"
        (folder / f"{name}.py").write_text(
            f"open({str(marker)!r}, 'w').write('ran')\nprint('HOSTILE {name}.py RAN')\n", encoding="utf-8")
    return folder


def ran(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("ran-*"))


@pytest.fixture
def documents(tmp_path: Path) -> Path:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "plain.md").write_text("# Plain\n\nwombat beside the documents\n", encoding="utf-8")
    write_text_pdf(notes / "first.pdf", [page_lines(1), ["the okapi lives in the first manual"]])
    write_text_pdf(notes / "second.pdf", [["the aardwolf lives in the second manual"]])
    return notes


def script() -> str:
    """The installed ``pms-tui`` console script, as a user runs it."""
    found = Path(sysconfig.get_path("scripts")) / "pms-tui"
    if not found.is_file():
        pytest.skip("no pms-tui console script in this environment")
    return str(found)


def run_script(home: Path, cwd: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    proc = subprocess.run([script(), *args], cwd=cwd, capture_output=True, timeout=timeout, env=cli_env(home))
    err = proc.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err, err
    assert proc.returncode == 0, err
    return proc


def assert_all_read(home: Path, cwd: Path) -> None:
    out = run_script(home, cwd, "search", "okapi OR aardwolf", "--json", "-k", "5").stdout.decode()
    assert "first.pdf" in out and "second.pdf" in out, out
    assert "HOSTILE" not in out


def test_sync_from_a_hostile_folder_runs_none_of_it_and_reads_every_document(home, documents, hostile_folder):
    run_script(home, hostile_folder, "add", str(documents), "--name", "notes")
    proc = run_script(home, hostile_folder, "sync", "--no-embed", "--json")
    assert ran(hostile_folder) == [], proc.stdout.decode()
    report = json.loads(proc.stdout)
    assert [s for s in report["skipped"] if s["path"].endswith(".pdf")] == [], report
    assert_all_read(home, hostile_folder)
    assert ran(hostile_folder) == []  # nor by the one-shot search (its query-vector helper included)


def test_watch_from_a_hostile_folder_reads_a_new_document_without_running_it(home, documents, hostile_folder):
    run_script(home, hostile_folder, "add", str(documents), "--name", "notes")
    proc = subprocess.Popen([script(), "watch", "-q"], cwd=hostile_folder, env=cli_env(home),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out: list[bytes] = []
    err: list[bytes] = []
    readers = [threading.Thread(target=lambda pipe=pipe, into=into: into.extend(iter(pipe.readline, b"")), daemon=True)
               for pipe, into in ((proc.stdout, out), (proc.stderr, err))]
    for reader in readers:
        reader.start()

    def wait_for(what: bytes, where: list[bytes]) -> bool:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and proc.poll() is None:
            if what in b"".join(where).lower():
                return True
            time.sleep(0.2)
        return False

    try:
        assert wait_for(b"watching", err), b"".join(err)
        write_text_pdf(documents / "third.pdf", [["the pangolin lives in the third manual"]])
        assert wait_for(b"third.pdf", out), b"".join(out + err)
    finally:
        proc.terminate()
        proc.wait(60)
        for reader in readers:
            reader.join(10)
    assert b"Traceback" not in b"".join(err), b"".join(err)
    assert b"HOSTILE" not in b"".join(out)
    assert ran(hostile_folder) == []
    found = run_script(home, documents, "search", "pangolin", "--json", "-k", "3").stdout.decode()
    assert "third.pdf" in found, found
    assert_all_read(home, hostile_folder)


def test_the_apps_sync_from_a_hostile_folder_runs_none_of_it(home, documents, hostile_folder, monkeypatch):
    """The app reads documents through the engine's sync, in its own process: started in a
    hostile folder, the readers it starts run none of it."""
    from tests.tui.tui_helpers import make_app, run, settle

    run_script(home, hostile_folder, "add", str(documents), "--name", "notes")
    monkeypatch.setenv("PMS_TUI_WATCH", "false")
    monkeypatch.chdir(hostile_folder)

    async def scenario():
        app = make_app(home)
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.press("ctrl+s")
            await settle(app, pilot)

    run(scenario())
    assert ran(hostile_folder) == []
    assert_all_read(home, hostile_folder)


def test_the_mcp_server_as_installed_from_a_hostile_folder_runs_none_of_it(home, documents, hostile_folder,
                                                                           monkeypatch, tmp_path):
    """Started the way ``mcp install`` writes it when it finds no ``pms-tui`` script (the
    interpreter and ``-m pms_tui``), in the project an agent has open."""
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    from pms_tui.mcp_server import clients

    run_script(home, hostile_folder, "add", str(documents), "--name", "notes")
    no_scripts = tmp_path / "no-scripts"
    no_scripts.mkdir()
    monkeypatch.setattr(clients.sysconfig, "get_path", lambda name, *a, **k: str(no_scripts))
    entry = clients.server_entry(clients.client("cursor"), home, allow_writes=True)
    assert entry["command"] == str(Path(sys.executable).absolute())
    env = {k: v for k, v in os.environ.items() if not k.startswith("PMS_TUI_")}
    params = StdioServerParameters(command=entry["command"], args=entry["args"], env=env, cwd=str(hostile_folder))
    errlog = (tmp_path / "mcp-stderr.log").open("w+")

    async def session() -> str:
        async with Client(stdio_client(params, errlog=errlog)) as client:
            await client.call_tool("sync", {})
            found = await client.call_tool("search", {"query": "okapi OR aardwolf", "k": 5})
            return str(found)

    result = asyncio.run(asyncio.wait_for(session(), 300))
    errlog.close()
    assert ran(hostile_folder) == [], (tmp_path / "mcp-stderr.log").read_text()
    assert "first.pdf" in result and "second.pdf" in result, result


def test_a_python_child_is_started_isolated():
    from pms_tui.core.indexing import python_child

    argv = python_child.command("pms_tui.core.indexing.document_reader", "x")
    assert argv[:4] == [sys.executable, "-I", "-m", "pms_tui.core.indexing.document_reader"]


