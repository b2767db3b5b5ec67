"""kb.write, the engine's one writer: each edit keeps every byte outside the change (line
endings, BOM, encoding, frontmatter layout), is made against the version it read, atomic,
journaled and undoable, indexed as it returns; the guard refuses in one sentence."""

from __future__ import annotations

import codecs
import os

import pytest

from pms_tui.core.errors import PmsError, UsageError
from tests.kb_helpers import text_only_kb, write


@pytest.fixture
def kb(tmp_path):
    folder = tmp_path / "notes"
    write(folder, "hub.md", "# Hub\n\nSee [[plan]] and [the plan](plan.md#tasks), not `[[plan]]`.\n")
    write(folder, "plan.md", "---\ntitle: Plan\n# kept comment\ntags: [work]\n---\n\n# Plan\n\nIntro.\n\n"
                             "## Tasks\n\n- one\n\n## Done\n\nnothing\n")
    kb = text_only_kb(tmp_path / "home", folder)
    kb.collections.set_writable("notes", True)
    yield kb
    kb.close()


def folder_of(kb):
    return kb.collections.get("notes").path


def edit(kb, note, action, *args, **kw):
    return getattr(kb.write, action)(note, *args, version=kb.write.version(note), **kw)


SHAPES = {
    "crlf": b"---\r\ntitle: X\r\n---\r\n\r\n# X\r\n\r\n## Tasks\r\n\r\n- a\r\n\r\n## End\r\n\r\nz\r\n",
    "utf8 bom": codecs.BOM_UTF8 + b"# X\n\n## Tasks\n\n- a\n\n## End\n\nz",
    "utf16": codecs.BOM_UTF16_LE + "# X\r\n\r\n## Tasks\r\n\r\n- a\r\n".encode("utf-16-le"),
    "lone cr": b"# X\r\r## Tasks\r\r- a\r",
    "mixed": b"# X\n\n## Tasks\r\n\r\n- a\n## End\r\nz\n",
}


EXPECTED = {  # the new item after "- a", ending as most of the note's lines do; nothing else changed
    "crlf": SHAPES["crlf"].replace(b"- a\r\n", b"- a\r\n- b\r\n"),
    "utf8 bom": SHAPES["utf8 bom"].replace(b"- a\n", b"- a\n- b\n"),
    "utf16": SHAPES["utf16"].replace("- a\r\n".encode("utf-16-le"), "- a\r\n- b\r\n".encode("utf-16-le")),
    "lone cr": SHAPES["lone cr"].replace(b"- a\r", b"- a\r- b\r"),
    "mixed": SHAPES["mixed"].replace(b"- a\n", b"- a\n- b\n\n"),
}


@pytest.mark.parametrize("name", SHAPES)
def test_an_append_to_a_section_keeps_every_other_byte(kb, name):
    path = folder_of(kb) / f"{name.replace(' ', '-')}.md"
    path.write_bytes(SHAPES[name])
    kb.sync(embed=False)
    edit(kb, f"notes/{path.name}", "append", "- b", heading="Tasks")
    assert path.read_bytes() == EXPECTED[name]
    kb.write.undo()
    assert path.read_bytes() == SHAPES[name]


def test_an_append_keeps_a_note_without_a_final_newline_but_ends_its_last_line(kb):
    path = folder_of(kb) / "tail.md"
    path.write_bytes(b"first line")
    kb.sync(embed=False)
    edit(kb, "notes/tail.md", "append", "second")
    assert path.read_bytes() == b"first line\n\nsecond\n"


def test_properties_keep_the_frontmatter_layout(kb):
    path = folder_of(kb) / "plan.md"
    before = path.read_bytes()
    edit(kb, "notes/plan.md", "set_properties", {"status": "doing"})
    assert path.read_bytes() == before.replace(b"tags: [work]\n", b"tags: [work]\nstatus: doing\n")
    edit(kb, "notes/plan.md", "set_properties", None, ["status"])
    assert path.read_bytes() == before
    edit(kb, "notes/plan.md", "set_properties", {"title": "Plan B: \"quoted\" #x"})
    assert b"# kept comment\ntags: [work]\n" in path.read_bytes()
    assert kb.notes.note("notes/plan.md").title == 'Plan B: "quoted" #x'


def test_section_replace_and_passage_replace(kb):
    path = folder_of(kb) / "plan.md"
    edit(kb, "notes/plan.md", "replace_section", "Tasks", "- new task")
    text = path.read_text()
    assert "## Tasks\n\n- new task\n\n## Done\n" in text and "- one" not in text
    with pytest.raises(UsageError, match=r"occurs once in .*not 2 as expected") as exc:
        edit(kb, "notes/plan.md", "replace_text", "Intro.", "Hello.", count=2)
    assert "\n" not in str(exc.value)
    edit(kb, "notes/plan.md", "replace_text", "Intro.", "Hello.", count=1)
    assert "Hello." in path.read_text()
    with pytest.raises(UsageError, match="has no heading 'Nope'"):
        edit(kb, "notes/plan.md", "append", "x", heading="Nope")


