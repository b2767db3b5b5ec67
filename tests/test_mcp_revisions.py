"""Clients of every protocol revision connect to ``pms-tui mcp``: the SDK's client lands on the
current revision (2026-07-28, through ``server/discover``), and a client of an earlier one,
spoken here by hand as JSON-RPC lines over stdio (as an agent built on an older SDK sends
them), gets the revision it asks for, lists the tools and calls one."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.kb_helpers import NOTES, write
from tests.mcp_client import McpClient, server_command, server_env

READING = {"search", "get", "multi_get", "status", "explain", "links", "backlinks", "related"}
TIMEOUT = 120


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    from pms_tui.core.kb import KnowledgeBase

    root = tmp_path_factory.mktemp("mcp-revisions")
    for rel, text in NOTES.items():
        write(root / "notes", rel, text)
    with KnowledgeBase(home=root / "home") as kb:
        kb.collections.create(root / "notes", name="notes")
        kb.sync(embed=False)  # BM25 is enough here
    return root / "home"


class LineClient:
    """JSON-RPC over the server's stdin and stdout, one message a line, nothing else."""

    def __init__(self, home):
        self.proc = subprocess.Popen(server_command(home), env=server_env(), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8")
        self.next_id = 0

    def notify(self, method: str, params: dict | None = None) -> None:
        message = {"jsonrpc": "2.0", "method": method, **({"params": params} if params is not None else {})}
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict | None = None) -> dict:
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()
        while True:
            line = self.proc.stdout.readline()
            assert line, "the server closed its output"
            answer = json.loads(line)
            if answer.get("id") == self.next_id:
                return answer

    def close(self) -> str:
        self.proc.stdin.close()
        try:
            self.proc.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise
        return self.proc.stderr.read()


@pytest.mark.parametrize("asked,negotiated", [
    ("2024-11-05", "2024-11-05"), ("2025-03-26", "2025-03-26"), ("2025-06-18", "2025-06-18"),
    ("2025-11-25", "2025-11-25"),
    # a revision the handshake cannot reach, or one the server does not know: its newest handshake revision
    ("2026-07-28", "2025-11-25"), ("2099-01-01", "2025-11-25"),
])
def test_an_older_client_gets_its_revision_and_the_tools(home, asked, negotiated):
    client = LineClient(home)
    try:
        init = client.request("initialize", {"protocolVersion": asked, "capabilities": {},
                                             "clientInfo": {"name": "an-older-agent", "version": "1"}})["result"]
        assert init["protocolVersion"] == negotiated and init["serverInfo"]["name"] == "pms-tui"
        assert "tools" in init["capabilities"] and "notes (3 notes)" in init["instructions"]
        client.notify("notifications/initialized")
        listed = client.request("tools/list")["result"]["tools"]
        assert {t["name"] for t in listed} == READING
        assert all(t["inputSchema"]["additionalProperties"] is False for t in listed)
        called = client.request("tools/call", {"name": "search", "arguments": {"query": "sourdough", "k": 1,
                                                                               "mode": "bm25"}})["result"]
        assert not called.get("isError")
        assert json.loads(called["content"][0]["text"])["hits"][0]["id"] == "notes/cooking/bread.md"
        bad = client.request("tools/call", {"name": "search", "arguments": {"query": 5}})["result"]
        assert bad["isError"] and "must be a string" in bad["content"][0]["text"]
    finally:
        stderr = client.close()
    assert "Traceback" not in stderr


@pytest.mark.parametrize("mode,negotiated", [("auto", "2026-07-28"), ("legacy", "2025-11-25")])
def test_the_sdk_client_lands_on_the_current_revision(home, mode, negotiated):
    """The SDK's client asks server/discover first (2026-07-28); in legacy mode it makes the
    initialize handshake. The instructions come from the live index either way."""
    client = McpClient(home, mode=mode)
    try:
        assert client.protocol_version == negotiated
        assert "notes (3 notes)" in client.instructions
        found = client.call("search", {"query": "sourdough", "k": 1, "mode": "bm25"})
        assert found.structured_content["hits"][0]["id"] == "notes/cooking/bread.md"
        templates = client.run(lambda c: c.list_resource_templates()).resource_templates
        assert [t.uri_template for t in templates] == ["pms://note/{collection}/{+path}"]
        read = client.run(lambda c: c.read_resource("pms://note/notes/cooking/bread.md"))
        on_disk = (home.parent / "notes" / "cooking" / "bread.md").read_text(encoding="utf-8")
        assert read.contents[0].text == on_disk
        assert "Traceback" not in client.stderr()
    finally:
        client.close()
