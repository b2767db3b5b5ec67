"""The search language's filters are one table (core/search/filter_specs.py): the parser, the
planner, the chips, explain, completion and every help text are made from it, so a filter
added there is known everywhere, and the prose help that is written by hand is checked here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pms_tui.core.kb import FILTERS
from pms_tui.core.search.query_syntax import parse

ROOT = Path(__file__).resolve().parents[1]


def test_the_readme_table_is_the_filters_rows_in_order():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    rows = FILTERS.rows()
    assert rows[0] in lines, "README.md: the search language's table lacks the filters (FILTERS.rows())"
    start = lines.index(rows[0])
    assert lines[start:start + len(rows)] == rows
    assert not lines[start + len(rows)].startswith("| `"), "a filter row in README.md that FILTERS lacks"


def test_the_guide_page_shows_every_filter():
    page = (ROOT / "pms_tui" / "sample" / "guide" / "searching.md").read_text(encoding="utf-8")
    for spec in FILTERS:
        assert f"`{spec.example}`" in page, spec.name
        if spec.negatable:
            assert f"-{spec.name}:" in page, spec.name


def test_every_help_text_names_every_filter():
    from pms_tui.mcp_server import instructions, tools
    from pms_tui.tui.dialogs.help import help_intro

    cli = subprocess.run([sys.executable, "-I", "-m", "pms_tui", "search", "--help"], capture_output=True,
                         text=True, check=True, cwd=ROOT.parent).stdout
    search_tool = next(t for t in tools.READING if t.name == "search")
    query_help = search_tool.properties["query"]["description"]
    for spec in FILTERS:
        for text, where in ((query_help, "MCP search's query"), (instructions.SEARCH_LANGUAGE, "MCP instructions"),
                            (help_intro(lambda binding: binding, FILTERS.summary()), "F1"), (" ".join(cli.split()), "CLI help")):
            assert spec.form in text, f"{where} lacks {spec.form}"


def test_a_value_is_completed_for_the_filters_that_complete_and_their_aliases():
    values = {"tag": ["git", "git/tips"], "in": ["notes", "work notes"], "path": ["git/"]}.get
    assert FILTERS.complete("undo tag:gi", values) == "undo tag:git"
    assert FILTERS.complete("-col:no", values) == "-col:notes"
    assert FILTERS.complete('in:"wo', values) == 'in:"work notes"'
    assert FILTERS.complete("title:re", values) is None  # title: does not complete
    assert FILTERS.complete("nope:gi", values) is None


def test_two_filters_cannot_share_a_name():
    spec = FILTERS.get("tag")
    assert spec is not None
    with pytest.raises(ValueError, match="already named 'tag'"):
        FILTERS.register(spec)


def test_chips_parse_back_to_the_same_filters():
    q = parse('tag:git -in:old path:"my notes/" title:undo after:2024-05 linksto:"Project Alpha" x')
    again = parse(" ".join(q.chips()))
    assert again.filters == q.filters
    assert q.to_json()["not_collections"] == ["old"] and q.to_json()["after"] == "2024-05-01"


MADE_UP = '''
import json, sys
from pms_tui.core.search import filter_specs as fs

def read(value, today):
    return value if value.isdigit() else fs.Refused(f"depth:{value} is not a number")

def depth(values, negated, ctx):
    return "(length(d.path) - length(replace(d.path, '/', ''))) < ?", [int(values[0])]

fs.FILTERS.register(fs.FilterSpec(
    "depth", "depth", "depth:N", "depth:1", "notes at most N folders deep", read,
    combine="earliest", notes=depth))

from pms_tui.core.kb import KnowledgeBase
from pms_tui.mcp_server import instructions, tools
from pms_tui.tui.dialogs.help import help_intro

home, notes = sys.argv[1], sys.argv[2]
out = {}
with KnowledgeBase(home=home) as kb:
    kb.collections.create(notes, name="notes")
    kb.sync(embed=False)
    result = kb.search("rebase depth:1", k=10, mode="bm25")
    out["hits"] = sorted(h.relpath for h in result)
    out["chips"] = result.query.chips()
    out["json"] = result.query.to_json()["depth"]
    out["ignored"] = [i.reason for i in kb.search("rebase depth:deep", k=10, mode="bm25").query.ignored]
    out["explain"] = kb.searcher.explain("rebase depth:1", "notes/git/deep/rebase.md").failed_filters
out["mcp"] = "depth:N" in next(t for t in tools.READING if t.name == "search").properties["query"]["description"]
out["instructions"] = "depth:N keeps notes at most N folders deep" in instructions.SEARCH_LANGUAGE
out["f1"] = "depth:N" in help_intro(lambda b: b, fs.FILTERS.summary())
out["readme_row"] = "| `depth:1` | notes at most N folders deep |" in fs.FILTERS.rows()
print(json.dumps(out))
'''


def test_a_filter_added_as_one_spec_is_known_to_every_front_end(tmp_path):
    notes = tmp_path / "notes"
    (notes / "git" / "deep").mkdir(parents=True)
    (notes / "rebase.md").write_text("# Rebase at the top\n\nrebase onto main\n")
    (notes / "git" / "deep" / "rebase.md").write_text("# Rebase deep down\n\nrebase onto main\n")
    script = tmp_path / "made_up.py"
    script.write_text(textwrap.dedent(MADE_UP))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PMS_TUI_")}
    done = subprocess.run([sys.executable, "-I", str(script), str(tmp_path / "home"), str(notes)],
                          capture_output=True, text=True, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["hits"] == ["rebase.md"]
    assert out["chips"] == ["depth:1"] and out["json"] == "1"
    assert out["ignored"] == ["depth:deep is not a number"]
    assert out["explain"] == ["depth:1"]
    assert out["mcp"] and out["instructions"] and out["f1"] and out["readme_row"]
