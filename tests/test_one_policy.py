"""One engine, one policy: the same requests through ``KnowledgeBase``, the CLI (a real
``python -m pms_tui`` process, ``--json``) and the MCP server (the SDK's own client) get the
same answers: the same notes and lines, or the same sentence."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.kb_helpers import NOTES, write
from tests.mcp_client import McpClient

BREAD = "notes/cooking/bread.md"
SECRET = "hunter2 lives outside the collection"


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    from pms_tui.core.kb import KnowledgeBase

    root = tmp_path_factory.mktemp("policy")
    folder = root / "notes"
    for rel, text in NOTES.items():
        write(folder, rel, text)
    write(folder, "victim.md", "# Victim\n\nAn ordinary note, later swapped for a symlink.\n")
    (root / "secret.md").write_text(f"# Secret\n\n{SECRET}\n", encoding="utf-8")
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
    deadline = time.monotonic() + 120  # explain's vector lane: the server's model loaded
    while _mcp(session, "status", {})[1]["model_state"] != "ready" and time.monotonic() < deadline:
        time.sleep(0.2)
    yield session
    session.close()


def _mcp(client, tool: str, args: dict) -> tuple[str, object]:
    result = client.call(tool, args)
    if result.is_error:
        return "error", result.content[0].text
    return "ok", result.structured_content


def _cli(home: Path, *args: str) -> tuple[str, object]:
    proc = subprocess.run([sys.executable, "-m", "pms_tui", "--home", str(home / "home"), *args],
                          capture_output=True, text=True, timeout=300)
    assert "Traceback" not in proc.stderr, proc.stderr
    if proc.returncode:
        return "error", proc.stderr.strip().removeprefix("pms-tui: ")
    assert "pms-tui:" not in proc.stderr, proc.stderr
    return "ok", json.loads(proc.stdout)


def _kb(call) -> tuple[str, object]:
    from pms_tui.core.errors import UsageError

    try:
        return "ok", call()
    except UsageError as exc:
        return "error", str(exc)


# -- the three front ends, each answering a request in the same shape ----------------------
# show: (note id, the line asked for, covered); search: the hits' ids; explain: its facts
def _show_kb(kb, ref: str, line: int):
    note = kb.notes.note(ref)
    _, first, last = kb.notes.note_lines(note)
    return note.id, line, first <= line <= last


def _explained(data: dict) -> tuple:
    return (data["note"], data["bm25_rank"], data["vector_rank"], data["fused_rank"], data["missing"],
            data["lines"])


def answers(kind: str, request: dict, home: Path, kb, client) -> dict[str, tuple[str, object]]:
    if kind == "show":
        ref, line = request["ref"], request.get("line", 1)
        got = {
            "kb": _kb(lambda: _show_kb(kb, ref, line)),
            "cli": _cli(home, "show", ref, "--json"),
            "mcp": _mcp(client, "get", {"note": ref}),
        }
        for side in ("cli", "mcp"):  # the same page: the lines named, or the whole note
            if got[side][0] == "ok":
                page = got[side][1]
                got[side] = "ok", (page["id"], line, page["lines"][0] == line)  # type: ignore[index]
        return got
    if kind == "search":
        query, k, cols = request["query"], request.get("k", 5), request.get("collections")
        mode = request.get("mode", "bm25")
        flags = ["-k", str(k), "--mode", mode, "--json"] + [f for c in cols or [] for f in ("-c", c)]
        args: dict = {"query": query, "k": k, "mode": mode}
        if cols:
            args["collections"] = cols
        got = {
            "kb": _kb(lambda: [h.to_json()["id"] for h in kb.search(query, k=k, mode=mode, collections=cols)]),
            "cli": _cli(home, "search", "--", query, *flags) if query.startswith("-") else
            _cli(home, "search", query, *flags),
            "mcp": _mcp(client, "search", args),
        }
        for side in ("cli", "mcp"):
            if got[side][0] == "ok":
                got[side] = "ok", [h["id"] for h in got[side][1]["hits"]]  # type: ignore[index]
        return got
    if kind == "related":
        ref, k = request["ref"], request.get("k", 10)
        got = {
            "kb": _kb(lambda: [f"{r.collection}/{r.path}" for r in kb.graph.related(ref, k)]),
            "cli": _cli(home, "related", ref, "-k", str(k), "--json"),
            "mcp": _mcp(client, "related", {"note": ref, "k": k}),
        }
        for side in ("cli", "mcp"):
            if got[side][0] == "ok":
                got[side] = "ok", [r["id"] for r in got[side][1]["related"]]  # type: ignore[index]
        return got
    assert kind == "explain"
    query, ref = request["query"], request["ref"]
    got = {
        "kb": _kb(lambda: _explained(kb.searcher.explain(query, ref).to_json())),
        "cli": _cli(home, "explain", query, ref, "--json"),
        "mcp": _mcp(client, "explain", {"query": query, "note": ref}),
    }
    for side in ("cli", "mcp"):
        if got[side][0] == "ok":
            got[side] = "ok", _explained(got[side][1])  # type: ignore[arg-type]
    return got


TABLE = [
    # (what, request, "ok" with what every front end must say, or "error" with words of its sentence)
    ("a note by name", "show", {"ref": "bread"}, "ok", (BREAD, 1, True)),
    ("a note by path", "show", {"ref": BREAD}, "ok", (BREAD, 1, True)),
    ("a note by its path inside the folder", "show", {"ref": "cooking/bread.md"}, "ok", (BREAD, 1, True)),
    ("a note with a line", "show", {"ref": "bread:3", "line": 3}, "ok", (BREAD, 3, True)),
    ("a note by its URI", "show", {"ref": "pms://note/notes/cooking/bread.md"}, "ok", (BREAD, 1, True)),
    ("a URI with a line", "show", {"ref": "pms://note/notes/cooking/bread.md:3", "line": 3}, "ok", (BREAD, 3, True)),
    ("a URI that is not a note's", "show", {"ref": "pms://elsewhere/bread.md"}, "error", "Note URIs look like"),
    ("a line past the end", "show", {"ref": f"{BREAD}:9999"}, "error", "line 9999 is past its end"),
    ("a missing note", "show", {"ref": "missing.md:1"}, "error", "missing.md does not exist"),
    ("k=0", "search", {"query": "bread", "k": 0}, "error", "must be at least 1"),
    ("an empty query", "search", {"query": "   "}, "error", "The query is empty"),
    ("an unknown collection", "search", {"query": "bread", "collections": ["nope"]}, "error",
     "no collection named 'nope'"),
    ("an unknown mode", "search", {"query": "bread", "mode": "fast"}, "error",
     "Unknown search mode 'fast'; use one of hybrid, bm25, vector."),
    ("k past the engine's limit", "search", {"query": "bread", "k": 1_000_000}, "error", "at most 10,000"),
    ("a search", "search", {"query": "sourdough bread"}, "ok", None),
    ("related with k=0", "related", {"ref": "bread", "k": 0}, "error", "must be at least 1"),
    ("related past the engine's limit", "related", {"ref": "bread", "k": 1_000_000}, "error", "at most 10,000"),
    ("related notes", "related", {"ref": "bread", "k": 3}, "ok", None),
    ("explain by name", "explain", {"query": "sourdough bread", "ref": "bread"}, "ok", None),
    ("explain a missing note", "explain", {"query": "bread", "ref": "notes/nope.md"}, "error", "does not exist"),
]


@pytest.mark.parametrize("what,kind,request_,outcome,expected", TABLE, ids=[row[0] for row in TABLE])
def test_every_front_end_gives_the_same_answer(what, kind, request_, outcome, expected, home, kb, client):
    got = answers(kind, request_, home, kb, client)
    assert got["kb"] == got["cli"] == got["mcp"], got
    status, answer = got["kb"]
    assert status == outcome, answer
    if outcome == "error":
        assert expected in answer and "\n" not in answer  # type: ignore[operator]
    elif expected is not None:
        assert answer == expected
    elif kind == "search":
        assert answer and answer[0] == BREAD  # type: ignore[index]
    elif kind == "related":
        assert answer and BREAD not in answer  # type: ignore[operator]
    else:
        assert answer[0] == BREAD and answer[3] == 1  # type: ignore[index]  # the fused rank, in the CLI too


def test_a_symlink_swapped_in_after_indexing_is_refused_everywhere(home, kb, client):
    from pms_tui.tui.note_window import read_window

    [hit] = kb.chunks_of("notes", "victim.md")
    victim = home / "notes" / "victim.md"
    victim.unlink()
    victim.symlink_to(home / "secret.md")
    sentence = "notes/victim.md now leads outside its collection's folder; it is not read."
    assert _kb(lambda: kb.notes.note_text(kb.notes.note("notes/victim.md"))) == ("error", sentence)
    assert _cli(home, "show", "notes/victim.md") == ("error", sentence)
    assert _mcp(client, "get", {"note": "notes/victim.md"}) == ("error", sentence)
    window = read_window(hit, kb)  # the reader's whole-note view
    assert SECRET not in window.markdown and "leads outside its collection's folder" in window.markdown
