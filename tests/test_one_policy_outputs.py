"""One output per result type: every CLI command with ``--json`` and the MCP tool that answers
the same question give the same JSON (the same keys and values) as the Python API's
``to_json()``, through a real ``python -m pms_tui`` process and the MCP SDK's own client.

The MCP server gives the engine's JSON with its strings made inert (``mcp_server.inert``); the
few keys a front end adds or leaves out are named below, each with its reason. A command or a
tool in neither table fails ``test_every_command_and_tool_has_its_counterpart_or_a_reason``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.kb_helpers import NOTES, write
from tests.mcp_client import McpClient
from tests.webserver import web  # noqa: F401  (fixture)

# the CLI command with --json -> the MCP tool answering the same question
COUNTERPARTS = {
    "search": "search", "show": "get", "explain": "explain", "links": "links", "backlinks": "backlinks",
    "related": "related", "status": "status", "collections": "status", "sync": "sync", "clip": "clip",
    "new": "create_note", "append": "edit_note", "section": "edit_note", "set": "edit_note",
    "mv": "move_note", "rm": "delete_note", "undo": "undo", "recent": "recent",
}
# deliberate absences: a command or a tool with no counterpart on the other side, and why
CLI_ONLY = {
    "watch": "runs until ctrl+c, indexing notes as they are saved; an agent asks sync when it needs it",
    "reindex": "re-embeds every passage (an hour on a big index) after a model change: the person's decision",
    "history": "the journal by note for the person; an agent asks recent (what was written since a time)",
    "doctor": "checks the person's machine and agents' configs; status tells an agent what it needs",
}
MCP_ONLY = {
    "multi_get": "several notes in one call, to save an agent's round trips; a shell runs show in a loop",
}
# keys one front end adds to the engine's JSON, or leaves out, and why
MCP_ADDS = {
    "search": {"ms"},  # the call's time, for an agent (the CLI says it on stderr)
    "status": {"writes_allowed"},  # whether this server was started with --allow-writes
    "related": {"note_for_you"},  # said only when the server's model is not ready, or nothing is related
}
MCP_LEAVES_OUT_OF_HITS = {"text", "evidence"}  # a client takes only so much: the snippet stands for the text
PER_PROCESS = {"model_state"}  # whether this process has loaded the model: the CLI's one-shot process has not

LINKS = "notes/links.md"
BREAD = "notes/cooking/bread.md"


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    from pms_tui.core.kb import KnowledgeBase

    root = tmp_path_factory.mktemp("outputs")
    folder = root / "notes"
    for rel, text in NOTES.items():
        write(folder, rel, text)
    write(folder, "links.md", "---\ntags: [kitchen]\ncreated: 2026-05-01\n---\n# Links\n\nBake with [[bread]] "
                              "and [[Undo the last commit|undo]]; see [missing](nowhere.md).\n\n"
                              "Python asyncio is named here without a link.\n")
    with KnowledgeBase(home=root / "home") as kb:
        kb.collections.create(folder, name="notes")
        kb.sync()
    return root


@pytest.fixture(scope="module")
def kb(home):
    from pms_tui.core.kb import KnowledgeBase

    base = KnowledgeBase(home=home / "home")
    base.model.load()
    yield base
    base.close()


@pytest.fixture(scope="module")
def client(home):
    session = McpClient(home / "home")
    deadline = time.monotonic() + 120  # related and explain's vector lane: the server's model loaded
    while _mcp(session, "status", {})["model_state"] != "ready" and time.monotonic() < deadline:
        time.sleep(0.2)
    yield session
    session.close()


def _mcp(client, tool: str, args: dict) -> dict:
    result = client.call(tool, args)
    assert not result.is_error, result.content[0].text
    return result.structured_content


def _cli(home: Path, *args: str) -> object:
    proc = subprocess.run([sys.executable, "-m", "pms_tui", "--home", str(home / "home"), *args, "--json"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    return json.loads(proc.stdout)


def _inert(data: object) -> object:
    from pms_tui.mcp_server.inert import inert

    return inert(json.loads(json.dumps(data)))  # as JSON carries it: tuples are lists


def _without(data: dict, keys: set[str]) -> dict:
    return {k: v for k, v in data.items() if k not in keys}


def _api(kb, question: str):
    """The Python API's answer to each question of QUESTIONS, as its to_json() writes it."""
    from pms_tui.core.results import CollectionSummary, IndexStatus, NoteGraph

    if question == "search":
        result = kb.search("sourdough bread", k=3, mode="bm25")
        return result.to_json(evidence=lambda hit: kb.searcher.evidence(result, hit))
    if question == "show":
        return kb.notes.read("bread").to_json(kb)
    if question == "explain":
        return kb.searcher.explain("sourdough bread", "bread").to_json()
    if question == "links":
        return NoteGraph(LINKS, links=kb.graph.links(LINKS)).to_json()
    if question == "backlinks":
        return NoteGraph(BREAD, backlinks=kb.graph.backlinks(BREAD), mentions=kb.graph.mentions(BREAD)).to_json()
    if question == "mentions":
        note = "notes/python/asyncio.md"
        return NoteGraph(note, backlinks=kb.graph.backlinks(note), mentions=kb.graph.mentions(note)).to_json()
    if question == "related":
        return NoteGraph(BREAD, related=kb.graph.related(BREAD, 3)).to_json()
    if question == "collections":
        return [c.to_json() for c in CollectionSummary.all_of(kb)]
    assert question == "status"
    return IndexStatus.of(kb).to_json()


