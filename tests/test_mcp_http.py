"""``pms-tui mcp --http``: streamable HTTP on 127.0.0.1 only, driven by the SDK's HTTP client;
any other address is refused unless forced, and a foreign Host header is turned away."""

from __future__ import annotations

import asyncio
import re
import signal
import subprocess
import time

import httpx
import pytest
from mcp import Client

from tests.kb_helpers import NOTES, write
from tests.mcp_client import server_command, server_env


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    from pms_tui.core.kb import KnowledgeBase

    root = tmp_path_factory.mktemp("mcp-http")
    for rel, text in NOTES.items():
        write(root / "notes", rel, text)
    with KnowledgeBase(home=root / "home") as kb:
        kb.collections.create(root / "notes", name="notes")
        kb.sync(embed=False)  # BM25 is enough here
    return root / "home"


def _start(home):
    proc = subprocess.Popen(server_command(home, "--http", "--port", "0"), env=server_env(),
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        found = re.search(r"(http://127\.0\.0\.1:\d+/mcp)", line)
        if found:
            return proc, found.group(1)
        if not line and proc.poll() is not None:
            break
    proc.kill()
    raise AssertionError("the HTTP server did not say where it listens")


def test_http_serves_the_same_tools_on_loopback(home):
    proc, url = _start(home)
    try:
        async def session(mode: str):
            async with Client(url, mode=mode) as client:
                tools = {t.name for t in (await client.list_tools()).tools}
                found = await client.call_tool("search", {"query": "sourdough bread", "k": 1, "mode": "bm25"})
                return client.protocol_version, client.instructions, tools, found

        # the current revision (server/discover), then the initialize handshake of earlier ones
        for mode, revision in (("auto", "2026-07-28"), ("legacy", "2025-11-25")):
            negotiated, instructions, tools, found = asyncio.run(session(mode))
            assert negotiated == revision
            assert instructions and "notes (3 notes)" in instructions
            assert tools == {"search", "get", "multi_get", "status", "explain", "links", "backlinks", "related"}
            assert found.structured_content["hits"][0]["id"] == "notes/cooking/bread.md"
        for revision in ("2025-11-25", "2026-07-28"):  # both ways in check the Host header
            foreign = httpx.post(url, headers={"Host": "evil.example", "Content-Type": "application/json",
                                               "MCP-Protocol-Version": revision}, content=b"{}", timeout=10)
            assert foreign.status_code in (400, 403, 421)
        huge = httpx.post(url, headers={"Content-Type": "application/json", "Accept": "application/json"},
                          content=b" " * (5 * 1024 * 1024), timeout=30)
        assert huge.status_code == 413  # refused before it is read
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    assert "Traceback" not in proc.stderr.read()


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "example.org"])
def test_other_addresses_are_refused_unless_forced(home, host):
    done = subprocess.run(server_command(home, "--http", "--host", host), env=server_env(),
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "--force-host" in done.stderr and "Traceback" not in done.stderr