def test_two_headings_of_one_name_are_told_apart_by_a_path_that_names_one(kb):
    """The sentence refusing a heading held twice suggests a path that names one of them; when
    both sit under the same headings no path can, and it says so instead of suggesting one."""
    write(folder_of(kb), "twice.md", "# Log\n\n## Notes\n\n### Tasks\n\nc\n\n### Tasks\n\nd\n\n"
                                     "## Monday\n\n### Tasks\n\na\n")
    kb.sync()
    with pytest.raises(UsageError) as exc:
        edit(kb, "notes/twice.md", "replace_section", "Tasks", "x")
    assert "3 headings 'Tasks' (lines 5, 9, 15)" in str(exc.value)
    suggested = str(exc.value).split("e.g. ")[1].rstrip(".").strip("'")
    edit(kb, "notes/twice.md", "replace_section", suggested, "x")  # the path suggested names one
    assert (folder_of(kb) / "twice.md").read_text().count("\nx\n") == 1
    with pytest.raises(UsageError) as exc:
        edit(kb, "notes/twice.md", "replace_section", "Notes > Tasks", "y")
    assert str(exc.value) == ("notes/twice.md has 2 headings 'Notes > Tasks' (lines 5, 9) under the same "
                              "headings (Log > Notes > Tasks): rename one of them to edit its section.")


def test_a_write_made_from_an_old_version_is_refused_with_the_version_now_and_a_diff(kb):
    path = folder_of(kb) / "plan.md"
    version = kb.write.version("notes/plan.md")
    path.write_bytes(path.read_bytes().replace(b"Intro.", b"Intro, edited by the person."))
    with pytest.raises(UsageError) as exc:
        kb.write.append("notes/plan.md", "agent text", version=version)
    message = str(exc.value)
    assert "changed since version" in message and kb.write.version("notes/plan.md") in message
    assert "-Intro.\n+Intro, edited by the person." in message
    assert b"agent text" not in path.read_bytes()
    assert not [e for e in kb.write.history() if e.tool == "append"]


def test_create_is_searchable_at_once_and_named_by_the_clippers_rule(kb):
    result = kb.write.create("Crème brûlée: a plan", body="Caramelise the zabaglionequux.", tags=["food"])
    assert result.path == "creme-brulee-a-plan.md"
    assert [h.relpath for h in kb.search("zabaglionequux", mode="bm25")] == [result.path]
    again = kb.write.create("Crème brûlée: a plan", folder="desserts/2026", body="two")
    assert again.path == "desserts/2026/creme-brulee-a-plan.md"
    third = kb.write.create("Crème brûlée: a plan", body="three")
    assert third.path == "creme-brulee-a-plan-2.md"
    assert kb.search("tag:food", mode="bm25").hits[0].relpath == result.path
    assert not [p for p in os.listdir(folder_of(kb)) if p.startswith(".")]  # no temporary file left


def test_rename_rewrites_links_and_undo_puts_everything_back(kb):
    folder = folder_of(kb)
    hub_before = (folder / "hub.md").read_bytes()
    result = edit(kb, "notes/plan.md", "move", "projects/roadmap")
    assert result.path == "projects/roadmap.md" and result.links_rewritten == ["hub.md"]
    hub = (folder / "hub.md").read_text()
    assert "[[roadmap]]" in hub and "(projects/roadmap.md#tasks)" in hub and "`[[plan]]`" in hub
    assert {link.source for link in kb.graph.backlinks("notes/projects/roadmap.md")} == {"hub.md"}
    assert kb.search("intro", mode="bm25").hits[0].relpath == "projects/roadmap.md"
    kb.write.undo()
    assert (folder / "hub.md").read_bytes() == hub_before and (folder / "plan.md").exists()
    assert not (folder / "projects/roadmap.md").exists()
    assert kb.search("intro", mode="bm25").hits[0].relpath == "plan.md"


def test_delete_goes_to_the_trash_and_undo_restores_it(kb):
    path = folder_of(kb) / "plan.md"
    before = path.read_bytes()
    result = edit(kb, "notes/plan.md", "delete")
    assert not path.exists() and list((kb.home / "trash").iterdir())
    assert not kb.search("intro", mode="bm25").hits
    kb.write.undo(result.journal)
    assert path.read_bytes() == before and kb.search("intro", mode="bm25").hits