# (the question, the CLI's arguments, the MCP tool and its arguments)
QUESTIONS = [
    ("search", ("search", "sourdough bread", "-k", "3", "--mode", "bm25"),
     "search", {"query": "sourdough bread", "k": 3, "mode": "bm25"}),
    ("show", ("show", "bread"), "get", {"note": "bread"}),
    ("explain", ("explain", "sourdough bread", "bread"), "explain", {"query": "sourdough bread", "note": "bread"}),
    ("links", ("links", "links"), "links", {"note": "links"}),
    ("backlinks", ("backlinks", "bread", "--mentions"), "backlinks", {"note": "bread", "mentions": True}),
    ("mentions", ("backlinks", "asyncio", "--mentions"), "backlinks", {"note": "asyncio", "mentions": True}),
    ("related", ("related", "bread", "-k", "3"), "related", {"note": "bread", "k": 3}),
    ("collections", ("collections",), "status", {}),
    ("status", ("status",), "status", {}),
]


@pytest.mark.parametrize("question,cli_args,tool,tool_args", QUESTIONS, ids=[q[0] for q in QUESTIONS])
def test_the_cli_the_mcp_tool_and_the_api_give_the_same_json(question, cli_args, tool, tool_args, home, kb, client):
    api = json.loads(json.dumps(_api(kb, question)))
    cli = _cli(home, *cli_args)
    mcp = _mcp(client, tool, tool_args)
    if question == "collections":
        mcp = mcp["collections"]
    elif question == "status":
        api, cli, mcp = (_without(d, PER_PROCESS) for d in (api, cli, mcp))  # type: ignore[arg-type]
    assert cli == api
    if isinstance(mcp, dict):
        extra = MCP_ADDS.get(tool, set())
        assert set(mcp) - set(api) <= extra, set(mcp) - set(api)
        mcp = _without(mcp, extra)
    if question == "search":
        assert all(MCP_LEAVES_OUT_OF_HITS <= set(hit) for hit in api["hits"])
        api = {**api, "hits": [_without(hit, MCP_LEAVES_OUT_OF_HITS) for hit in api["hits"]]}
    assert mcp == _inert(api)
    # an answer with something in it: each question's list holds what the notes have
    lists = [api[key] for key in ("hits", "links", "backlinks", "mentions", "related") if key in api] \
        if isinstance(api, dict) else [api]
    assert api and (not lists or any(lists))


