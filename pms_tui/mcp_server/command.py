"""``pms-tui mcp``: its flags, and starting the server; ``pms-tui mcp install CLIENT`` and
``uninstall CLIENT`` (``clients``). Reading the flags imports nothing heavy (the CLI builds
its parser on every call); the SDK and the engine load in ``run``."""

from __future__ import annotations

import argparse
import io
import os
import sys
from pathlib import Path

DEFAULT_PORT = 8765
CLIENT_NAMES = "claude-code, claude-desktop, cursor, vscode, codex, gemini, windsurf, zed or opencode"


def add_mcp_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("mcp", help="serve the index to AI agents over MCP (stdio; --http for one long-lived server)",
                       description="Model Context Protocol server over stdio: tools search, get, multi_get, "
                                   "status, explain; notes as pms://note/ resources. `pms-tui mcp install "
                                   "CLIENT` writes it into an agent's config. See the README.")
    p.add_argument("--allow-writes", action="store_true", help="offer the writing tools too: sync and clip")
    p.add_argument("--http", action="store_true", help="serve streamable HTTP instead of stdio")
    p.add_argument("--host", default="127.0.0.1", help="address for --http (loopback only unless --force-host)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port for --http (default {DEFAULT_PORT}; 0: any free port)")
    p.add_argument("--force-host", action="store_true",
                   help="listen on a non-loopback --host: anyone who can reach it reads your notes")
    p.set_defaults(func=run)
    actions = p.add_subparsers(dest="mcp_action", metavar="[install|uninstall CLIENT]")
    for action, about in (("install", "write this install and its home into an agent's MCP config (shows the "
                                      "change first; keeps a backup)"),
                          ("uninstall", "remove what install wrote from an agent's MCP config (only that entry)")):
        a = actions.add_parser(action, help=about, description=about[0].upper() + about[1:] + ".")
        a.add_argument("client", metavar="CLIENT", help=CLIENT_NAMES)
        a.add_argument("--dry-run", action="store_true", help="show the change and write nothing")
        a.add_argument("--scope", choices=("user", "project"), default="user",
                       help="user (default): the client's own config; project: the config in this folder "
                            "(.mcp.json, .cursor/mcp.json, .vscode/mcp.json, .codex/config.toml, "
                            ".gemini/settings.json, .zed/settings.json, opencode.json)")
        a.add_argument("--config", metavar="PATH", help="this config file instead of the client's usual one")
        a.add_argument("--name", default="pms-tui", help="the server's name in the config (default pms-tui)")
        if action == "install":
            a.add_argument("--allow-writes", dest="entry_allow_writes", action="store_true",
                           help="the agent may use the writing tools too (sync, clip)")
        a.set_defaults(func=install if action == "install" else uninstall)
    return p


def install(args) -> int:
    """Add (or refresh) this install's entry in a client's config."""
    from ..core.config import DB_FILE, default_home
    from . import clients

    target = clients.client(args.client)
    home = (Path(args.home).expanduser() if args.home else default_home()).absolute()
    change = clients.plan_install(target, target.path(args.scope, args.config), home, name=args.name,
                                  allow_writes=args.entry_allow_writes or args.allow_writes)
    done = _show(change, args.dry_run)
    if done and not (home / DB_FILE).exists():
        _say(f"The home {home} holds no index yet: `pms-tui --home {home} add FOLDER`, then `sync`.")
    if done:
        _say(target.restart)
    if args.scope == "project" and not args.config and target.project_note:
        _say(target.project_note)
    return 0


def uninstall(args) -> int:
    """Remove this install's entry (by its name, and only if it runs pms-tui) from a client's config."""
    from . import clients

    target = clients.client(args.client)
    _show(clients.plan_uninstall(target, target.path(args.scope, args.config), name=args.name), args.dry_run)
    return 0


def _say(text: str) -> None:
    from ..core.safe_text import safe_text

    print(safe_text(text))


def _show(change, dry_run: bool) -> bool:
    """Print the change, then make it unless ``dry_run``; True when a file was written."""
    from . import clients

    _say(change.summary)
    if change.after is None:
        return False
    _say(change.diff().rstrip("\n"))
    if dry_run:
        _say("Dry run: nothing was written.")
        return False
    clients.apply(change)
    _say(f"Written; the file as it was is kept as {change.backup}." if change.config.text is not None
         else f"Written: {change.config.path} is new.")
    return True


def protocol_stdout() -> io.TextIOWrapper:
    """The protocol's own copy of stdout; file descriptor 1 then points at stderr, so nothing a
    library prints (Python or C) can break a message."""
    fd = os.dup(1)
    os.dup2(2, 1)
    return io.TextIOWrapper(os.fdopen(fd, "wb"), encoding="utf-8", newline="\n")


def run(args) -> int:
    """Start the server; returns when the client goes away (stdio) or on ctrl+c (HTTP)."""
    from ..core.errors import PmsError
    from ..core.safe_text import safe_text

    given = args.home or os.environ.get("PMS_TUI_HOME")
    if given and not Path(given).expanduser().is_dir():
        # a typo in a client's config must not make an empty home the agent then searches
        print(safe_text(f"pms-tui: the home {given} does not exist; nothing was started: create it with "
                        f"`pms-tui --home {given} add FOLDER`, or correct --home."), file=sys.stderr)
        return 1
    sock = None
    if args.http:
        from .http import bind, check_host

        check_host(args.host, args.force_host)
        sock = bind(args.host, args.port)
    else:
        stdout = protocol_stdout()  # before anything can print
    from .runner import KbRunner

    # the index and the model open on their threads while this one imports the MCP SDK
    runner = KbRunner(args.home, allow_writes=args.allow_writes)
    try:
        import anyio

        from .server import PmsServer, serve_stdio

        runner.wait_opened()
        server = PmsServer(runner)
        if sock is not None:
            from .http import serve_http

            anyio.run(serve_http, server, sock, args.host, args.force_host)
        else:
            anyio.run(serve_stdio, server, stdout)
    except KeyboardInterrupt:
        pass
    except PmsError as exc:
        print(safe_text(f"pms-tui: {exc}"), file=sys.stderr)
        return 1
    finally:
        runner.close()
    return 0