def test_undo_is_refused_when_the_person_changed_the_note_since(kb):
    path = folder_of(kb) / "plan.md"
    result = edit(kb, "notes/plan.md", "append", "agent line")
    path.write_text(path.read_text() + "\nthe person's line\n")
    with pytest.raises(UsageError, match="changed since write"):
        kb.write.undo(result.journal)
    assert "the person's line" in path.read_text()


def test_changed_agent_finds_what_was_written(kb):
    edit(kb, "notes/plan.md", "append", "agent line", client="mcp:test")
    hits = kb.search("changed:agent", mode="bm25").hits
    assert {h.relpath for h in hits} == {"plan.md"}
    assert kb.write.changed_by("notes", "plan.md")[1] == "mcp:test"
    assert kb.write.recent("1h")[0].client == "mcp:test"


HOSTILE_PATHS = ["../outside.md", "/etc/passwd.md", "~/x.md", "a/../../x.md", ".obsidian/app.md", "a/.git/x.md",
                 "CON.md", "nul.md", "sub/aux.md", "a\\b.md", "bad|name.md", "x\x1b[31m.md", "trailing.md ",
                 "doc.pdf", "report.docx", "script.sh", "a//b.md", "./x.md", "x" * 300 + ".md", "PLAN.md"]


@pytest.mark.parametrize("path", HOSTILE_PATHS)
def test_hostile_paths_are_refused_in_one_sentence(kb, path):
    with pytest.raises(PmsError) as exc:
        kb.write.create("Hostile", body="x", path=path)
    message = str(exc.value)
    assert "\n" not in message and "\x1b" not in message and message.endswith((".", ")")), message
    assert not (folder_of(kb).parent / "outside.md").exists()