def test_the_answers_name_notes_by_the_engines_id_and_uri(home, kb, client):
    from pms_tui.core.results import note_id, note_uri

    hit = _mcp(client, "search", {"query": "sourdough bread", "k": 1, "mode": "bm25"})["hits"][0]
    assert (hit["id"], hit["uri"]) == (note_id("notes", "cooking/bread.md"), note_uri("notes", "cooking/bread.md"))
    links = _cli(home, "links", "links")["links"]  # type: ignore[index]
    assert {(link["source_id"], link["target"], link["target_id"]) for link in links} == {
        (LINKS, "bread", BREAD), (LINKS, "nowhere.md", None), (LINKS, "Undo the last commit", None)}
    page = _cli(home, "show", "links")
    assert page["uri"] == "pms://note/notes/links.md" and page["frontmatter"] == {  # type: ignore[index]
        "tags": ["kitchen"], "created": "2026-05-01"}  # a date as ISO text, in every front end
    [col] = _cli(home, "collections")  # type: ignore[misc]
    assert col["last_sync"].startswith(time.strftime("%Y-")) and "T" in col["last_sync"]  # ISO, with its offset


def _cli_commands_with_json() -> set[str]:
    import argparse

    from pms_tui.cli import build_parser

    parser = build_parser()
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return {name for name, p in sub.choices.items()
            if any("--json" in a.option_strings for a in p._actions)}


def test_every_command_and_tool_has_its_counterpart_or_a_reason():
    from pms_tui.mcp_server.tools import READING, WRITING

    commands = _cli_commands_with_json()
    tools = {spec.name for spec in READING + WRITING}
    assert commands == set(COUNTERPARTS) | set(CLI_ONLY), "a command with --json needs a row in a table above"
    assert tools == set(COUNTERPARTS.values()) | set(MCP_ONLY), "a tool needs a row in a table above"
    assert not set(CLI_ONLY) & set(COUNTERPARTS) and not set(MCP_ONLY) & set(COUNTERPARTS.values())


def test_doctor_json_is_its_checks(home, kb):
    checks = _cli(home, "doctor")
    assert [c["label"] for c in checks][:2] == [c.label for c in kb.doctor.checks()][:2]  # type: ignore[union-attr]
    assert all(set(c) == {"label", "ok", "detail"} for c in checks)  # type: ignore[union-attr]


# -- writes: the same result types, through both front ends, in a writable collection ---------
@pytest.fixture(scope="module")
def writer(tmp_path_factory):
    from pms_tui.core.kb import KnowledgeBase

    root = tmp_path_factory.mktemp("outputs-writes")
    write(root / "notes", "a.md", "# A\n\nThe first note.\n")
    with KnowledgeBase(home=root / "home") as kb:
        kb.collections.create(root / "notes", name="notes")
        kb.collections.set_writable("notes", True)
        kb.sync(embed=False)
    session = McpClient(root / "home", "--allow-writes")
    yield root, session
    session.close()


# what differs between two writes of the same kind (a journal id, a version, a time, the note)
PER_WRITE = {"journal_id", "version", "previous_version", "id", "path", "message", "seconds", "embed_seconds",
             "summary", "at", "before_hash", "after_hash", "note", "client",
             "title", "url", "uri", "file", "vectors_pending"}  # a clip's page, and what it left to embed
MCP_ADDS_TO_WRITES = {"searchable", "vectors"}  # when its vectors come: computed behind the answer


def _shape(data: object) -> object:
    """The keys of ``data`` all the way down, with the values that do not differ per write."""
    if isinstance(data, dict):
        return {k: ("…" if k in PER_WRITE else _shape(v)) for k, v in data.items() if k not in MCP_ADDS_TO_WRITES}
    if isinstance(data, list):
        return [_shape(v) for v in data]
    return data


