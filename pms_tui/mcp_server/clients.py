"""``pms-tui mcp install CLIENT`` and ``uninstall``: this install's server written into an
agent's own config file, and taken out again; ``pms-tui doctor`` lists what is configured.

Where each client keeps its servers, and in what shape (from each client's documentation):

- Claude Desktop: ``claude_desktop_config.json``, servers under ``mcpServers`` as
  ``{"command", "args"}``; the file is in ``~/Library/Application Support/Claude`` (macOS),
  ``%APPDATA%\\Claude`` (Windows), ``~/.config/Claude`` (Linux). modelcontextprotocol.io,
  "Connect to local MCP servers".
- Claude Code: user scope, the top-level ``mcpServers`` of ``~/.claude.json``; project scope,
  ``.mcp.json`` at the project's root, the same shape, which Claude Code uses only once the
  user approves it; an entry ``{"type": "stdio", "command", "args"}``.
  code.claude.com/docs/en/mcp, "MCP installation scopes".
- Cursor: ``~/.cursor/mcp.json`` (global) or ``.cursor/mcp.json`` (project), servers under
  ``mcpServers`` as ``{"command", "args"}``. cursor.com/docs/mcp.
- VS Code: ``mcp.json`` in the user profile folder (``Code/User`` in the same config folders
  as Claude Desktop's) or ``.vscode/mcp.json``, servers under ``servers`` with
  ``"type": "stdio"``. code.visualstudio.com/docs/copilot/reference/mcp-configuration.
- Codex CLI: ``~/.codex/config.toml`` (``$CODEX_HOME`` when set), or ``.codex/config.toml``
  in a project Codex trusts; a TOML table ``[mcp_servers.NAME]`` with ``command`` and
  ``args``. developers.openai.com/codex/mcp.
- Gemini CLI: ``~/.gemini/settings.json`` or ``.gemini/settings.json`` in a project (a
  trusted folder), servers under ``mcpServers`` as ``{"command", "args"}``.
  geminicli.com/docs/tools/mcp-server.
- Windsurf: ``~/.codeium/windsurf/mcp_config.json``, servers under ``mcpServers`` as
  ``{"command", "args"}``; no project file. docs.windsurf.com/windsurf/cascade/mcp.
- Zed: ``~/.config/zed/settings.json`` (``%APPDATA%\\Zed`` on Windows) or ``.zed/settings.json``,
  servers under ``context_servers`` as ``{"command", "args"}``. zed.dev/docs/ai/mcp.
- opencode: ``~/.config/opencode/opencode.json`` or ``opencode.json`` at the project's root,
  servers under ``mcp`` as ``{"type": "local", "command": [program, *args]}`` (the 1.x form,
  which opencode 2 still reads beside its ``mcp.servers``). opencode.ai/docs/mcp-servers.

Only our entry is ever added, replaced or removed, and every other byte of the file stays as it
was (``json_config``, ``toml_config``), its BOM and its CRLF line endings included; uninstall
leaves an empty servers object that was there before install (``claude mcp remove`` leaves
one) and takes out one install made. The whole file is written anew only when the edit would
not read back as intended. VS Code, Zed and opencode read JSON with comments: their files are
edited with the comments kept (``json_config.blank``); any other file that is not plain JSON is
refused with a sentence and the entry to add by hand, never rewritten without them. Before a
write the file is copied to ``<file>.pms-tui.bak``.
"""

from __future__ import annotations

import difflib
import json
import os
import shutil
import stat
import sys
import sysconfig
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from ..core.errors import UsageError
from . import json_config, toml_config

SERVER_NAME = "pms-tui"
BACKUP_SUFFIX = ".pms-tui.bak"


def _app_config(folder: str) -> Path:
    """The per-user config folder of a desktop app: Application Support (macOS), roaming
    AppData (Windows), XDG_CONFIG_HOME or ~/.config (Linux)."""
    return platformdirs.user_config_path(folder, appauthor=False, roaming=True)


def _xdg_config() -> Path:
    """~/.config (XDG_CONFIG_HOME when set): where Zed and opencode keep their settings, on macOS too."""
    return Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")


def _codex_home() -> Path:
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")