def test_a_symlinked_folder_is_not_written_through(kb, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (folder_of(kb) / "linked").symlink_to(outside)
    with pytest.raises(UsageError, match="symlink"):
        kb.write.create("Through", body="x", path="linked/x.md")
    assert not list(outside.iterdir())


def test_read_only_collections_the_guide_and_size_are_refused(kb, tmp_path):
    kb.collections.set_writable("notes", False)
    with pytest.raises(UsageError, match="read-only for agents"):
        kb.write.create("No", collection="notes", body="x")
    kb.collections.set_writable("notes", True)
    with pytest.raises(UsageError, match="a write may hold up to"):
        kb.write.create("Big", body="x" * (kb.settings.max_write_kb * 1024 + 1))
    guide = kb.scope.add_guide()
    kb.collections.set_writable(guide.name, True)
    with pytest.raises(UsageError, match="bundled guide is read-only"):
        kb.write.create("Into the guide", collection=guide.name, body="x")


def test_the_rate_is_bounded(kb):
    from dataclasses import replace

    from pms_tui.core.writes.guard import RateLimit

    kb.write._rate = RateLimit(replace(kb.settings, writes_per_minute=2))
    kb.write.create("One", body="1", client="fast")
    kb.write.create("Two", body="2", client="fast")
    with pytest.raises(UsageError, match="Too many writes: 2 a minute"):
        kb.write.create("Three", body="3", client="fast")
    kb.write.create("Other client", body="4", client="slow")


def test_hostile_content_is_kept_as_data_and_never_printed_raw(kb, capsys):
    from pms_tui.cli import main

    body = "\x1b]0;pwned\x07 [bold red]markup[/] \x1b[2J"
    result = kb.write.create("Escapes", body=body)
    assert body.encode() in (folder_of(kb) / result.path).read_bytes()  # the note holds what was written
    home = str(kb.home)
    kb.close()
    assert main(["--home", home, "history"]) == 0
    assert main(["--home", home, "search", "markup", "--mode", "bm25"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out


def test_collections_writable_and_read_only_from_the_cli(tmp_path, capsys):
    import json

    from pms_tui.cli import main

    write(tmp_path / "n", "a.md", "# A\n")
    text_only_kb(tmp_path / "home", tmp_path / "n", name="n").close()
    home = str(tmp_path / "home")
    assert main(["--home", home, "collections", "--writable", "n"]) == 0
    assert "Agents may now write notes in 'n'." in capsys.readouterr().out
    assert main(["--home", home, "collections", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["writable"] is True
    assert main(["--home", home, "new", "From the shell", "--body", "shellquux words", "--no-embed"]) == 0
    assert "Created n/from-the-shell.md" in capsys.readouterr().out
    assert main(["--home", home, "history", "--json"]) == 0
    [entry] = json.loads(capsys.readouterr().out)["writes"]  # as MCP recent gives them
    assert (entry["tool"], entry["client"], entry["note"]) == ("create_note", "cli", "n/from-the-shell.md")
    assert main(["--home", home, "undo", str(entry["id"]), "--no-embed"]) == 0
    assert not (tmp_path / "n" / "from-the-shell.md").exists()
    assert main(["--home", home, "undo", str(entry["id"]), "--no-embed"]) == 1
    assert "was undone already" in capsys.readouterr().err
    assert main(["--home", home, "undo", "1", "--no-embed"]) == 1  # write 1 is that create: undone
    capsys.readouterr()
    assert main(["--home", home, "new", "From the shell", "--body", "shellquux words", "--no-embed"]) == 0
    capsys.readouterr()
    assert main(["--home", home, "collections", "--read-only", "n"]) == 0
    assert main(["--home", home, "append", "n/from-the-shell.md", "more", "--no-embed"]) == 1
    assert "read-only for agents" in capsys.readouterr().err


def test_a_note_whose_name_pms_tui_would_not_give_can_still_be_edited(kb):
    path = folder_of(kb) / "C# [draft].md"
    path.write_text("# C sharp\n")
    kb.sync(embed=False)
    edit(kb, "notes/C# [draft].md", "append", "more")
    assert path.read_text() == "# C sharp\n\nmore\n"
    with pytest.raises(UsageError, match="holds a character"):
        kb.write.create("x", path="F# [new].md")


def test_every_link_form_follows_a_rename(tmp_path):
    folder = tmp_path / "notes"
    write(folder, "my plan.md", "# My plan\n\n## Tasks\n\nx\n")
    write(folder, "other/roadmap.md", "# Another roadmap\n")  # the new name is taken elsewhere
    write(folder, "sub/source.md", "Links: [[my plan#Tasks|the plan]], ![[my plan]], [[My Plan.md]], "
                                   "[a](../my%20plan.md), [b](<../my plan.md#tasks>), "
                                   "[c](https://example.com/my%20plan.md), [[unrelated]].\n")
    kb = text_only_kb(tmp_path / "home", folder)
    kb.collections.set_writable("notes", True)
    result = edit(kb, "notes/my plan.md", "move", "projects/roadmap.md")
    assert result.links_rewritten == ["sub/source.md"]
    assert (folder / "sub/source.md").read_text() == (
        "Links: [[projects/roadmap#Tasks|the plan]], ![[projects/roadmap]], [[projects/roadmap.md]], "
        "[a](../projects/roadmap.md), [b](<../projects/roadmap.md#tasks>), [c](https://example.com/my%20plan.md), "
        "[[unrelated]].\n")
    assert {link.target_path for link in kb.graph.links("notes/sub/source.md") if link.resolved} == {"projects/roadmap.md"}
    kb.close()


def test_the_changed_filter_parses_and_says_what_it_takes():
    from pms_tui.core.search.query_syntax import parse

    q = parse("budget changed:agent")
    assert q.values("changed") == ["agent"] and q.terms == ["budget"] and "changed:agent" in q.chips()
    bad = parse("changed:person")
    assert not bad.values("changed") and "changed:agent finds the notes an agent wrote" in bad.ignored[0].reason


def test_a_write_does_not_wait_for_another_process_holding_the_index(kb):
    import subprocess
    import sys

    holder = subprocess.Popen([sys.executable, "-I", "-c", (
        "import sys, time\nfrom pms_tui.core.kb import KnowledgeBase\n"
        "kb = KnowledgeBase(sys.argv[1], embedder=None)\nheld = kb.index.writing()\nheld.__enter__()\n"
        "print('held', flush=True)\ntime.sleep(60)\n"), str(kb.home)], stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == b"held"
        result = kb.write.create("While busy", body="busybeequux")
        assert not result.indexed and "searchable after the next sync" in result.message
        assert (folder_of(kb) / result.path).exists()
    finally:
        holder.kill()
        holder.wait()
    kb.sync(embed=False)
    assert kb.search("busybeequux", mode="bm25").hits


def test_an_index_of_schema_12_gains_the_writable_mark_read_only(tmp_path):
    from pms_tui.core.kb import KnowledgeBase
    from pms_tui.core.store import SCHEMA_VERSION

    write(tmp_path / "n", "a.md", "# A\n")
    kb = text_only_kb(tmp_path / "home", tmp_path / "n", name="n")
    with kb._store.transaction() as conn:
        conn.execute("DROP TABLE agent_changes")
        conn.execute("ALTER TABLE collections DROP COLUMN writable")
        conn.execute("UPDATE meta SET value = '12' WHERE key = 'schema_version'")
    kb.close()
    with KnowledgeBase(tmp_path / "home", embedder=None) as kb:
        assert kb.collections.get("n").writable is False
        assert kb._store.conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == \
            str(SCHEMA_VERSION)
        assert kb.collections.set_writable("n", True).writable
