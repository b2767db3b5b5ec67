"""Query vectors served by a running app or `pms-tui mcp` to one-shot searches of its home.

A one-shot `pms-tui search` spends most of its CPU making its query vector (a helper process
loads the model: ``helper``). When the app or the MCP server of the same home is
running, its model is loaded already: it listens on a Unix socket in the home
(``<home>/run/query.sock``; the folder owner-only, 0700, the socket 0600, and a connection from
another user is refused by its peer credentials), and the CLI asks it first. A request is one
line of JSON (``query``, ``model``, ``max_tokens``); the answer is the query's text as JSON, a
newline and its float32 vector (what the helper process sends), or nothing when the server
cannot give the same vector (another model or window, the model not loaded yet). The server
embeds with the same code as the helper's would give (``tests/test_query_model.py``: bit-equal),
so the search's answer is the same. Nothing answering in ``TIMEOUT``: the CLI embeds as before.

Linux only (peer credentials); nothing else is served and nothing is read from the index.
"""

from __future__ import annotations

import json
import os
import socket
import struct
import sys
import threading
from pathlib import Path

SOCKET = Path("run") / "query.sock"
TIMEOUT = 1.0  # seconds a one-shot search waits for an answer before embedding itself
MAX_REQUEST = 65536  # bytes of a request line


def socket_path(home: Path) -> Path:
    return home / SOCKET


def ask(home: Path, query: str, model: str, max_tokens: int, timeout: float = TIMEOUT) -> bytes | None:
    """The served answer (text as JSON, a newline, float32 bytes) or None: no server, another
    model, a slow or broken one. Never raises."""
    if not sys.platform.startswith("linux"):
        return None
    path = socket_path(home)
    if not path.exists():
        return None
    request = json.dumps({"query": query, "model": model, "max_tokens": max_tokens}).encode("utf-8", "replace")
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(timeout)
            conn.connect(str(path))
            conn.sendall(request + b"\n")
            conn.shutdown(socket.SHUT_WR)
            chunks = []
            while data := conn.recv(65536):
                chunks.append(data)
    except (OSError, ValueError):
        return None
    return b"".join(chunks) or None


class QueryVectorServer:
    """Answers one-shot searches' query vectors with ``embedder`` (loaded) on a daemon thread."""

    def __init__(self, home: Path, embedder, parse_text):
        self.home = home
        self.embedder = embedder
        self.parse_text = parse_text  # query -> the text a search embeds (its words without filters)
        self._listener: socket.socket | None = None
        self._inode: int | None = None

    def start(self) -> bool:
        """Listen, unless another live server holds the socket or it cannot be made (a path too
        long for a Unix socket, a read-only home): then False, and searches embed as before."""
        if not sys.platform.startswith("linux") or self._listener is not None:
            return False
        path = socket_path(self.home)
        try:
            path.parent.mkdir(mode=0o700, exist_ok=True)
            os.chmod(path.parent, 0o700)
            if path.exists() or path.is_symlink():
                if _alive(path):
                    return False
                path.unlink()  # left by a process that was killed
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            old = os.umask(0o177)
            try:
                listener.bind(str(path))
            finally:
                os.umask(old)
            os.chmod(path, 0o600)
            listener.listen(8)
        except OSError:
            return False
        self._listener = listener
        self._inode = path.stat().st_ino
        threading.Thread(target=self._serve, name="pms-query-service", daemon=True).start()
        return True

    def stop(self) -> None:
        listener, self._listener = self._listener, None
        if listener is None:
            return
        path = socket_path(self.home)
        try:
            if path.stat().st_ino == self._inode:  # ours, not a newer server's
                path.unlink()
        except OSError:
            pass
        try:
            listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        listener.close()

    def _serve(self) -> None:
        while (listener := self._listener) is not None:
            try:
                conn, _ = listener.accept()
            except OSError:  # closed by stop()
                return
            threading.Thread(target=self._answer, args=(conn,), name="pms-query-answer", daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with conn:
            try:
                conn.settimeout(5)
                if not _same_user(conn):
                    return
                data = b""
                while b"\n" not in data and len(data) < MAX_REQUEST:
                    part = conn.recv(4096)
                    if not part:
                        break
                    data += part
                request = json.loads(data.partition(b"\n")[0])
                embedder = self.embedder
                if (request.get("model") != embedder.model_name or request.get("max_tokens") != embedder.max_tokens
                        or not embedder.ready or not isinstance(request.get("query"), str)):
                    return  # the client embeds itself
                text = self.parse_text(request["query"])
                vector = embedder.embed_query(text)
                conn.sendall(json.dumps(text).encode("utf-8") + b"\n" + vector.astype("<f4").tobytes())
            except Exception:  # noqa: BLE001 - a bad request or a gone client: it embeds itself
                return


def _alive(path: Path) -> bool:
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            probe.settimeout(0.5)
            probe.connect(str(path))
        return True
    except OSError:
        return False


def _same_user(conn: socket.socket) -> bool:
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    return uid == os.getuid()
