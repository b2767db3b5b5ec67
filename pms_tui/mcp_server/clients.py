"""``pms-tui mcp install CLIENT`` and ``uninstall``: this install's server written into an
agent's own config file, and taken out again; ``pms-tui doctor`` lists what is configured.

Where each client keeps its servers, and in what shape (from each client's documentation):

- Claude Desktop: ``claude_desktop_config.json``, servers under ``mcpServers`` as
  ``{"command", "args"}``; the file is in ``~/Library/Application Support/Claude`` (macOS),
  ``%APPDATA%\\Claude`` (Windows), ``~/.config/Claude`` (Linux). modelcontextprotocol.io,
  "Connect to local MCP servers".
- Claude Code: user scope, the top-level ``mcpServers`` of ``~/.claude.json``; project scope,
  ``.mcp.json`` at the project's root, the same shape; an entry ``{"type": "stdio",
  "command", "args"}``. code.claude.com/docs/en/mcp, "MCP installation scopes".
- Cursor: ``~/.cursor/mcp.json`` (global) or ``.cursor/mcp.json`` (project), servers under
  ``mcpServers`` as ``{"command", "args"}``. cursor.com/docs/mcp.
- VS Code: ``mcp.json`` in the user profile folder (``Code/User`` in the same config folders
  as Claude Desktop's) or ``.vscode/mcp.json``, servers under ``servers`` with
  ``"type": "stdio"``. code.visualstudio.com/docs/copilot/reference/mcp-configuration.

Only our entry is ever added, replaced or removed, and every other byte of the file stays as it
was: the entry is written into the text, before the first server, in the style of its
neighbours (the whole file is written anew only when that edit would not read back as
intended). A file that is not plain JSON (VS Code
allows comments in mcp.json) is refused with a sentence and the entry to add by hand: it is
never rewritten without them. Before a write the file is copied to ``<file>.pms-tui.bak``.
"""

from __future__ import annotations

import difflib
import json
import os
import re
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

SERVER_NAME = "pms-tui"
BACKUP_SUFFIX = ".pms-tui.bak"


def _app_config(folder: str) -> Path:
    """The per-user config folder of a desktop app: Application Support (macOS), roaming
    AppData (Windows), XDG_CONFIG_HOME or ~/.config (Linux)."""
    return platformdirs.user_config_path(folder, appauthor=False, roaming=True)


@dataclass(frozen=True)
class Client:
    key: str  # as typed: pms-tui mcp install KEY
    name: str
    servers_key: str  # the object that maps server names to entries
    typed: bool  # entries carry "type": "stdio"
    user_path: Callable[[], Path]
    project_file: str | None  # relative to the project's root
    restart: str

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
           "Start a new Claude Code session (or run /mcp) to connect."),
    Client("claude-desktop", "Claude Desktop", "mcpServers", False,
           lambda: _app_config("Claude") / "claude_desktop_config.json", None,
           "Quit and reopen Claude Desktop to connect."),
    Client("cursor", "Cursor", "mcpServers", False, lambda: Path.home() / ".cursor" / "mcp.json", ".cursor/mcp.json",
           "Cursor lists the server in its MCP settings (reload the window if it does not)."),
    Client("vscode", "VS Code", "servers", True, lambda: _app_config("Code") / "User" / "mcp.json",
           ".vscode/mcp.json", "VS Code lists the server under MCP: List Servers; start it there or from chat."),
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
    entry: dict = {"type": "stdio"} if target.typed else {}
    entry.update(command=command, args=args)
    return entry