@dataclass(frozen=True)
class Client:
    key: str  # as typed: pms-tui mcp install KEY
    name: str
    servers_key: str  # the object that maps server names to entries
    typed: bool  # entries carry "type": "stdio"
    user_path: Callable[[], Path]
    project_file: str | None  # relative to the project's root
    restart: str
    shape: str = "command"  # "command": {"command", "args"}; "argv": {"type": "local", "command": [...]}
    toml: bool = False  # the file is TOML, not JSON
    comments: bool = False  # the client reads JSON with comments and trailing commas
    project_note: str = ""  # what the client asks before it uses a project's file

    def path(self, scope: str, override: str | None = None) -> Path:
        if override:
            return Path(override).expanduser().absolute()
        if scope == "project":
            if self.project_file is None:
                raise UsageError(f"{self.name} has no project configuration; leave out --scope project.")
            return Path.cwd() / self.project_file
        return self.user_path()


CLIENTS: dict[str, Client] = {c.key: c for c in (
    Client("claude-code", "Claude Code", "mcpServers", True, lambda: Path.home() / ".claude.json", ".mcp.json",
           "Start a new Claude Code session (or run /mcp) to connect.",
           project_note="Claude Code asks before it uses a project's .mcp.json: /mcp shows the server as "
                        "\"Pending approval\" until you approve it there (or when a new session asks)."),
    Client("claude-desktop", "Claude Desktop", "mcpServers", False,
           lambda: _app_config("Claude") / "claude_desktop_config.json", None,
           "Quit and reopen Claude Desktop to connect."),
    Client("cursor", "Cursor", "mcpServers", False, lambda: Path.home() / ".cursor" / "mcp.json", ".cursor/mcp.json",
           "Cursor lists the server in its MCP settings (reload the window if it does not)."),
    Client("vscode", "VS Code", "servers", True, lambda: _app_config("Code") / "User" / "mcp.json",
           ".vscode/mcp.json", "VS Code lists the server under MCP: List Servers; start it there or from chat.",
           comments=True),
    Client("codex", "Codex CLI", "mcp_servers", False, lambda: _codex_home() / "config.toml", ".codex/config.toml",
           "Start a new Codex session to connect (/mcp lists the server).", toml=True,
           project_note="Codex reads a project's .codex/config.toml only once you trust the project."),
    Client("gemini", "Gemini CLI", "mcpServers", False, lambda: Path.home() / ".gemini" / "settings.json",
           ".gemini/settings.json", "Restart Gemini CLI to connect (/mcp lists the server).",
           project_note="Gemini CLI starts a project's servers only in a folder you trust (`gemini trust`)."),
    Client("windsurf", "Windsurf", "mcpServers", False,
           lambda: Path.home() / ".codeium" / "windsurf" / "mcp_config.json", None,
           "Press refresh in Cascade's MCP panel (or reopen Windsurf) to connect."),
    Client("zed", "Zed", "context_servers", False,
           lambda: (_app_config("Zed") if os.name == "nt" else _xdg_config() / "zed") / "settings.json",
           ".zed/settings.json", "Zed starts the server when it reads its settings; the Agent Panel's settings show it.",
           comments=True),
    Client("opencode", "opencode", "mcp", False, lambda: _xdg_config() / "opencode" / "opencode.json",
           "opencode.json", "Start opencode again to connect (`opencode mcp list` shows the server).", shape="argv",
           comments=True),
)}


def client(key: str) -> Client:
    try:
        return CLIENTS[key]
    except KeyError:
        raise UsageError(f"pms-tui knows no client {key[:40]!r}; it knows: {', '.join(CLIENTS)}.") from None


# -- the entry --------------------------------------------------------------------------------
def this_command() -> tuple[str, list[str]]:
    """How this install is started: its own ``pms-tui`` script when there is one beside the
    interpreter, else the interpreter with ``-I -m pms_tui``; full paths either way, so the
    client runs this environment whatever its PATH holds. ``-I``: an agent starts the server in
    whatever project it has open, and ``-m`` alone would put that folder first on the path (a
    ``json.py`` there would run inside the server; see ``core/indexing/python_child``)."""
    scripts = Path(sysconfig.get_path("scripts"))
    for name in ("pms-tui.exe", "pms-tui") if os.name == "nt" else ("pms-tui",):
        script = scripts / name
        if script.is_file():
            return str(script), []
    return str(Path(sys.executable).absolute()), ["-I", "-m", "pms_tui"]