def test_writes_give_the_same_json_through_the_cli_and_mcp(writer):
    root, client = writer
    cli = lambda *args: _cli(root, *args)  # noqa: E731
    made = cli("new", "From the shell", "--body", "## Part\n\nShell words.\n", "--no-embed")
    given = _mcp(client, "create_note", {"title": "From an agent", "body": "## Part\n\nAgent words.\n"})
    assert _shape(made) == _shape(given) and made["action"] == "created"  # type: ignore[index]
    pairs = [
        (("append", made["id"], "More.", "--no-embed"),  # type: ignore[index]
         ("edit_note", {"note": given["id"], "version": given["version"], "action": "append", "text": "More."})),
    ]
    for cli_args, (tool, args) in pairs:
        assert _shape(cli(*cli_args)) == _shape(_mcp(client, tool, args))
    for cli_args, args in [  # the other edits, each an edit_note action
        (("set", made["id"], "status=draft", "--no-embed"), {"action": "set_properties",  # type: ignore[index]
                                                              "properties": {"status": "draft"}}),
        (("section", made["id"], "Part", "New words.", "--no-embed"),  # type: ignore[index]
         {"action": "replace_section", "heading": "Part", "text": "New words."}),
    ]:
        version = _mcp(client, "get", {"note": given["id"]})["version"]
        assert _shape(cli(*cli_args)) == _shape(_mcp(client, "edit_note", {"note": given["id"], "version": version,
                                                                            **args}))
    assert cli("recent") == _mcp(client, "recent", {"limit": 200})  # the journal read by both: equal
    moved = cli("mv", made["id"], "moved.md", "--no-embed")  # type: ignore[index]
    version = _mcp(client, "get", {"note": given["id"]})["version"]
    assert _shape(moved) == _shape(_mcp(client, "move_note", {"note": given["id"], "version": version,
                                                               "to": "moved-too.md"}))
    removed = cli("rm", moved["id"], "--no-embed")  # type: ignore[index]
    version = _mcp(client, "get", {"note": "notes/moved-too.md"})["version"]
    assert _shape(removed) == _shape(_mcp(client, "delete_note", {"note": "notes/moved-too.md", "version": version}))
    undone = _mcp(client, "undo", {})
    assert _shape(cli("undo", "--no-embed")) == _shape(undone) and set(undone) == {"undone"}
    write(root / "notes", "b.md", "# B\n")
    synced = cli("sync", "--no-embed")
    write(root / "notes", "c.md", "# C\n")
    assert set(_mcp(client, "sync", {})) - set(synced) <= MCP_ADDS_TO_WRITES  # type: ignore[arg-type]


def test_a_clip_gives_the_same_json_through_the_cli_and_mcp(writer, web):  # noqa: F811
    root, client = writer
    made = _cli(root, "clip", web.url("/2024/03/lazy-pipelines/"), "-c", "notes", "-q")
    given = _mcp(client, "clip", {"url": web.url("/docs/config.html"), "collection": "notes"})
    assert _shape(made) == _shape(given) and made["status"] == given["status"] == "created"  # type: ignore[index]
    assert (root / "notes" / made["path"]).is_file() and made["id"] == f"notes/{made['path']}"  # type: ignore[index]


def test_an_index_without_collections_is_said_in_one_sentence_everywhere(tmp_path):
    from pms_tui.core.kb import KnowledgeBase
    from pms_tui.core.results import no_collections_notice

    sentence = no_collections_notice()
    assert sentence == "No collections yet: run `pms-tui add PATH` to add a folder of notes."
    with KnowledgeBase(home=tmp_path / "home") as kb:
        assert kb.searcher.empty_index_notice() == sentence
    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "pms_tui", "--home", str(tmp_path / "home"), *args],
                              capture_output=True, text=True, timeout=120)

    assert run("sync").stdout.strip() == run("status").stdout.strip() == run("collections").stdout.strip() == sentence
    assert run("show", "bread").stderr.strip() == f"pms-tui: {sentence}"
    assert run("clip", "http://127.0.0.1:9/x").stderr.strip() == f"pms-tui: {sentence}"
    session = McpClient(tmp_path / "home")
    try:
        assert sentence in session.instructions
        assert _mcp(session, "search", {"query": "bread", "mode": "bm25"})["notes"][0] == sentence
    finally:
        session.close()