def runs_pms_tui(entry: object) -> bool:
    """True for an entry that starts pms-tui (ours, whatever its name)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        return False
    stem = Path(entry["command"].replace("\\", "/")).name.lower().removesuffix(".exe")
    args = _args(entry)
    return stem == "pms-tui" or any(a == "-m" and b == "pms_tui" for a, b in zip(args, args[1:]))


def _args(entry: dict) -> list:
    args = entry.get("args")
    return args if isinstance(args, list) else []


def entry_home(entry: dict) -> str | None:
    args = _args(entry)
    for flag, value in zip(args, args[1:]):
        if flag == "--home" and isinstance(value, str):
            return value
    return None


# -- reading and writing a config file --------------------------------------------------------
class NotJson(UsageError):
    """A config that does not parse as JSON (comments, a stray comma): never rewritten."""


@dataclass
class Config:
    path: Path
    text: str | None  # None: the file does not exist yet
    data: dict

    def servers(self, target: Client) -> dict:
        found = self.data.get(target.servers_key, {})
        return found if isinstance(found, dict) else {}


def read_config(path: Path, target: Client) -> Config:
    """The file parsed; UsageError (one sentence) for a file that is not a JSON object."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return Config(path, None, {})
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"Cannot read {path} ({getattr(exc, 'strerror', None) or exc}).") from None
    if not text.strip():
        return Config(path, text, {})
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise NotJson(f"{path} is not plain JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    if not isinstance(data, dict):
        raise UsageError(f"{path} does not hold a JSON object; it is left as it is.")
    if target.servers_key in data and not isinstance(data[target.servers_key], dict):
        raise UsageError(f"In {path}, {target.servers_key!r} is not an object; it is left as it is.")
    return Config(path, text, data)


def _indent(text: str | None) -> str:
    found = re.search(r"\n([ \t]+)\S", text or "")
    return found.group(1) if found else "  "


def render(config: Config, data: dict) -> str:
    """``data`` as the file's whole text, indented as the file was."""
    ending = "\n" if config.text is None or config.text.endswith("\n") else ""
    return json.dumps(data, indent=_indent(config.text), ensure_ascii=False) + ending


# Editing the text itself, so that every byte outside our entry stays as it was (a
# hand-written `"args": [...]` on one line stays on one line). The members of an object are
# found with the json module's own decoder; the text is known to parse already.
_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def _skip(text: str, index: int) -> int:
    """The index of the first character at or after ``index`` that is not JSON whitespace."""
    found = _WS.match(text, index)
    return found.end() if found else index


@dataclass(frozen=True)
class _Member:
    key: str
    start: int  # the key's opening quote
    colon: str  # what separates the key from its value, as written (": ")
    value: int
    end: int


def _members(text: str, opening: int) -> tuple[list[_Member], int]:
    """The members of the object whose "{" is at ``opening``, and the index of its "}"."""
    members: list[_Member] = []
    i = _skip(text, opening + 1)
    while text[i] != "}":
        key, after_key = _DECODER.raw_decode(text, i)
        value = _skip(text, _skip(text, after_key) + 1)
        _, end = _DECODER.raw_decode(text, value)
        members.append(_Member(key, i, text[after_key:value], value, end))
        i = _skip(text, end)
        if text[i] == ",":
            i = _skip(text, i + 1)
    return members, i


def _line_indent(text: str, index: int) -> str:
    before = text[text.rfind("\n", 0, index) + 1:index]
    return before[:len(before) - len(before.lstrip(" \t"))]


def _value(value: object, indent: str, unit: str | None) -> str:
    """``value`` as JSON whose lines after the first start at ``indent`` (one line: ``unit`` None)."""
    if unit is None:
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value, indent=unit, ensure_ascii=False).replace("\n", "\n" + indent)


def _put(text: str, opening: int, key: str, value: object, unit: str) -> str:
    """``key: value`` set in the object at ``opening``: its value replaced where the key is,
    else a member added before the first one (no other line changes, so none is shown),
    written as its neighbours are."""
    members, closing = _members(text, opening)
    same = [m for m in members if m.key == key]
    if same:
        m = same[-1]
        one_line = "\n" not in text[m.value:m.end]
        return text[:m.value] + _value(value, _line_indent(text, m.start), None if one_line else unit) + text[m.end:]
    name = json.dumps(key, ensure_ascii=False)
    if not members:
        outer = _line_indent(text, opening)
        inner = outer + unit
        return text[:opening] + "{\n" + inner + f"{name}: {_value(value, inner, unit)}" + "\n" + outer + "}" + \
            text[closing + 1:]
    first = members[0]
    if "\n" in text[opening:first.start]:
        inner = _line_indent(text, first.start)
        member = f"\n{inner}{name}{first.colon}{_value(value, inner, unit)},"
    else:
        member = f"{name}{first.colon}{_value(value, '', None)}, "
        opening = first.start - 1  # after "{" and the spaces that follow it
    return text[:opening + 1] + member + text[opening + 1:]