def server_entry(target: Client, home: Path, allow_writes: bool = False) -> dict:
    command, head = this_command()
    args = [*head, "--home", str(home), "mcp", *(["--allow-writes"] if allow_writes else [])]
    if target.shape == "argv":
        return {"type": "local", "command": [command, *args]}
    entry: dict = {"type": "stdio"} if target.typed else {}
    entry.update(command=command, args=args)
    return entry


def _argv(entry: object) -> list | None:
    """The program and its arguments an entry runs ({"command", "args"}, or opencode's
    {"command": [...]}); None for an entry that names no program."""
    if not isinstance(entry, dict):
        return None
    command = entry.get("command")
    if isinstance(command, list):
        return command if command and isinstance(command[0], str) else None
    if not isinstance(command, str):
        return None
    args = entry.get("args")
    return [command, *(args if isinstance(args, list) else [])]


def runs_pms_tui(entry: object) -> bool:
    """True for an entry that starts pms-tui (ours, whatever its name)."""
    argv = _argv(entry)
    if argv is None:
        return False
    stem = Path(argv[0].replace("\\", "/")).name.lower().removesuffix(".exe")
    args = argv[1:]
    return stem == "pms-tui" or any(a == "-m" and b == "pms_tui" for a, b in zip(args, args[1:]))


def entry_home(entry: dict) -> str | None:
    args = _argv(entry) or []
    for flag, value in zip(args, args[1:]):
        if flag == "--home" and isinstance(value, str):
            return value
    return None


# -- reading and writing a config file --------------------------------------------------------
class NotJson(UsageError):
    """A config that does not parse (JSON with comments or a stray comma, broken TOML): never rewritten."""


_BOM = b"\xef\xbb\xbf"


@dataclass
class Config:
    path: Path
    text: str | None  # None: the file does not exist yet; without its BOM, CRLF made "\n"
    data: dict
    raw: bytes | None = None  # the file's bytes as read
    bom: bool = False
    newline: str = "\n"  # "\r\n": every line of the file ended so

    def servers(self, target: Client) -> dict:
        found = self.data.get(target.servers_key, {})
        return found if isinstance(found, dict) else {}

    def encode(self, text: str) -> bytes:
        """``text`` as the file's bytes: its BOM and its line endings as they were."""
        if self.newline != "\n":
            text = text.replace("\n", self.newline)
        return (_BOM if self.bom else b"") + text.encode("utf-8")


def _decode(path: Path, raw: bytes) -> tuple[str, bool, str]:
    """(text, BOM, line ending) of a config file's bytes."""
    bom = raw.startswith(_BOM)
    try:
        text = raw[len(_BOM) if bom else 0:].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"Cannot read {path} (not UTF-8: {exc.reason} at byte {exc.start}).") from None
    crlf = "\r\n" in text and text.count("\r\n") == text.count("\n")
    return (text.replace("\r\n", "\n"), bom, "\r\n") if crlf else (text, bom, "\n")


def _format(target: Client):
    return toml_config if target.toml else json_config


