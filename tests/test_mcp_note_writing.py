"""An agent writes notes through ``pms-tui mcp --allow-writes``, driven by the MCP SDK's own
client: it creates a note, appends to it, edits a section, renames it (the links to it
rewritten) and deletes it, in a writable collection; each is searchable when the call
returns, journaled, and undoable. Without the flag, or in a read-only collection, it cannot."""

from __future__ import annotations

import time

import pytest

from tests.kb_helpers import NOTES, write
from tests.mcp_client import McpClient


@pytest.fixture(scope="module")
def agent(tmp_path_factory):
    from pms_tui.core.kb import KnowledgeBase

    root = tmp_path_factory.mktemp("mcp-note-writing")
    folder, other = root / "notes", root / "other"
    for rel, text in NOTES.items():
        write(folder, rel, text)
    write(other, "kept.md", "# Kept\n\nNot for agents.\n")
    with KnowledgeBase(home=root / "home") as kb:
        kb.collections.create(folder, name="notes")
        kb.collections.create(other, name="other")
        kb.collections.set_writable("notes", True)
        kb.sync()
    client = McpClient(root / "home", "--allow-writes")
    yield folder, client
    client.close()


def ok(result) -> dict:
    assert not result.is_error, result.content[0].text
    return result.structured_content


def found(client, query: str, mode: str = "bm25") -> list[str]:
    return [h["id"] for h in ok(client.call("search", {"query": query, "k": 5, "mode": mode}))["hits"]]


def version(client, note: str) -> str:
    return ok(client.call("get", {"note": note}))["version"]


def test_an_agent_creates_edits_renames_and_deletes_a_note(agent):
    folder, client = agent
    created = ok(client.call("create_note", {"title": "Meeting with Ada", "folder": "meetings",
                                             "body": "# Meeting with Ada\n\n## Decisions\n\nUse the quokkabrand.\n",
                                             "tags": ["meeting"]}))
    note = created["id"]
    assert note == "notes/meetings/meeting-with-ada.md" and found(client, "quokkabrand") == [note]
    write(folder, "index.md", "# Index\n\n- [[meeting-with-ada]]\n")
    ok(client.call("sync", {}))

    appended = ok(client.call("edit_note", {"note": note, "version": version(client, note), "action": "append",
                                            "text": "Follow-up: the zebrafinch budget."}))
    assert found(client, "zebrafinch") == [note]
    ok(client.call("edit_note", {"note": note, "version": appended["version"], "action": "replace_section",
                                 "heading": "Decisions", "text": "Use the lyrebird plan."}))
    assert found(client, "lyrebird") == [note] and found(client, "quokkabrand") == []

    moved = ok(client.call("move_note", {"note": note, "version": version(client, note), "to": "meetings/ada-2026"}))
    new = moved["id"]
    assert new == "notes/meetings/ada-2026.md" and moved["links_rewritten_in"] == ["index.md"]
    assert "[[ada-2026]]" in (folder / "index.md").read_text()
    assert [b["source"] for b in ok(client.call("backlinks", {"note": new}))["backlinks"]] == ["index.md"]
    assert found(client, "lyrebird") == [new]

    ok(client.call("delete_note", {"note": new, "version": version(client, new)}))
    assert found(client, "lyrebird") == [] and not (folder / "meetings/ada-2026.md").exists()

    writes = ok(client.call("recent", {"since": "1h"}))["writes"]
    tools = [w["tool"] for w in writes if w["note"].startswith("notes/meetings/")]
    assert tools == ["delete_note", "move_note", "replace_section", "append", "create_note"]
    assert {w["client"] for w in writes} == {"mcp:mcp"} or all(w["client"].startswith("mcp") for w in writes)

    # each is undoable, newest first: the delete, the move (with its links), the section, the append
    ok(client.call("undo", {}))
    assert found(client, "lyrebird") == [new]
    ok(client.call("undo", {}))
    assert "[[meeting-with-ada]]" in (folder / "index.md").read_text() and found(client, "lyrebird") == [note]
    ok(client.call("undo", {}))
    assert found(client, "quokkabrand") == [note]
    ok(client.call("undo", {}))
    assert found(client, "zebrafinch") == []


def test_a_written_note_is_found_by_meaning_seconds_later(agent):
    _, client = agent
    created = ok(client.call("create_note", {"title": "Tide pools", "body": "Anemones and hermit crabs live in "
                                             "the rocky pools the sea leaves behind at low water."}))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        hits = ok(client.call("search", {"query": "creatures left by the ebbing ocean", "k": 3, "mode": "vector"}))
        if created["id"] in [h["id"] for h in hits["hits"]]:
            break
        time.sleep(0.5)
    else:
        pytest.fail("the note was not found by meaning within 60 s")


def test_a_stale_version_is_refused_with_the_version_now(agent):
    folder, client = agent
    note = "notes/cooking/bread.md"
    old = version(client, note)
    path = folder / "cooking/bread.md"
    path.write_text(path.read_text() + "\nThe person's own line.\n")
    refused = client.call("edit_note", {"note": note, "version": old, "action": "append", "text": "agent"})
    assert refused.is_error
    text = refused.content[0].text
    assert "changed since version" in text and version(client, note) in text and "+The person's own line." in text
    assert "agent" not in path.read_text().split("own line.")[-1]


@pytest.mark.parametrize("args, says", [
    ({"title": "x", "collection": "other"}, "read-only for agents"),
    ({"title": "x", "path": "../escape.md"}, "leaves or skips a folder"),
    ({"title": "x", "path": ".obsidian/workspace.md"}, "hidden file or folder"),
    ({"title": "x", "path": "NUL.md"}, "Windows reserves"),
    ({"title": "x", "path": "paper.pdf"}, "documents stay read-only"),
])
def test_writes_outside_what_is_allowed_are_refused_in_one_sentence(agent, args, says):
    _, client = agent
    result = client.call("create_note", args)
    assert result.is_error and says in result.content[0].text and "\n" not in result.content[0].text


def test_bad_arguments_are_told_by_the_schema(agent):
    _, client = agent
    bad = client.call("edit_note", {"note": "notes/cooking/bread.md", "version": "abc", "action": "append"})
    assert bad.is_error and "\n" not in bad.content[0].text
    bad = client.call("edit_note", {"note": "notes/cooking/bread.md", "version": "0" * 64, "action": "explode"})
    assert bad.is_error


def test_the_tools_are_off_without_the_flag(tmp_path):
    from pms_tui.core.kb import KnowledgeBase

    write(tmp_path / "n", "a.md", "# A\n")
    with KnowledgeBase(home=tmp_path / "home") as kb:
        kb.collections.create(tmp_path / "n", name="n")
        kb.collections.set_writable("n", True)
    client = McpClient(tmp_path / "home")
    try:
        names = {t.name for t in client.run(lambda s: s.list_tools()).tools}
        assert not {"create_note", "edit_note", "move_note", "delete_note", "undo"} & names
        result = client.call("create_note", {"title": "x"})
        assert result.is_error and "--allow-writes" in result.content[0].text
    finally:
        client.close()
    assert [p.name for p in (tmp_path / "n").iterdir()] == ["a.md"]
