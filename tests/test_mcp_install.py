"""``pms-tui mcp install CLIENT`` and ``uninstall``, against config files of each client in a
temporary folder: the entry runs this install with its home, the change is shown first and a
dry run writes nothing, other servers and keys are untouched, a backup is kept, a second
install changes nothing, uninstall gives the file back, and a config that is not JSON (or a
foreign server under our name) is refused and left as it was. Then the real command with
HOME in a temporary folder: each client's own location, doctor's listing, and the written
entry starting a server the SDK's client talks to."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pms_tui.cli import main
from pms_tui.mcp_server.clients import BACKUP_SUFFIX, CLIENTS

OTHER = {"command": "npx", "args": ["-y", "@example/other-server"], "env": {"TOKEN": "secret-value"}}


JSON_CLIENTS = [key for key, c in CLIENTS.items() if not c.toml]


def _argv(entry: dict) -> list:
    """The program and its arguments (opencode's entry holds both in its command)."""
    command = entry["command"]
    return command if isinstance(command, list) else [command, *entry.get("args", [])]


def _servers_key(client: str) -> str:
    return CLIENTS[client].servers_key


def _original(client: str) -> str:
    """A config as the client leaves it: another server, other settings, indented by two."""
    data = {"theme": "dark", "numStartups": 12, _servers_key(client): {"other": OTHER}, "zeta": [1, "ü"]}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(params=JSON_CLIENTS)
def client(request) -> str:
    return request.param


def test_install_adds_the_entry_and_keeps_the_rest(tmp_path, capsys, client):
    config, home = tmp_path / "config.json", tmp_path / "home"
    config.write_text(_original(client), encoding="utf-8")
    code, out, _ = _run(capsys, "--home", str(home), "mcp", "install", client, "--config", str(config))
    assert code == 0
    data = json.loads(config.read_text(encoding="utf-8"))
    servers = data[_servers_key(client)]
    assert set(servers) == {"other", "pms-tui"} and servers["other"] == OTHER
    assert {k: v for k, v in data.items() if k != _servers_key(client)} == {
        "theme": "dark", "numStartups": 12, "zeta": [1, "ü"]}
    entry = servers["pms-tui"]
    assert Path(_argv(entry)[0]).is_absolute() and Path(_argv(entry)[0]).is_file()
    assert _argv(entry)[-3:] == ["--home", str(home.absolute()), "mcp"]
    assert entry.get("type") == {"claude-code": "stdio", "vscode": "stdio", "opencode": "local"}.get(client)
    # the change was shown, then made; the file as it was is the backup
    assert '+    "pms-tui": {' in out and "Written" in out
    assert (tmp_path / ("config.json" + BACKUP_SUFFIX)).read_text(encoding="utf-8") == _original(client)
    assert "secret-value" not in out  # no context lines: another server's env is not printed

    written = config.read_bytes()
    code, out, _ = _run(capsys, "--home", str(home), "mcp", "install", client, "--config", str(config))
    assert code == 0 and "nothing to change" in out and config.read_bytes() == written


def test_dry_run_shows_the_change_and_writes_nothing(tmp_path, capsys, client):
    config = tmp_path / "config.json"
    config.write_text(_original(client), encoding="utf-8")
    code, out, _ = _run(capsys, "--home", str(tmp_path / "home"), "mcp", "install", client, "--dry-run",
                        "--config", str(config))
    assert code == 0 and '+    "pms-tui": {' in out and "Dry run: nothing was written." in out
    assert config.read_text(encoding="utf-8") == _original(client)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.json"]
    missing = tmp_path / "new" / "mcp.json"
    code, out, _ = _run(capsys, "mcp", "install", client, "--dry-run", "--config", str(missing))
    assert code == 0 and "--- /dev/null" in out and not missing.parent.exists()


def test_uninstall_gives_the_file_back(tmp_path, capsys, client):
    config = tmp_path / "config.json"
    config.write_text(_original(client), encoding="utf-8")
    home = str(tmp_path / "home")
    assert _run(capsys, "--home", home, "mcp", "install", client, "--config", str(config))[0] == 0
    code, out, _ = _run(capsys, "mcp", "uninstall", client, "--dry-run", "--config", str(config))
    assert code == 0 and '-    "pms-tui": {' in out and "pms-tui" in config.read_text(encoding="utf-8")
    code, out, _ = _run(capsys, "mcp", "uninstall", client, "--config", str(config))
    assert code == 0 and config.read_text(encoding="utf-8") == _original(client)
    assert '"pms-tui"' in (tmp_path / ("config.json" + BACKUP_SUFFIX)).read_text(encoding="utf-8")
    code, out, _ = _run(capsys, "mcp", "uninstall", client, "--config", str(config))
    assert code == 0 and "nothing to remove" in out and config.read_text(encoding="utf-8") == _original(client)


def test_a_hand_written_config_keeps_every_byte_but_ours(tmp_path, capsys, client):
    """Other entries stay as written (one line, odd spacing); only our lines are added, and
    only they are shown."""
    key = _servers_key(client)
    text = ('{"theme" : "dark",\n "%s": {\n   "other": {"command": "npx", "args": ["-y", "x"], '
            '"env": {"TOKEN": "secret-value"}}\n }\n}' % key)
    config = tmp_path / "config.json"
    config.write_text(text, encoding="utf-8")
    code, out, _ = _run(capsys, "--home", str(tmp_path / "home"), "mcp", "install", client, "--config", str(config))
    assert code == 0 and "secret-value" not in out
    changed = [line for line in out.splitlines() if line.startswith(("+", "-")) and not line.startswith(("+++", "---"))]
    assert changed and all(line.startswith("+") for line in changed)
    written = config.read_text(encoding="utf-8")
    assert '   "other": {"command": "npx", "args": ["-y", "x"], "env": {"TOKEN": "secret-value"}}' in written
    assert written.startswith('{"theme" : "dark",\n') and written.endswith("\n }\n}")  # no newline added
    assert _run(capsys, "mcp", "uninstall", client, "--config", str(config))[0] == 0
    assert config.read_text(encoding="utf-8") == text


def test_a_file_install_made_is_emptied_by_uninstall(tmp_path, capsys):
    """No servers before: uninstall leaves no empty servers object behind."""
    config = tmp_path / "claude.json"
    config.write_text('{\n\t"numStartups": 3\n}\n', encoding="utf-8")
    assert _run(capsys, "mcp", "install", "claude-code", "--config", str(config))[0] == 0
    assert '\n\t"mcpServers": {\n\t\t"pms-tui": {' in config.read_text(encoding="utf-8")  # its tabs kept
    assert _run(capsys, "mcp", "uninstall", "claude-code", "--config", str(config))[0] == 0
    assert config.read_text(encoding="utf-8") == '{\n\t"numStartups": 3\n}\n'


BROKEN = [
    '{\n  // my servers\n  "servers": {}\n}\n',  # comments: only VS Code, Zed and opencode read them
    '{"mcpServers": {"a": {"command": "x"},}}',
    '{\n  "servers": {\n    /* never closed\n  }\n}\n',
    '[1, 2]',
    '{"mcpServers": ["not", "an", "object"], "servers": 5, "context_servers": 1, "mcp": []}',
]


@pytest.mark.parametrize("text", BROKEN, ids=["comments", "trailing-comma", "open-comment", "not-an-object",
                                              "servers-not-object"])
def test_a_config_that_is_not_json_is_refused_and_left_as_it_is(tmp_path, capsys, client, text):
    if CLIENTS[client].comments and text in BROKEN[:2]:
        pytest.skip(f"{client} reads JSON with comments and trailing commas")
    config = tmp_path / "config.json"
    config.write_text(text, encoding="utf-8")
    for action in ("install", "uninstall"):
        code, out, err = _run(capsys, "mcp", action, client, "--config", str(config))
        assert code == 1 and out == "" and err.count("\n") == 1 and "left as it is" in err, err
        assert "Traceback" not in err
    assert config.read_text(encoding="utf-8") == text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.json"]


def test_another_server_under_our_name_is_never_touched(tmp_path, capsys, client):
    config = tmp_path / "config.json"
    text = json.dumps({_servers_key(client): {"pms-tui": OTHER}}, indent=2)
    config.write_text(text, encoding="utf-8")
    code, _, err = _run(capsys, "mcp", "install", client, "--config", str(config))
    assert code == 1 and "another server named 'pms-tui'" in err and "--name" in err
    code, _, err = _run(capsys, "mcp", "uninstall", client, "--config", str(config))
    assert code == 1 and "does not run pms-tui" in err
    assert config.read_text(encoding="utf-8") == text
    # under another name it goes beside it
    assert _run(capsys, "mcp", "install", client, "--name", "notes", "--config", str(config))[0] == 0
    servers = json.loads(config.read_text(encoding="utf-8"))[_servers_key(client)]
    assert servers["pms-tui"] == OTHER and _argv(servers["notes"])[-1] == "mcp"


def test_an_unknown_client_and_a_project_scope_claude_desktop_lacks(capsys):
    code, _, err = _run(capsys, "mcp", "install", "emacs", "--dry-run")
    assert code == 1 and "claude-code, claude-desktop, cursor, vscode" in err
    code, _, err = _run(capsys, "mcp", "install", "claude-desktop", "--scope", "project", "--dry-run")
    assert code == 1 and "no project configuration" in err


# -- the real command, HOME in a temporary folder ---------------------------------------------
WHERE = {
    "claude-code": ".claude.json",
    "claude-desktop": ".config/Claude/claude_desktop_config.json",
    "cursor": ".cursor/mcp.json",
    "vscode": ".config/Code/User/mcp.json",
    "codex": ".codex/config.toml",
    "gemini": ".gemini/settings.json",
    "windsurf": ".codeium/windsurf/mcp_config.json",
    "zed": ".config/zed/settings.json",
    "opencode": ".config/opencode/opencode.json",
}


def _read(path: Path) -> dict:
    import tomllib

    text = path.read_text(encoding="utf-8")
    return tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)


