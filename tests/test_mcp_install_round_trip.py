"""``mcp install`` then ``uninstall`` gives back the config file byte for byte: with CRLF line
endings, a UTF-8 BOM, an empty servers object that was there before (what ``claude mcp
remove`` leaves), a file as Claude Code writes ``~/.claude.json``, and Codex CLI's TOML; the
lines install adds end as the file's others do."""

from __future__ import annotations

import json
import tomllib

import pytest

from pms_tui.cli import main
from pms_tui.mcp_server.clients import BACKUP_SUFFIX, CLIENTS

JSON_CLIENTS = [key for key, c in CLIENTS.items() if not c.toml]
OTHER = {"command": "npx", "args": ["-y", "@example/other-server"]}


def _round_trip(tmp_path, capsys, client: str, data: bytes, name: str = "config.json") -> bytes:
    """The file after install (checked to differ and to hold our server), then after uninstall."""
    config = tmp_path / name
    config.write_bytes(data)
    assert main(["--home", str(tmp_path / "home"), "mcp", "install", client, "--config", str(config)]) == 0
    installed = config.read_bytes()
    assert installed != data and b"pms-tui" in installed
    assert (tmp_path / (name + BACKUP_SUFFIX)).read_bytes() == data
    assert main(["mcp", "uninstall", client, "--config", str(config)]) == 0
    capsys.readouterr()
    return installed


def _json(client: str, servers: dict | None, indent: int | str = 2) -> str:
    data: dict = {"theme": "dark", "numStartups": 12}
    if servers is not None:
        data[CLIENTS[client].servers_key] = servers
    data["zeta"] = [1, "ü"]
    return json.dumps(data, indent=indent, ensure_ascii=False) + "\n"


@pytest.mark.parametrize("client", JSON_CLIENTS)
@pytest.mark.parametrize("servers", [None, {}, {"other": OTHER}], ids=["no-servers", "empty-servers", "a-server"])
@pytest.mark.parametrize("form", ["lf", "crlf", "bom", "bom-crlf"])
def test_install_then_uninstall_is_byte_identical(tmp_path, capsys, client, servers, form):
    text = _json(client, servers)
    if "crlf" in form:
        text = text.replace("\n", "\r\n")
    data = ("\ufeff" if "bom" in form else "").encode() + text.encode("utf-8")
    installed = _round_trip(tmp_path, capsys, client, data)
    assert (tmp_path / "config.json").read_bytes() == data
    # what install wrote reads as JSON and its lines end as the file's
    assert installed.startswith(b"\xef\xbb\xbf") == ("bom" in form)
    body = installed.decode("utf-8-sig")
    assert json.loads(body)[CLIENTS[client].servers_key]["pms-tui"]
    if "crlf" in form:
        assert body.count("\n") == body.count("\r\n")
    else:
        assert "\r" not in body


def test_an_empty_servers_object_first_in_the_file_stays(tmp_path, capsys):
    """First in the file, an empty mcpServers reads the same as none to a re-install: the
    backup (the file before install) says it was there."""
    data = b'{\n  "mcpServers": {},\n  "numStartups": 3\n}\n'
    _round_trip(tmp_path, capsys, "claude-code", data)
    assert (tmp_path / "config.json").read_bytes() == data
    data = b'{\n  "numStartups": 3\n}\n'
    _round_trip(tmp_path, capsys, "claude-code", data)
    assert (tmp_path / "config.json").read_bytes() == data


# ~/.claude.json as Claude Code writes it: two spaces, no newline at the end, an empty
# "mcpServers" left by `claude mcp remove`, and another "mcpServers" inside a project
CLAUDE_JSON = json.dumps({
    "numStartups": 41, "installMethod": "native", "autoUpdates": False,
    "tipsHistory": {"new-user-warmup": 7, "memory-command": 30},
    "projects": {"/home/ada/src/site": {"allowedTools": [], "mcpContextUris": [], "mcpServers": {},
                                       "hasTrustDialogAccepted": True, "lastCost": 0.0123}},
    "userID": "0f1e2d3c4b5a69788796a5b4c3d2e1f0", "hasCompletedOnboarding": True,
    "mcpServers": {}, "lastReleaseNotesSeen": "2.1.4",
}, indent=2)


def test_a_file_claude_code_wrote_round_trips(tmp_path, capsys):
    installed = _round_trip(tmp_path, capsys, "claude-code", CLAUDE_JSON.encode(), ".claude.json")
    assert json.loads(installed)["projects"]["/home/ada/src/site"]["mcpServers"] == {}  # a project's: not ours
    assert (tmp_path / ".claude.json").read_bytes() == CLAUDE_JSON.encode()


CODEX_TOML = """# Codex settings
model = "gpt-5-codex"
approval_policy = "on-request"

[projects."/home/ada/src/site"]
trust_level = "trusted"

[mcp_servers.docs]
command = "npx"
args = ["-y", "@example/docs-mcp"]  # the docs server
env = { "TOKEN" = "secret-value" }
"""


