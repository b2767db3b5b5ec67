"""The input schemas state every limit the server enforces, and the server enforces every
limit they state: one table (``mcp_server/limits.py``) walked here, each limit called with a
value just inside it (not refused for it) and just outside it (refused, in the limit's
sentence: the engine's own where the engine owns the rule), through the SDK's own client.
Then the wording and the protocol's errors: a tool without arguments, related's k, a missing
resource (-32002), a cursor the server never gave, and a --home that does not exist."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError

from pms_tui.core.errors import UsageError
from pms_tui.core.kb import KnowledgeBase
from pms_tui.mcp_server.limits import LIMITS, Limit
from tests.kb_helpers import NOTES, write
from tests.mcp_client import McpClient, server_env

BREAD = "notes/cooking/bread.md"
BASE = {  # a call each tool answers
    "search": {"query": "bread", "mode": "bm25"}, "get": {"note": BREAD}, "multi_get": {"notes": [BREAD]},
    "explain": {"query": "bread", "note": BREAD}, "links": {"note": BREAD}, "backlinks": {"note": BREAD},
    "related": {"note": BREAD},
}


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    from pms_tui.core.kb import KnowledgeBase

    root = tmp_path_factory.mktemp("limits")
    for rel, text in NOTES.items():
        write(root / "notes", rel, text)
    with KnowledgeBase(home=root / "home") as kb:
        kb.collections.create(root / "notes", name="notes")
        kb.sync(embed=False)
    return root


@pytest.fixture(scope="module")
def client(home):
    session = McpClient(home / "home")
    yield session
    session.close()


def _answer(client, tool: str, args: dict) -> str:
    """The error's sentence, or "" for an answer."""
    result = client.call(tool, args)
    return result.content[0].text if result.is_error else ""


def _values(limit: Limit, schema: dict) -> list[tuple[object, bool]]:
    """(value, past the limit) pairs just inside and just outside each keyword of ``limit``."""
    spec = schema["properties"].get(limit.argument, {})
    out: list[tuple[object, bool]] = []
    for keyword, bound in limit.keywords.items():
        if keyword == "minimum":
            out += [(bound, False), (bound - 1, True)]
        elif keyword == "maximum":
            out += [(bound, False), (bound + 1, True)]
        elif keyword == "enum":
            out += [(value, False) for value in bound] + [("fast", True)]
        elif keyword == "maxLength":
            out += [("a" * bound, False), ("a" * (bound + 1), True)]
        elif keyword == "pattern":
            out += [("a", False), ("   ", True)]
        elif keyword == "maxItems":
            item = spec["items"]["type"] == "string" and (BREAD if limit.argument == "notes" else "notes")
            out += [([item] * bound, False), ([item] * (bound + 1), True)]
        elif keyword == "dependentSchemas":
            out += [({"notes": [BREAD]}, False), ({"notes": [BREAD], "pattern": "notes/*"}, True)]
        else:
            raise AssertionError(f"the test knows no keyword {keyword!r}: teach it how to step past it")
    return out


@pytest.mark.parametrize("limit", LIMITS, ids=[f"{x.tool}.{x.argument or 'arguments'}" for x in LIMITS])
def test_each_limit_is_stated_and_enforced_at_its_edge(client, limit):
    listed = {t.name: t for t in client.run(lambda s: s.list_tools()).tools}
    schema = listed[limit.tool].input_schema
    stated = schema["properties"][limit.argument] if limit.argument else schema
    assert {k: stated.get(k) for k in limit.keywords} == limit.keywords  # what the client is told
    for value, past in _values(limit, schema):
        args = {**BASE[limit.tool], **value} if not limit.argument else {**BASE[limit.tool], limit.argument: value}
        said = _answer(client, limit.tool, args)
        shown = repr(value)[:60]
        if past:
            assert limit.refusal in said and said.count("\n") == 0, (shown, said)
        else:
            assert limit.refusal not in said, (shown, said)


def test_a_schema_enum_keeps_the_engines_sentence(client):
    """mode is an enum in the schema, and a mode outside it gets the engine's sentence, as the CLI gives it."""
    with pytest.raises(UsageError) as engine:
        KnowledgeBase.limits.check_mode("fast")
    said = _answer(client, "search", {"query": "bread", "mode": "fast"})
    assert said == str(engine.value) == "Unknown search mode 'fast'; use one of hybrid, bm25, vector."


def test_a_value_of_the_wrong_type_is_refused_not_coerced(client):
    for tool, name in (("get", "start_line"), ("get", "end_line"), ("search", "k"), ("related", "k")):
        said = _answer(client, tool, {**BASE[tool], name: "abc"})
        assert f"argument '{name}' of {tool} must be an integer, not a string" in said


def test_the_wording_of_a_tool_without_arguments_and_of_related(client):
    assert _answer(client, "status", {"verbose": True}) == "The status tool takes no arguments; 'verbose' is not one."
    said = _answer(client, "related", {"note": BREAD, "k": 0})
    assert "k (how many notes)" in said and "hits" not in said


def test_a_missing_resource_is_resource_not_found(client):
    for uri in ("pms://note/notes/missing.md", "pms://note/notes/%2E%2E/secret.md"):
        with pytest.raises(MCPError) as caught:
            client.run(lambda s, u=uri: s.read_resource(u))
        assert caught.value.code == -32002 and "\n" not in caught.value.message


def test_a_cursor_the_server_never_gave_is_refused(client):
    for cursor in ("abc", "999999", "-1", "0"):
        with pytest.raises(MCPError) as caught:
            client.run(lambda s, c=cursor: s.list_resources(cursor=c))
        assert caught.value.code == -32602 and "cursor" in caught.value.message


def test_a_home_that_does_not_exist_is_not_created(tmp_path):
    missing = tmp_path / "no" / "such-home"
    done = subprocess.run([sys.executable, "-m", "pms_tui", "--home", str(missing), "mcp"], env=server_env(),
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "does not exist" in done.stderr and "Traceback" not in done.stderr
    assert not missing.exists() and not missing.parent.exists()
