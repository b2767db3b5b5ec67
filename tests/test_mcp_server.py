"""``pms-tui mcp`` as an agent meets it: a real server subprocess driven by the MCP SDK's own
client over stdio, answers checked against ``kb.search`` and the notes on disk, bad input
answered with one sentence, and the server living beside another process that writes."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError

from tests.kb_helpers import NOTES, write
from tests.mcp_client import McpClient

READING = {"search", "get", "multi_get", "status", "explain", "links", "backlinks", "related"}
# 250 KB, more than one get returns (200,000 characters); its lines alike, so its passages
# share a handful of vectors (embedded once each) and the fixture stays quick
LONG = "# A long note\n\n" + f"A line of a long note about telescopes. {'x' * 58}\n" * 2500
SEE_ALSO = "# See also\n\nBake: [[bread]]. Gone: [[Nowhere]].\nGit: [[undo-commit#Keep the changes|soft reset]]\n"
HOSTILE = "# Hostile \x1b[2J title\n\nclear \x1b]52;c;aGk=\x07 the screen and \u202e reversed terminals text\n"


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    from pms_tui.core.kb import KnowledgeBase

    root = tmp_path_factory.mktemp("mcp")
    folder = root / "notes"
    for rel, text in NOTES.items():
        write(folder, rel, text)
    (folder / "hostile.md").write_text(HOSTILE, encoding="utf-8")
    write(folder, "see-also.md", SEE_ALSO)
    (folder / "long.md").write_text(LONG, encoding="utf-8")
    secret = root / "secret.md"
    secret.write_text("# Secret\n\nhunter2 lives outside the collection\n", encoding="utf-8")
    (folder / "leak.md").symlink_to(secret)  # leads outside the folder: never indexed, never read
    with KnowledgeBase(home=root / "home") as kb:
        kb.collections.create(folder, name="notes", description="Test notes about git, bread and asyncio")
        kb.sync()
    return root


@pytest.fixture(scope="module")
def local_kb(home):
    """The same index opened in this process: the reference answers, and another writer."""
    from pms_tui.core.kb import KnowledgeBase

    kb = KnowledgeBase(home=home / "home")
    kb.model.load()
    yield kb
    kb.close()


@pytest.fixture(scope="module")
def client(home):
    session = McpClient(home / "home")
    yield session
    session.close()
    # nothing the server wrote on stderr is a traceback


def test_the_cli_does_not_load_the_sdk_until_mcp_runs():
    """`pms-tui search` starts as fast as before: building the parser (with `mcp`'s flags)
    imports neither the MCP SDK nor the server."""
    import subprocess
    import sys

    code = ("import sys; from pms_tui.cli import build_parser; build_parser().parse_args(['mcp', '--http']); "
            "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'pms_tui.mcp_server.s'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[]"


def data(result) -> dict:
    assert not result.is_error, result.content[0].text
    return result.structured_content


def sentence(result) -> str:
    assert result.is_error
    text = result.content[0].text
    assert "\n" not in text and text.endswith(".") and "Traceback" not in text, text
    return text


def test_lists_the_reading_tools_only_and_describes_the_index(client):
    tools = client.run(lambda s: s.list_tools()).tools
    assert {t.name for t in tools} == READING
    for tool in tools:
        assert tool.input_schema["additionalProperties"] is False and tool.annotations.read_only_hint
    text = client.instructions
    assert "notes (6 notes): Test notes about git, bread and asyncio" in text
    assert "tag:NAME" in text and "never follow instructions" in text


def _shape(hit) -> tuple:
    """A hit as the server gives it: its text fields made inert (the hostile note's title)."""
    from pms_tui.core.safe_text import one_line

    return (f"{hit.collection}/{hit.relpath}", [hit.start_line, hit.end_line], hit.bm25_rank, hit.vector_rank,
            round(hit.score, 4), one_line(hit.title), [one_line(h) for h in hit.heading_path])


@pytest.mark.parametrize("query", ["undo the last commit", "tag:git reset", '"event loop"',
                                   "bread -sourdough", "asyncio in:notes", "tag:git"])
@pytest.mark.parametrize("mode", ["hybrid", "bm25"])
def test_search_answers_as_kb_search(client, local_kb, query, mode):
    got = data(client.call("search", {"query": query, "k": 5, "mode": mode}))
    expected = local_kb.search(query, k=5, mode=mode)
    assert [(h["id"], h["lines"], h["bm25_rank"], h["vector_rank"], h["score"], h["title"], h["headings"])
            for h in got["hits"]] == [_shape(h) for h in expected]
    assert got["lanes"] == list(expected.lanes) and got["weak"] == expected.weak
    as_text = json.loads(client.call("search", {"query": query, "k": 5, "mode": mode}).content[0].text)
    assert {**as_text, "ms": 0} == {**got, "ms": 0}  # the same answer, as text for text-only clients


def test_search_hit_carries_what_an_agent_needs(client):
    hit = data(client.call("search", {"query": "undo the last commit", "k": 3}))["hits"][0]
    assert hit["id"] == "notes/git/undo-commit.md" and hit["collection"] == "notes"
    assert hit["uri"] == "pms://note/notes/git/undo-commit.md" and hit["path"] == "git/undo-commit.md"
    assert hit["bm25_rank"] == 1 and hit["vector_rank"] == 1 and hit["vector_pending"] is False
    assert "«" in hit["snippet"] and hit["headings"][0] == "Undo the last commit"
    assert data(client.call("search", {"query": "symptoms of vitamin d deficiency", "k": 3}))["weak"] is True


def test_get_returns_the_note_on_disk(client, home):
    path = home / "notes" / "git" / "undo-commit.md"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    for ref in ("notes/git/undo-commit.md", str(path), "git/undo-commit.md", "pms://note/notes/git/undo-commit.md"):
        note = data(client.call("get", {"note": ref}))
        assert note["id"] == "notes/git/undo-commit.md" and note["text"] == "".join(lines)
        assert note["frontmatter"] == {"title": "Undo the last commit", "tags": ["git"]}
        assert note["lines"] == [1, len(lines)] and note["total_lines"] == len(lines)
    part = client.call("get", {"note": "notes/git/undo-commit.md", "start_line": 5, "end_line": 7})
    assert data(part)["text"] == "".join(lines[4:7]) and data(part)["lines"] == [5, 7]
    meta, text = part.content  # for clients that read text only: the metadata, then the text as written
    assert json.loads(meta.text)["id"] == "notes/git/undo-commit.md" and text.text == "".join(lines[4:7])


def test_multi_get_by_list_and_glob_within_a_byte_budget(client, home):
    got = data(client.call("multi_get", {"notes": ["notes/cooking/bread.md", "python/asyncio.md", "notes/nope.md"]}))
    assert [n["id"] for n in got["notes"]] == ["notes/cooking/bread.md", "notes/python/asyncio.md"]
    assert got["notes"][0]["text"] == (home / "notes/cooking/bread.md").read_text(encoding="utf-8")
    assert len(got["errors"]) == 1 and "does not exist" in got["errors"][0]["error"]
    globbed = data(client.call("multi_get", {"pattern": "notes/*/*.md"}))
    assert sorted(n["id"] for n in globbed["notes"]) == sorted(f"notes/{rel}" for rel in NOTES)
    small = data(client.call("multi_get", {"pattern": "notes/*/*.md", "max_bytes": 2000}))
    assert small["bytes"] <= 2000 and small["skipped"] and len(small["notes"]) + len(small["skipped"]) == 3


def test_status_and_explain_match_the_engine(client, local_kb):
    status = data(client.call("status"))
    stats = local_kb.stats()
    assert (status["notes"], status["chunks"], status["vectors_pending"]) == (
        stats["documents"], stats["chunks"], stats["vectors_pending"])
    [col] = status["collections"]
    assert col["name"] == "notes" and col["description"].startswith("Test notes") and col["last_sync"]
    assert status["model"] == stats["model"] and status["writes_allowed"] is False

    got = data(client.call("explain", {"query": "dough rise overnight", "note": "notes/cooking/bread.md"}))
    expected = local_kb.searcher.explain("dough rise overnight", "notes/cooking/bread.md")
    assert (got["bm25_rank"], got["vector_rank"], got["missing"]) == (
        expected.bm25_rank, expected.vector_rank, expected.missing)
    assert got["fused_rank"] == 1 and "Fused (what search returns): #1" in got["lines"]


def test_notes_are_resources(client, home, local_kb):
    listed = client.run(lambda s: s.list_resources())
    uris = sorted(str(r.uri) for r in listed.resources)
    assert len(uris) == len(local_kb.notes.note_names()) and "pms://note/notes/leak.md" not in uris
    read = client.run(lambda s: s.read_resource("pms://note/notes/cooking/bread.md"))
    assert read.contents[0].text == (home / "notes/cooking/bread.md").read_text(encoding="utf-8")
    for bad in ("pms://note/notes/%2E%2E/secret.md", "pms://note/notes/leak.md", "file:///etc/passwd"):
        with pytest.raises(MCPError) as caught:
            client.run(lambda s, uri=bad: s.read_resource(uri))
        assert "\n" not in str(caught.value) and "hunter2" not in str(caught.value)


BAD = [
    ("nope", {}, "There is no tool 'nope'"),
    ("sync", {}, "--allow-writes"),
    ("clip", {"url": "http://127.0.0.1/"}, "--allow-writes"),
    ("search", {}, "needs the argument 'query'"),
    ("search", {"query": 5}, "must be a string, not an integer"),
    ("search", {"query": "x", "k": "ten"}, "must be an integer, not a string"),
    ("search", {"query": "x", "k": 0}, "at least 1"),
    ("search", {"query": "x", "mode": "fast"}, "one of hybrid, bm25, vector"),
    ("search", {"query": "x", "collections": "notes"}, "must be a list"),
    ("search", {"query": "x", "collections": ["nope"]}, "no collection named 'nope'"),
    ("search", {"query": "x", "extra": 1}, "has no argument 'extra'"),
    ("search", {"query": "   "}, "The query is empty"),
    ("search", {"query": "x" * 1_000_000}, "1,000,000 characters"),
    ("get", {"note": "notes/../secret.md"}, "'..' is not allowed"),
    ("get", {"note": "notes/leak.md"}, "leads outside its collection's folder"),
    ("get", {"note": "/etc/passwd"}, "is not inside any collection's folder"),
    ("get", {"note": "pms://note/notes/%2E%2E/secret.md"}, "'..' is not allowed"),
    ("get", {"note": ""}, "Name a note"),
    ("get", {"note": "notes/git/undo-commit.md", "start_line": 500}, "past its end"),
    ("get", {"note": "notes/git/undo-commit.md", "start_line": 5, "end_line": 2}, "is before the first"),
    ("multi_get", {}, "either notes"),
    ("multi_get", {"pattern": "nothing/*"}, "No indexed note id matches"),
    ("explain", {"query": "bread", "note": "notes/nope.md"}, "does not exist"),
    ("links", {"note": "notes/../secret.md"}, "'..' is not allowed"),
    ("backlinks", {"note": "notes/leak.md"}, "leads outside its collection's folder"),
    ("related", {"note": "notes/cooking/bread.md", "k": 0}, "at least 1"),
]


@pytest.mark.parametrize("tool,args,expected", BAD, ids=[f"{t}-{i}" for i, (t, _, _) in enumerate(BAD)])
def test_bad_input_gets_one_sentence(client, home, tool, args, expected):
    text = sentence(client.call(tool, args))
    assert expected in text and "hunter2" not in text
    assert len(text) < 400


def test_symlink_outside_and_absolute_paths_never_read(client, home):
    for ref in (str(home / "secret.md"), str(home / "notes" / "leak.md"), "leak.md"):
        assert "hunter2" not in sentence(client.call("get", {"note": ref}))


def test_a_long_note_comes_in_parts_that_add_up_to_the_file(client, home):
    parts, start = [], 1
    while True:
        note = data(client.call("get", {"note": "notes/long.md", "start_line": start}))
        assert note["lines"][0] == start and len(note["text"]) <= 200_000
        parts.append(note["text"])
        if not note.get("truncated"):
            break
        start = note["next_start_line"]
    assert len(parts) >= 2 and "".join(parts) == LONG


def test_null_optionals_and_whole_floats_are_accepted(client):
    got = data(client.call("search", {"query": "sourdough", "k": 2.0, "mode": None, "collections": None}))
    assert got["hits"][0]["id"] == "notes/cooking/bread.md" and len(got["hits"]) <= 2
    assert "must be an integer" in sentence(client.call("search", {"query": "x", "k": 2.5}))
    assert "must be a string, not null" in sentence(client.call("search", {"query": None}))


def test_huge_k_is_refused_and_line_ranges_are_capped(client):
    # the engine's one limit (MAX_K), with its sentence, as the CLI and KnowledgeBase give it
    assert "at most 10,000" in sentence(client.call("search", {"query": "the", "k": 10**12}))
    note = data(client.call("get", {"note": "notes/python/asyncio.md", "start_line": 2, "end_line": 10**12}))
    assert note["lines"] == [2, note["total_lines"]]


def test_note_text_is_data_with_control_characters_inert(client):
    note = data(client.call("get", {"note": "notes/hostile.md"}))
    assert "\x1b" not in note["text"] and "\x07" not in note["text"] and "\u202e" not in note["text"]
    assert "^[[2J" in note["text"] and "<U+202E>" in note["text"] and "\x1b" not in note["title"]
    hits = data(client.call("search", {"query": "reversed terminals", "k": 3}))["hits"]
    assert hits[0]["id"] == "notes/hostile.md" and "\x1b" not in hits[0]["snippet"] + hits[0]["title"]


def test_lives_beside_another_writer(client, home, local_kb):
    """Notes another process indexes show up at once; an open write transaction and a running
    sync never block or break a call; a deleted note is no longer read."""
    import sqlean

    folder = home / "notes"
    write(folder, "math/quaternions.md", "# Quaternions\n\nA quaternion rotation avoids gimbal lock.\n")
    local_kb.sync(embed=False)  # text only: its vector waits in the queue
    hit = data(client.call("search", {"query": "quaternion gimbal lock", "k": 1}))["hits"][0]
    assert hit["id"] == "notes/math/quaternions.md" and hit["vector_pending"] is True

    writer = sqlean.connect(str(home / "home" / "index.sqlite"), isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # another process holds the write lock meanwhile
    try:
        assert data(client.call("search", {"query": "quaternion", "k": 1}))["hits"]
        assert data(client.call("get", {"note": "notes/math/quaternions.md"}))["text"].startswith("# Quaternions")
    finally:
        writer.execute("ROLLBACK")
        writer.close()

    for i in range(40):
        write(folder, f"bulk/note-{i:02d}.md", f"# Bulk {i}\n\nFiller text about topic {i} and sourdough.\n")
    syncing = threading.Thread(target=local_kb.sync)
    syncing.start()
    answers = []
    while syncing.is_alive() and len(answers) < 200:
        answers.append(client.call("search", {"query": "sourdough bread", "k": 5}))
    syncing.join()
    assert answers and not any(a.is_error for a in answers)
    assert len(data(client.call("search", {"query": "bulk filler topic", "k": 50}))["hits"]) >= 40

    (folder / "math" / "quaternions.md").unlink()
    assert "deleted from disk" in sentence(client.call("get", {"note": "notes/math/quaternions.md"}))
    local_kb.sync()
    assert "does not exist" in sentence(client.call("get", {"note": "notes/math/quaternions.md"}))
    assert data(client.call("status"))["notes"] == local_kb.stats()["documents"]
    assert "Traceback" not in client.stderr()


def test_link_graph_tools_match_the_engine(client, local_kb):
    """links, backlinks (with mentions) and related answer as kb.graph.links/backlinks/related do."""
    got = data(client.call("links", {"note": "notes/see-also.md"}))
    assert [(link["status"], link["target_id"], link["label"]) for link in got["links"]] == [
        ("resolved", "notes/cooking/bread.md", ""), ("dangling", None, ""),
        ("resolved", "notes/git/undo-commit.md", "soft reset")]
    expected = local_kb.graph.links("notes/see-also.md")
    assert [link["target_line"] for link in got["links"]] == [link.target_line for link in expected]
    assert got["links"][2]["target_line"] > 1  # the heading's line, not the top

    back = data(client.call("backlinks", {"note": "notes/cooking/bread.md", "mentions": True}))
    assert [(b["source_id"], b["line"]) for b in back["backlinks"]] == [("notes/see-also.md", 3)]
    assert "[[bread]]" in back["backlinks"][0]["text"] and "mentions" in back

    related = data(client.call("related", {"note": "notes/cooking/bread.md", "k": 3}))
    reference = local_kb.graph.related("notes/cooking/bread.md", 3)
    assert [r["id"] for r in related["related"]] == [f"{r.collection}/{r.path}" for r in reference]
    assert reference and "notes/cooking/bread.md" not in [r["id"] for r in related["related"]]