def _drop(text: str, opening: int, key: str) -> str:
    """The member ``key`` taken out of the object at ``opening``, with its comma."""
    members, closing = _members(text, opening)
    at = max(i for i, m in enumerate(members) if m.key == key)
    if len(members) == 1:
        return text[:opening] + "{}" + text[closing + 1:]
    if at > 0:
        return text[:members[at - 1].end] + text[members[at].end:]
    return text[:members[0].start] + text[members[1].start:]


def edit(config: Config, target: Client, data: dict, name: str, entry: dict | None) -> str:
    """The file's text with our entry set (``entry``) or taken out (None), every other byte
    as it was; the whole file written anew when that does not give ``data`` back."""
    text = config.text
    if text is None or not text.strip():
        return render(config, data)
    unit = _indent(text)
    try:
        top = _skip(text, 0)
        holders = [m for m in _members(text, top)[0] if m.key == target.servers_key]
        if entry is not None:
            if holders:
                edited = _put(text, holders[-1].value, name, entry, unit)
            else:
                edited = _put(text, top, target.servers_key, {name: entry}, unit)
        elif target.servers_key not in data:
            edited = _drop(text, top, target.servers_key)
        else:
            edited = _drop(text, holders[-1].value, name)
        if json.loads(edited) == data:
            return edited
    except (ValueError, IndexError, AttributeError):
        pass
    return render(config, data)


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


def plan_install(target: Client, path: Path, home: Path, *, name: str = SERVER_NAME,
                 allow_writes: bool = False) -> Change:
    entry = server_entry(target, home, allow_writes)
    try:
        config = read_config(path, target)
    except NotJson as exc:
        shown = json.dumps({name: entry}, ensure_ascii=False)[1:-1]
        raise UsageError(f"{exc}, so it is left as it is: add the server by hand under {target.servers_key!r}: "
                         f"{shown}") from None
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
    return Change(target, config, edit(config, target, data, name, entry),
                  f"{verb.format(name)} {target.name}'s config {path} (home {home}).")


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
    data = dict(config.data)
    data[target.servers_key] = {k: v for k, v in config.servers(target).items() if k != name}
    if not data[target.servers_key]:
        del data[target.servers_key]  # install may have made it; no servers means the same to every client
    return Change(target, config, edit(config, target, data, name, None),
                  f"Remove the server {name!r} from {target.name}'s config {path}.")


def apply(change: Change) -> None:
    """Write the change: the old file copied to the backup first, the new one written beside
    it and moved over it (a crash leaves one or the other, never half a file). A file that
    changed since it was read (the client wrote it meanwhile) is left alone."""
    if change.after is None:
        return
    path = change.config.path.resolve()  # a symlinked config (dotfiles) keeps its link
    try:
        now = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        now = None
    except OSError as exc:
        raise UsageError(f"Cannot read {path} ({exc.strerror or exc}).") from None
    if now != change.config.text:
        raise UsageError(f"{path} changed while pms-tui was editing it; nothing was written: run the command again.")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = None
        if now is not None:
            shutil.copy2(path, change.backup.resolve())
            mode = stat.S_IMODE(path.stat().st_mode)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
                out.write(change.after)
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
                    command = Path(entry["command"])
                    problem = "" if command.is_file() else f"its command {command} no longer exists"
                    found.append(Found(target, path, name, entry_home(entry), problem))
        if len(found) == before:
            found.append(Found(target, target.user_path(), None))
    return found