def _cli(tmp_path: Path, *argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PMS_TUI_", "XDG_", "CODEX_HOME"))}
    env["HOME"] = str(tmp_path / "user")
    return subprocess.run([sys.executable, "-m", "pms_tui", *argv], env=env, cwd=cwd or tmp_path,
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)


@pytest.mark.skipif(sys.platform != "linux", reason="the locations checked are Linux's")
def test_each_client_at_its_own_place_listed_by_doctor_and_served(tmp_path):
    from pms_tui.core.kb import KnowledgeBase

    from tests.kb_helpers import NOTES, write

    for rel, text in NOTES.items():
        write(tmp_path / "notes", rel, text)
    home = tmp_path / "home"
    with KnowledgeBase(home=home) as kb:
        kb.collections.create(tmp_path / "notes", name="notes")
        kb.sync(embed=False)
    (tmp_path / "user").mkdir()
    for client, rel in WHERE.items():
        done = _cli(tmp_path, "--home", str(home), "mcp", "install", client)
        assert done.returncode == 0 and done.stderr == "", done.stderr
        entry = _read(tmp_path / "user" / rel)[_servers_key(client)]["pms-tui"]
        assert _argv(entry)[-3:] == ["--home", str(home), "mcp"]
    done = _cli(tmp_path, "--home", str(home), "mcp", "install", "claude-code", "--scope", "project")
    assert done.returncode == 0 and (tmp_path / ".mcp.json").is_file()
    assert '"Pending approval"' in done.stdout  # Claude Code's approval step is named

    doctor = _cli(tmp_path, "--home", str(home), "doctor")
    listed = [line for line in doctor.stdout.splitlines() if "mcp client" in line]
    assert len(listed) == len(WHERE) + 1 and all(line.startswith("ok ") and "with this home" in line for line in listed)

    # the entry as written starts this install's server, which answers the SDK's client
    entry = json.loads((tmp_path / "user" / ".claude.json").read_text(encoding="utf-8"))["mcpServers"]["pms-tui"]
    assert Path(entry["command"]).is_file()
    assert _serve_entry(entry) == "notes/cooking/bread.md"

    for client in WHERE:
        assert _cli(tmp_path, "mcp", "uninstall", client).returncode == 0
    doctor = _cli(tmp_path, "--home", str(home), "doctor")
    assert sum("not configured" in line for line in doctor.stdout.splitlines()) == len(WHERE) - 1  # .mcp.json has it


def _serve_entry(entry: dict) -> str:
    import asyncio

    from mcp import Client, StdioServerParameters

    from tests.mcp_client import server_env

    async def ask() -> str:
        params = StdioServerParameters(command=entry["command"], args=entry["args"], env=server_env())
        async with Client(params) as client:
            found = await client.call_tool("search", {"query": "sourdough", "k": 1, "mode": "bm25"})
            return found.structured_content["hits"][0]["id"]

    return asyncio.run(ask())


def test_doctor_lines_name_each_client_and_what_is_wrong(tmp_path, monkeypatch):
    """A client without pms-tui, one with it, one whose config is not JSON, one whose entry
    runs a command that is gone: one line each, none of them fatal to doctor."""
    from pms_tui.cli.upkeep import print_mcp_clients

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.chdir(tmp_path)
    home = tmp_path / "home"
    assert main(["--home", str(home), "mcp", "install", "cursor"]) == 0
    (tmp_path / ".claude.json").write_text('{"mcpServers": {"pms-tui": {"command": "/gone/bin/pms-tui", '
                                           '"args": ["--home", "/elsewhere", "mcp"]}}}', encoding="utf-8")
    vscode = tmp_path / WHERE["vscode"]
    vscode.parent.mkdir(parents=True)
    vscode.write_text('{\n  "servers": {}\n  "x": 1\n}\n', encoding="utf-8")
    lines: list[str] = []
    print_mcp_clients(str(home), lambda text: lines.append(text))
    assert len(lines) == len(CLIENTS) and all(" mcp client " in line for line in lines)
    by_client = {line.split("mcp client", 1)[1].split(":")[0].strip(): line for line in lines}
    assert by_client["Cursor"].startswith("ok ") and "with this home" in by_client["Cursor"]
    assert by_client["Claude Desktop"].startswith("   ") and "not configured" in by_client["Claude Desktop"]
    assert by_client["Claude Code"].startswith("BAD") and "the home /elsewhere" in by_client["Claude Code"]
    assert "/gone/bin/pms-tui no longer exists" in by_client["Claude Code"]
    assert by_client["VS Code"].startswith("BAD") and "not plain JSON (line 3" in by_client["VS Code"]