@pytest.mark.parametrize("form", ["lf", "crlf", "no-final-newline", "empty", "servers-header"])
def test_codex_toml_round_trips(tmp_path, capsys, form):
    text = {"lf": CODEX_TOML, "crlf": CODEX_TOML.replace("\n", "\r\n"), "no-final-newline": CODEX_TOML.rstrip("\n"),
            "empty": "", "servers-header": 'model = "o3"\n\n[mcp_servers]\n'}[form]
    installed = _round_trip(tmp_path, capsys, "codex", text.encode(), "config.toml")
    data = tomllib.loads(installed.decode())
    entry = data["mcp_servers"]["pms-tui"]
    assert entry["args"][-3:] == ["--home", str((tmp_path / "home").absolute()), "mcp"]
    assert {k: v for k, v in data.items() if k != "mcp_servers"} == \
        {k: v for k, v in tomllib.loads(text).items() if k != "mcp_servers"}
    if text:
        assert installed.startswith(text.rstrip("\r\n").encode())  # every byte before ours kept
    if form == "crlf":
        assert installed.count(b"\n") == installed.count(b"\r\n")
    assert (tmp_path / "config.toml").read_bytes() == text.encode()


def test_codex_entry_is_replaced_in_place_and_broken_toml_refused(tmp_path, capsys):
    config = tmp_path / "config.toml"
    config.write_text(CODEX_TOML + '\n[mcp_servers.pms-tui]\ncommand = "/old/bin/pms-tui"\nargs = ["mcp"]\n\n'
                      '[mcp_servers.last]\ncommand = "x"\n', encoding="utf-8")
    assert main(["--home", str(tmp_path / "home"), "mcp", "install", "codex", "--config", str(config)]) == 0
    text = config.read_text(encoding="utf-8")
    assert text.startswith(CODEX_TOML) and text.endswith('\n\n[mcp_servers.last]\ncommand = "x"\n')
    assert "/old/bin" not in text and tomllib.loads(text)["mcp_servers"]["pms-tui"]["args"][-1] == "mcp"
    capsys.readouterr()
    broken = 'model = "o3\n'
    config.write_text(broken, encoding="utf-8")
    assert main(["mcp", "install", "codex", "--config", str(config)]) == 1
    err = capsys.readouterr().err
    assert "is not TOML" in err and "[mcp_servers.pms-tui]" in err and err.count("\n") == 1
    assert config.read_text(encoding="utf-8") == broken


@pytest.mark.parametrize("client", ["claude-code", "codex", "gemini"])
def test_a_project_scope_says_what_the_client_asks_first(tmp_path, capsys, monkeypatch, client):
    monkeypatch.chdir(tmp_path)
    assert main(["--home", str(tmp_path / "home"), "mcp", "install", client, "--scope", "project"]) == 0
    out = capsys.readouterr().out
    assert (tmp_path / CLIENTS[client].project_file).is_file()
    assert {"claude-code": '"Pending approval"', "codex": "trust", "gemini": "trust"}[client] in out


# Zed's settings file as Zed first writes it: comments above the object, and trailing commas
ZED_SETTINGS = """// Zed settings
//
// For information on how to configure Zed, see the Zed
// documentation: https://zed.dev/docs/configuring-zed
{
  "ui_font_size": 16,
  "theme": {
    "mode": "system", // follows the desktop
    "dark": "One Dark",
  },
  /* servers the agent may start */
  "context_servers": {
    "docs": {"command": "npx", "args": ["-y", "@example/docs"],}, // https://example.com/docs
  },
}
"""
VSCODE_MCP = """{
  // my servers
  "servers": {
    "other": {"type": "stdio", "command": "npx", "args": ["-y", "x"]}
  },
  "inputs": [] /* none */
}
"""


@pytest.mark.parametrize("client,text", [("zed", ZED_SETTINGS), ("zed", ZED_SETTINGS.replace("\n", "\r\n")),
                                         ("vscode", VSCODE_MCP), ("opencode", "{\n  // no servers yet\n}\n")])
def test_a_file_with_comments_keeps_them_and_round_trips(tmp_path, capsys, client, text):
    installed = _round_trip(tmp_path, capsys, client, text.encode())
    body = installed.decode().replace("\r\n", "\n")
    for line in text.replace("\r\n", "\n").splitlines():
        assert line in body  # every line as it was, comments and trailing commas included
    assert (tmp_path / "config.json").read_bytes() == text.encode()


def test_a_comment_the_edit_would_lose_leaves_the_file_as_it_is(tmp_path, capsys):
    # uninstall would take out the comment between our entry and the next: refused
    text = ('{\n  "context_servers": {\n    "pms-tui": {"command": "/x/bin/pms-tui", "args": ["mcp"]}, // mine\n'
            '    "other": {"command": "npx"}\n  }\n}\n')
    config = tmp_path / "settings.json"
    config.write_text(text, encoding="utf-8")
    assert main(["mcp", "uninstall", "zed", "--config", str(config)]) == 1
    err = capsys.readouterr().err
    assert "has comments pms-tui cannot keep" in err and "by hand" in err and err.count("\n") == 1
    assert config.read_text(encoding="utf-8") == text and not (tmp_path / ("settings.json" + BACKUP_SUFFIX)).exists()


def test_comments_are_found_outside_strings_only():
    from pms_tui.mcp_server.json_config import blank, parse

    text = '{"a": "x\\" // not a comment", "b": "c:\\\\", // one\n "c": [1, 2,], "u": "http://e/*x*/", /* two */}'
    assert len(blank(text)) == len(text) and blank(text).count("\n") == 1
    assert parse(text, comments=True) == {"a": 'x" // not a comment', "b": "c:\\", "c": [1, 2], "u": "http://e/*x*/"}
    with pytest.raises(ValueError):
        parse(text)  # a client that reads plain JSON only
    with pytest.raises(ValueError):
        parse('{"a": 1 /* never closed }', comments=True)
