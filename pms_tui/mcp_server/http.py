"""``pms-tui mcp --http``: the same server over streamable HTTP, for clients that keep one
long-lived server. It listens on loopback only: anything else would serve private notes to
the network, so another address needs ``--force-host``. Host and Origin headers are checked
too (DNS rebinding: a web page in a browser must not reach the server through a name that
resolves to 127.0.0.1). The SDK answers a request body over 4 MiB with HTTP 413 before
reading it; the largest call the tools allow is far below that."""

from __future__ import annotations

import ipaddress
import socket
import sys

from ..core.errors import UsageError

LOOPBACK_NAMES = ("localhost",)
PATH = "/mcp"


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_host(host: str, forced: bool) -> None:
    """UsageError for an address other than loopback, unless ``forced``."""
    if not is_loopback(host) and not forced:
        raise UsageError(f"pms-tui mcp --http listens on 127.0.0.1 only: {host} would let other machines read "
                         f"your notes; add --force-host to listen there anyway.")


def bind(host: str, port: int) -> socket.socket:
    """The listening socket (port 0: any free port, printed when serving)."""
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        raise UsageError(f"Cannot listen on {host}:{port} ({exc.strerror or exc}).") from None
    sock.listen(64)
    sock.setblocking(False)
    return sock


async def serve_http(server, sock: socket.socket, host: str, forced: bool) -> None:
    import uvicorn
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.applications import Starlette
    from starlette.routing import Route

    names = ["127.0.0.1", "localhost", "[::1]"] + ([host] if host not in ("127.0.0.1", "localhost", "::1") else [])
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=not forced,
        allowed_hosts=[f"{n}:*" for n in names] + names,
        allowed_origins=[f"http://{n}:*" for n in names],
    )
    manager = StreamableHTTPSessionManager(app=server, security_settings=security)

    class Endpoint:
        async def __call__(self, scope, receive, send) -> None:
            await manager.handle_request(scope, receive, send)

    app = Starlette(routes=[Route(PATH, endpoint=Endpoint())], lifespan=lambda _: manager.run())
    port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    print(f"pms-tui mcp: serving streamable HTTP on http://{shown}:{port}{PATH} (ctrl+c stops)",
          file=sys.stderr, flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    await uvicorn.Server(config).serve(sockets=[sock])