def read_config(path: Path, target: Client) -> Config:
    """The file parsed; UsageError (one sentence) for a file that is not a JSON object (a TOML
    document for Codex)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Config(path, None, {})
    except OSError as exc:
        raise UsageError(f"Cannot read {path} ({exc.strerror or exc}).") from None
    text, bom, newline = _decode(path, raw)
    kind = "TOML" if target.toml else "plain JSON"
    try:
        data = _parse(target, text)
    except ValueError as exc:
        raise NotJson(f"{path} is not {kind} ({exc})") from None
    if not isinstance(data, dict):
        raise UsageError(f"{path} does not hold a JSON object; it is left as it is.")
    if target.servers_key in data and not isinstance(data[target.servers_key], dict):
        raise UsageError(f"In {path}, {target.servers_key!r} is not an object; it is left as it is.")
    return Config(path, text, data, raw, bom, newline)


def _parse(target: Client, text: str) -> object:
    return toml_config.parse(text) if target.toml else json_config.parse(text, target.comments)


def _reads_as(target: Client, text: str, data: dict) -> bool:
    try:
        return _parse(target, text) == data
    except ValueError:
        return False


def _edited(target: Client, config: Config, data: dict, edit: Callable[[str], str], name: str,
            entry: dict | None) -> str:
    """``edit`` applied to the file's text when it reads back as ``data`` (its comments kept);
    else the file written anew (JSON without comments) or edited through tomlkit (TOML). A
    file with comments that the edit would not keep is left as it is (UsageError)."""
    text = config.text or ""
    keep = "" if target.toml else json_config.comments(text)
    try:
        edited = edit(text)
        if _reads_as(target, edited, data) and (target.toml or json_config.comments(edited) == keep):
            return edited
    except (ValueError, IndexError, AttributeError, KeyError):
        pass
    if target.toml:
        return toml_config.render(text, target.servers_key, name, entry)
    if keep:
        shown = f"under {target.servers_key!r}: {_hand_entry(target, name, entry)}" if entry else \
            f"the server {name!r}"
        raise UsageError(f"{config.path} has comments pms-tui cannot keep around this change, so it is left as "
                         f"it is: {'add' if entry else 'remove'} {shown} by hand.")
    return json_config.render(config.text if config.text and config.text.strip() else None, data)


@dataclass
class Change:
    target: Client
    config: Config
    after: str | None  # None: nothing to change
    summary: str  # one sentence: what the change is, or why there is none

    @property
    def backup(self) -> Path:
        return self.config.path.with_name(self.config.path.name + BACKUP_SUFFIX)

    def diff(self) -> str:
        if self.after is None:
            return ""
        before = (self.config.text or "").splitlines(keepends=True)
        after = self.after.splitlines(keepends=True)
        shown = str(self.config.path)
        # no context lines: the neighbouring entries may hold other servers' secrets
        lines = difflib.unified_diff(before, after, shown if self.config.text is not None else "/dev/null",
                                     shown, n=0)
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _hand_entry(target: Client, name: str, entry: dict) -> str:
    if target.toml:
        return toml_config.set_entry("", target.servers_key, name, entry).strip().replace("\n", "; ")
    return json.dumps({name: entry}, ensure_ascii=False)[1:-1]


def plan_install(target: Client, path: Path, home: Path, *, name: str = SERVER_NAME,
                 allow_writes: bool = False) -> Change:
    entry = server_entry(target, home, allow_writes)
    try:
        config = read_config(path, target)
    except NotJson as exc:
        raise UsageError(f"{exc}, so it is left as it is: add the server by hand under {target.servers_key!r}: "
                         f"{_hand_entry(target, name, entry)}") from None
    current = config.servers(target).get(name)
    if current is not None and not runs_pms_tui(current):
        raise UsageError(f"{path} already has another server named {name!r}; it is left as it is: "
                         f"choose another name with --name.")
    if current == entry:
        return Change(target, config, None, f"{target.name} already runs this pms-tui with the home {home} "
                                            f"as {name!r}: nothing to change.")
    data = dict(config.data)
    servers = dict(config.servers(target))
    servers[name] = entry
    data[target.servers_key] = servers
    verb = "Replace the server {!r} in" if current is not None else "Add the server {!r} to"
    after = _edited(target, config, data, lambda t: _format(target).set_entry(t, target.servers_key, name, entry),
                    name, entry)
    return Change(target, config, after, f"{verb.format(name)} {target.name}'s config {path} (home {home}).")


def _backup_text(path: Path) -> str | None:
    try:
        return _decode(path, path.with_name(path.name + BACKUP_SUFFIX).read_bytes())[0]
    except (OSError, UsageError):
        return None


def plan_uninstall(target: Client, path: Path, *, name: str = SERVER_NAME) -> Change:
    try:
        config = read_config(path, target)
    except NotJson as exc:
        raise UsageError(f"{exc}, so it is left as it is: remove the server {name!r} by hand.") from None
    current = config.servers(target).get(name)
    if current is None:
        return Change(target, config, None, f"{path} has no server named {name!r}: nothing to remove.")
    if not runs_pms_tui(current):
        raise UsageError(f"The server named {name!r} in {path} does not run pms-tui; it is left as it is.")
    fmt, key, text = _format(target), target.servers_key, config.text or ""
    data = dict(config.data)
    data[key] = {k: v for k, v in config.servers(target).items() if k != name}
    empty = not data[key]
    bare = {k: v for k, v in data.items() if k != key}
    if target.toml:  # one text either way: TOML's [mcp_servers] is implicit unless written
        try:
            after = fmt.remove_entry(text, key, name, empty)
            if not (_reads_as(target, after, data) or empty and _reads_as(target, after, bare)):
                raise ValueError("not as intended")
        except ValueError:
            after = toml_config.render(text, key, name, None)
        return Change(target, config, after, f"Remove the server {name!r} from {target.name}'s config {path}.")
    after = _edited(target, config, data, lambda t: fmt.remove_entry(t, key, name, False), name, None)
    if empty:
        # Either install made the servers object, or it was there (empty) before: the one that
        # install would turn back into this very text is the file as it was; the backup (the
        # file before the last write) settles a tie.
        dropped = _edited(target, config, bare, lambda t: fmt.remove_entry(t, key, name, True), name, None)
        again = [t for t in (after, dropped) if _reinstalls(target, t, name, current, text)]
        if len(again) == 1:
            after = again[0]
        elif _backup_text(path) != after:
            after = dropped  # no servers means the same to every client
    return Change(target, config, after, f"Remove the server {name!r} from {target.name}'s config {path}.")


def _reinstalls(target: Client, before: str, name: str, entry: dict, text: str) -> bool:
    try:
        return _format(target).set_entry(before, target.servers_key, name, entry) == text
    except (ValueError, IndexError, AttributeError, KeyError):
        return False


def apply(change: Change) -> None:
    """Write the change: the old file copied to the backup first, the new one written beside
    it and moved over it (a crash leaves one or the other, never half a file). A file that
    changed since it was read (the client wrote it meanwhile) is left alone."""
    if change.after is None:
        return
    path = change.config.path.resolve()  # a symlinked config (dotfiles) keeps its link
    try:
        now: bytes | None = path.read_bytes()
    except FileNotFoundError:
        now = None
    except OSError as exc:
        raise UsageError(f"Cannot read {path} ({exc.strerror or exc}).") from None
    if now != change.config.raw:
        raise UsageError(f"{path} changed while pms-tui was editing it; nothing was written: run the command again.")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = None
        if now is not None:
            shutil.copy2(path, change.backup.resolve())
            mode = stat.S_IMODE(path.stat().st_mode)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(change.config.encode(change.after))
                out.flush()
                os.fsync(out.fileno())
            if mode is not None:
                os.chmod(tmp, mode)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise UsageError(f"Cannot write {path} ({exc.strerror or exc}); it is left as it was.") from None


# -- what is configured (pms-tui doctor) ------------------------------------------------------
@dataclass(frozen=True)
class Found:
    target: Client
    path: Path
    name: str | None  # None: no pms-tui entry in this file
    home: str | None = None
    problem: str = ""  # why this entry (or file) cannot work as it is


def configured(cwd: Path | None = None) -> list[Found]:
    """Every client's user config, and the project configs in ``cwd``, read for pms-tui
    entries: one Found per entry, or one per client without any."""
    cwd = cwd or Path.cwd()
    found: list[Found] = []
    for target in CLIENTS.values():
        paths = [target.user_path()]
        project = cwd / target.project_file if target.project_file else None
        if project is not None and project.is_file() and project.resolve() != paths[0].resolve():
            paths.append(project)  # (in the home folder, Cursor's project file is its user file)
        before = len(found)
        for path in paths:
            try:
                config = read_config(path, target)
            except UsageError as exc:
                found.append(Found(target, path, None, problem=f"{target.name}: {str(exc).rstrip('.')}"))
                continue
            for name, entry in config.servers(target).items():
                if runs_pms_tui(entry):
                    command = Path((_argv(entry) or [""])[0])
                    problem = "" if command.is_file() else f"its command {command} no longer exists"
                    found.append(Found(target, path, name, entry_home(entry), problem))
        if len(found) == before:
            found.append(Found(target, target.user_path(), None))
    return found
