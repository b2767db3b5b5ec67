"""The MCP SDK's own client, driving ``pms-tui mcp`` started as a real subprocess.

``McpClient`` keeps one SDK ``Client`` over stdio open on an event loop of its own thread,
so synchronous tests share one server per module and call it as ``client.call(...)``. By
default it connects as the SDK does (``server/discover``: the 2026-07-28 revision);
``mode="legacy"`` makes the ``initialize`` handshake of earlier revisions instead. The
server's stderr goes to a file the tests read (it must never hold a traceback).
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import threading
from concurrent.futures import Future
from pathlib import Path

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

TIMEOUT = 120


def server_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PMS_TUI_")}
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    return env


def server_command(home: Path, *flags: str) -> list[str]:
    return [sys.executable, "-m", "pms_tui", "--home", str(home), "mcp", *flags]


class McpClient:
    def __init__(self, home: Path, *flags: str, mode: str = "auto"):
        self.mode = mode
        command = server_command(home, *flags)
        self.params = StdioServerParameters(command=command[0], args=command[1:], env=server_env())
        self.errlog = tempfile.NamedTemporaryFile("w+", suffix=".log", delete=False)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="mcp-client", daemon=True)
        self.thread.start()
        self._closing: asyncio.Event | None = None
        self._done: asyncio.Future | None = None
        ready: Future = Future()
        self._main = asyncio.run_coroutine_threadsafe(self._serve(ready), self.loop)
        self.client: Client = ready.result(TIMEOUT)
        self.instructions = self.client.instructions or ""
        self.protocol_version = self.client.protocol_version

    async def _serve(self, ready: Future) -> None:
        self._closing = asyncio.Event()
        try:
            async with Client(stdio_client(self.params, errlog=self.errlog), mode=self.mode) as client:
                ready.set_result(client)
                await self._closing.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc)
            raise

    def run(self, make, timeout: float = TIMEOUT):
        """``await make(client)`` on the client's loop; its result."""
        return asyncio.run_coroutine_threadsafe(make(self.client), self.loop).result(timeout)

    def call(self, name: str, arguments: dict | None = None):
        return self.run(lambda s: s.call_tool(name, arguments or {}))

    def stderr(self) -> str:
        return Path(self.errlog.name).read_text(encoding="utf-8", errors="replace")

    def close(self) -> None:
        if self._closing is not None:
            self.loop.call_soon_threadsafe(self._closing.set)
        try:
            self._main.result(30)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)
            self.errlog.close()
            os.unlink(self.errlog.name)
