"""The writing tools of ``pms-tui mcp``: listed and working only with ``--allow-writes``
(off by default: see test_mcp_server). sync indexes what changed; clip saves a page as a note."""

from __future__ import annotations

import pytest

from tests.kb_helpers import NOTES, write
from tests.mcp_client import McpClient
from tests.webserver import web  # noqa: F401  (fixture)


@pytest.fixture(scope="module")
def folder_and_client(tmp_path_factory):
    from pms_tui.core.kb import KnowledgeBase

    root = tmp_path_factory.mktemp("mcp-writes")
    folder = root / "notes"
    for rel, text in NOTES.items():
        write(folder, rel, text)
    with KnowledgeBase(home=root / "home") as kb:
        kb.collections.create(folder, name="notes")
        kb.sync()
    client = McpClient(root / "home", "--allow-writes")
    yield folder, client
    client.close()


def test_sync_does_not_wait_for_another_writer(folder_and_client):
    """Another process holding the index's writer lock: sync says so at once, reads go on."""
    import os

    from pms_tui.core.kb import KnowledgeBase

    folder, client = folder_and_client
    with KnowledgeBase(home=folder.parent / "home") as other, other.index.writing():
        busy = client.call("sync", {})
        assert busy.is_error and f"pid {os.getpid()}" in busy.content[0].text
        assert "\n" not in busy.content[0].text
        assert not client.call("search", {"query": "sourdough", "k": 1}).is_error


def test_writing_tools_are_listed_with_the_flag(folder_and_client):
    _, client = folder_and_client
    tools = {t.name: t for t in client.run(lambda s: s.list_tools()).tools}
    assert {"sync", "clip", "search", "get"} <= set(tools)
    assert tools["sync"].annotations.read_only_hint is False
    assert "Writing is allowed" in client.instructions
    assert client.call("status").structured_content["writes_allowed"] is True


def test_sync_indexes_a_new_note_and_search_finds_it(folder_and_client):
    folder, client = folder_and_client
    write(folder, "space/orbits.md", "# Orbits\n\nA Hohmann transfer orbit moves a satellite between circular orbits.\n")
    result = client.call("sync", {})
    assert not result.is_error, result.content[0].text
    report = result.structured_content
    assert report["added"] == ["notes/space/orbits.md"] and report["summary"].startswith("Synced: +1 new")
    hit = client.call("search", {"query": "Hohmann transfer", "k": 1}).structured_content["hits"][0]
    assert hit["id"] == "notes/space/orbits.md"
    assert "no collection named" in client.call("sync", {"collections": ["nope"]}).content[0].text


def test_clip_saves_a_page_that_search_finds(folder_and_client, web):  # noqa: F811
    folder, client = folder_and_client
    result = client.call("clip", {"url": web.url("/2024/03/lazy-pipelines/")})
    assert not result.is_error, result.content[0].text
    clipped = result.structured_content
    assert clipped["status"] == "created" and clipped["id"].startswith("notes/")
    assert (folder / clipped["id"].split("/", 1)[1]).is_file()
    hits = client.call("search", {"query": "lazy pipelines read lines generator", "k": 3}).structured_content["hits"]
    assert hits[0]["id"] == clipped["id"]
    bad = client.call("clip", {"url": "file:///etc/passwd"})
    assert bad.is_error and "\n" not in bad.content[0].text
