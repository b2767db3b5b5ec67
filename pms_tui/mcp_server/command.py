"""``pms-tui mcp``: its flags, and starting the server. Reading the flags imports nothing
heavy (the CLI builds its parser on every call); the SDK and the engine load in ``run``."""

from __future__ import annotations

import argparse
import io
import os
import sys

DEFAULT_PORT = 8765


def add_mcp_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("mcp", help="serve the index to AI agents over MCP (stdio; --http for one long-lived server)",
                       description="Model Context Protocol server over stdio: tools search, get, multi_get, "
                                   "status, explain; notes as pms://note/ resources. See the README.")
    p.add_argument("--allow-writes", action="store_true", help="offer the writing tools too: sync and clip")
    p.add_argument("--http", action="store_true", help="serve streamable HTTP instead of stdio")
    p.add_argument("--host", default="127.0.0.1", help="address for --http (loopback only unless --force-host)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port for --http (default {DEFAULT_PORT}; 0: any free port)")
    p.add_argument("--force-host", action="store_true",
                   help="listen on a non-loopback --host: anyone who can reach it reads your notes")
    p.set_defaults(func=run)
    return p


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
