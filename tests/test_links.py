"""The link graph: extraction (code is not links), resolution as Obsidian does it, incremental
re-resolution on add / rename / delete, the kb methods, the search filters and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.kb_helpers import write
from pms_tui.cli import main
from pms_tui.core.indexing.link_resolve import NameIndex
from pms_tui.core.indexing.links import MAX_LINKS, extract

VAULT = {
    "Home.md": (
        "---\ntitle: Welcome\n---\n# Welcome\n\nSee [[Project Alpha]] and [[projects/beta|the beta project]].\n"
        "Also [[project alpha#Goals]], [[Beta#^blk1]] and ![[Beta#Plan]].\n"
        "A [markdown link](projects/Beta.md#plan) and [web](https://example.org/x.md).\n"
        "`[[Not a link]]` in code.\n\n```\n[[Also not]]\n```\n"
        "Missing: [[Nowhere]], file: ![[diagram.png]], escape: [[../../etc/passwd]] [[/etc/passwd]]\n"
        "[Up](../../outside.md) and [[#Welcome]] and [[Home]].\n"
    ),
    "Project Alpha.md": "# Project Alpha\n\n## Goals\n\nShip it. Back to [[Home]].\n",
    "projects/Beta.md": (
        "---\naliases: [B-team, Second project]\n---\n# Beta\n\n## Plan\n\nThe plan. ^blk1\n\n"
        "Mentions Project Alpha without a link.\n"
    ),
    "a/Dup.md": "# Dup A\n",
    "b/Dup.md": "# Dup B\n",
    "deep/down/Short.md": "# Deep short\n",
    "Short.md": "# Top short\n",
    "Links to dups.md": "[[Dup]] [[Short]] [[Second project]] [[b-team]]\n",
}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    folder = tmp_path / "vault"
    for rel, text in VAULT.items():
        write(folder, rel, text)
    return folder


@pytest.fixture
def graph_kb(kb, vault):
    kb.collections.create(vault, name="v")
    kb.sync(embed=False)
    return kb


def _by_target(links):
    return {(link.target, link.anchor): link for link in links}


def test_extract_skips_code_and_keeps_lines():
    found = extract("# H\n\n`[[no]]` [[yes|Y]]\n\n```\n[[fenced]]\n```\n    [[indented]]\n", offset=2)
    assert [(link.target, link.label, link.line) for link in found.links] == [("yes", "Y", 5)]
    assert [(a.kind, a.key, a.line) for a in found.anchors] == [("heading", "h", 3)]


def test_extract_unbalanced_brackets_and_huge_note():
    assert extract("[[open and [[ ]] ]] [[a]b]] [[\n]] [[x]]").links[-1].target == "x"
    body = " ".join(f"[[n{i}]]" for i in range(100_000))
    found = extract(body)
    assert len(found.links) == MAX_LINKS and found.dropped == 100_000 - MAX_LINKS


def test_resolution_rules():
    index = NameIndex([(1, "Home.md"), (2, "a/Dup.md"), (3, "b/Dup.md"), (4, "Short.md"), (5, "x/y/Short.md"),
                       (6, "img/pic.md")], [("nick", 4)])
    assert index.resolve("Home.md", "wiki", "short") == ("resolved", 4)  # case-insensitive, shortest path
    assert index.resolve("Home.md", "wiki", "Short.md") == ("resolved", 4)
    assert index.resolve("Home.md", "wiki", "Dup") == ("ambiguous", None)
    assert index.resolve("Home.md", "wiki", "b/Dup") == ("resolved", 3)
    assert index.resolve("Home.md", "wiki", "y/Short") == ("resolved", 5)  # a path's tail
    assert index.resolve("Home.md", "wiki", "nick") == ("resolved", 4)  # an alias
    assert index.resolve("Home.md", "wiki", "pic.png")[0] == "file"
    assert index.resolve("a/Dup.md", "md", "../Home.md") == ("resolved", 1)
    for hostile in ("../../etc/passwd", "/etc/passwd", "~/x", "C:/Windows/x", "../x.md"):
        assert index.resolve("Home.md", "wiki", hostile)[0] == "outside", hostile
    assert index.resolve("a/Dup.md", "md", "../../Home.md") == ("outside", None)
    assert index.resolve("Home.md", "wiki", "Nowhere") == ("dangling", None)


def test_links_of_a_note(graph_kb):
    links = _by_target(graph_kb.graph.links("v/Home.md"))
    alpha = links[("Project Alpha", "")]
    assert alpha.status == "resolved" and alpha.target_path == "Project Alpha.md" and alpha.line == 6
    assert links[("projects/beta", "")].label == "the beta project"
    assert links[("project alpha", "Goals")].target_line == 3
    assert links[("Beta", "^blk1")].target_line == 8
    assert links[("Beta", "Plan")].embed and links[("Beta", "Plan")].target_line == 6
    assert links[("projects/Beta.md", "plan")].target_path == "projects/Beta.md"
    assert links[("Nowhere", "")].status == "dangling"
    assert links[("diagram.png", "")].status == "file"
    assert links[("../../etc/passwd", "")].status == "outside"
    assert links[("/etc/passwd", "")].status == "outside"
    assert links[("../../outside.md", "")].status == "outside"
    assert links[("", "Welcome")].target_path == "Home.md"  # a link within the note
    assert links[("Home", "")].target_path == "Home.md"  # a self-link
    assert not any("not" in t.lower() for t, _ in links)  # code is not links
    assert not any("example.org" in t for t, _ in links)


def test_backlinks_mentions_and_names(graph_kb):
    back = graph_kb.graph.backlinks("Project Alpha")
    assert {b.source for b in back} == {"Home.md"}
    assert any("[[Project Alpha]]" in b.text for b in back)
    dups = _by_target(graph_kb.graph.links("v/Links to dups.md"))
    assert dups[("Dup", "")].status == "ambiguous"
    assert dups[("Short", "")].target_path == "Short.md"
    assert dups[("Second project", "")].target_path == "projects/Beta.md"  # an alias
    assert dups[("b-team", "")].target_path == "projects/Beta.md"  # an alias, any case
    mentions = graph_kb.graph.mentions("Project Alpha")
    assert [m.path for m in mentions] == ["projects/Beta.md"] and "Project Alpha" in mentions[0].text
    with pytest.raises(Exception, match="names 2 notes"):
        graph_kb.graph.backlinks("Dup")
    counts = graph_kb.graph.link_counts()["v"]
    assert counts["ambiguous"] == 1 and counts["dangling"] == 1 and counts["outside"] == 3


def test_incremental_add_rename_delete(graph_kb, vault):
    def status():
        return _by_target(graph_kb.graph.links("v/Home.md"))[("Nowhere", "")]

    assert status().status == "dangling"
    write(vault, "sub/Nowhere.md", "# Now here\n")
    report = graph_kb.sync(embed=False)
    assert report.added == ["v/sub/Nowhere.md"]
    assert status().target_path == "sub/Nowhere.md"
    (vault / "sub/Nowhere.md").rename(vault / "sub/Elsewhere.md")
    graph_kb.sync(embed=False)
    assert status().status == "dangling"
    assert _by_target(graph_kb.graph.links("v/Home.md"))[("Project Alpha", "")].status == "resolved"
    (vault / "a/Dup.md").unlink()  # the ambiguity goes with it
    graph_kb.sync(embed=False)
    assert _by_target(graph_kb.graph.links("v/Links to dups.md"))[("Dup", "")].target_path == "b/Dup.md"
    write(vault, "Home.md", "No links any more.\n")
    graph_kb.sync(embed=False)
    assert graph_kb.graph.backlinks("Project Alpha") == []


def test_search_filters(graph_kb):
    hits = graph_kb.search('linksto:"project alpha"', k=10, vector=False)
    assert {h.relpath for h in hits} == {"Home.md"}
    hits = graph_kb.search("linkedfrom:Home", k=10, vector=False)
    assert "Project Alpha.md" in {h.relpath for h in hits} and "a/Dup.md" not in {h.relpath for h in hits}


def test_related_marks_links(kb, vault):
    kb.collections.create(vault, name="v")
    kb.sync()
    related = kb.graph.related("v/Home.md", k=20)
    assert related and all(r.path != "Home.md" for r in related)
    alpha = next(r for r in related if r.path == "Project Alpha.md")
    assert alpha.linked and alpha.links_here


def test_cli_json(graph_kb, capsys):
    home = str(graph_kb.home)
    graph_kb.close()
    assert main(["--home", home, "backlinks", "Project Alpha", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)  # the note, and its backlinks (as MCP backlinks gives them)
    assert data["backlinks"][0]["source"] == "Home.md" and data["backlinks"][0]["line"] == 6
    assert data["backlinks"][0]["source_id"] == "v/Home.md" and data["note"].endswith("Project Alpha.md")
    assert main(["--home", home, "links", "v/Home.md", "--json"]) == 0
    assert any(link["status"] == "outside" for link in json.loads(capsys.readouterr().out)["links"])
    assert main(["--home", home, "links", "No such note"]) == 1
    err = capsys.readouterr().err
    assert "does not exist" in err and "Traceback" not in err
    assert main(["--home", home, "status"]) == 0
    assert "1 dangling, 1 ambiguous" in capsys.readouterr().out


def test_an_index_from_before_the_link_graph_is_migrated_and_backfilled(graph_kb):
    """Schema 4 had no link tables: opening it migrates, the next sync reads every note's
    links once (no note changed), and they resolve."""
    from pms_tui.core.kb import KnowledgeBase

    home = graph_kb.home
    with graph_kb._store.transaction() as conn:
        conn.execute("DROP TRIGGER documents_bd_links")
        for table in ("links", "note_names", "note_anchor_keys"):
            conn.execute(f"DROP TABLE {table}")
        conn.execute("UPDATE meta SET value = '4' WHERE key = 'schema_version'")
    graph_kb.close()
    with KnowledgeBase(home=home) as kb:
        assert kb.graph.link_counts() == {}
        report = kb.sync(embed=False)
        assert not report.changed
        assert {b.source for b in kb.graph.backlinks("Project Alpha")} == {"Home.md"}
        assert kb.graph.link_counts()["v"]["ambiguous"] == 1


def test_an_embedded_block_shows_its_text_not_its_id(kb, tmp_path):
    folder = tmp_path / "blocks"
    write(folder, "Q.md", "# Q\n\n> [!hint] A quote\n> The quoted advice.\n^quote\n\nThe plan. ^blk1\n")
    write(folder, "E.md", "# E\n\n![[Q#^quote]] and ![[Q#^blk1]]\n")
    kb.collections.create(folder, name="b")
    kb.sync(embed=False)
    links = {link.anchor: link for link in kb.graph.links("b/E.md")}
    quote = kb.graph.passage(links["^quote"])
    assert "The quoted advice." in quote and "^quote" not in quote  # the block above its own-line id
    assert kb.graph.passage(links["^blk1"]) == "The plan."


def test_what_a_reader_link_leads_to_as_the_index_reads_it(graph_kb, vault):
    """What a front end follows: a Markdown link's destination and a link within the note,
    matched to the note's links by the engine (no pattern of the front end's own)."""
    from pms_tui.core.markdown import wikilink_parts

    links = graph_kb.graph.links("v/Home.md")
    # a table's escaped bar and a nested heading, read as the index reads them
    assert wikilink_parts("Basic syntax\\|Markdown syntax")[:3] == ("Basic syntax", "", "Markdown syntax")
    assert wikilink_parts("Help#Questions#Report bugs")[:3] == ("Help", "Report bugs", "")
    # a Markdown link's destination, and a link within the note
    md = graph_kb.graph.link_of_href("projects/Beta.md#plan", links)
    assert md is not None and md.syntax == "md" and md.target_path == "projects/Beta.md"
    assert graph_kb.graph.link_of_href("https://example.org/x.md", links) is None
    assert graph_kb.graph.anchor_line("v/Home.md", "welcome") == 4
    assert graph_kb.graph.anchor_line("projects/Beta.md", "%5Eblk1") == 8
    assert graph_kb.graph.anchor_line("v/Home.md", "no-such-heading") is None


MENTION_VAULT = {
    "Canvas.md": "# Canvas\n\nAn infinite board.\n",
    "Publish.md": "---\naliases: [Obsidian Publish]\n---\n# Publish\n\nSites.\n",
    "Url.md": "# Url\n\nSee https://help.obsidian.md/About+Obsidian+Publish+themes for themes.\n",
    "Code span.md": "# Code span\n\nOnly `.canvas` and `.md` files are restored.\n",
    "Fence.md": "# Fence\n\n```\nCanvas here is code\n```\n",
    "Link text.md": "# Link text\n\nRead [about Obsidian Publish](https://obsidian.md/publish).\n",
    "Extension.md": "# Extension\n\nA file.canvas is saved, a canvas-based board.\n",
    "Prose.md": "# Prose\n\nA [[Home]] link, then a real Canvas mention.\n",
    "Twice.md": "# Twice\n\nSee [[Canvas]] and [[Canvas#Canvas|its title]].\n\nAgain [[Canvas]].\n",
}


@pytest.fixture
def mention_kb(kb, tmp_path):
    folder = tmp_path / "mentions"
    for rel, text in MENTION_VAULT.items():
        write(folder, rel, text)
    kb.collections.create(folder, name="m")
    kb.sync(embed=False)
    return kb


def test_unlinked_mentions_are_in_prose_only(mention_kb):
    """A note's name inside a URL, a code span, a fence, a link's text or a file name is no
    mention; in prose it is, even on a line that links elsewhere."""
    canvas = mention_kb.graph.mentions("Canvas")
    assert [(m.path, m.line) for m in canvas] == [("Prose.md", 3)]
    assert mention_kb.graph.mentions("Publish") == []


def test_a_line_linking_twice_is_one_backlink(mention_kb):
    back = mention_kb.graph.backlinks("Canvas")
    assert [(b.source, b.line) for b in back] == [("Twice.md", 3), ("Twice.md", 5)]
    assert "[[Canvas#Canvas|its title]]" in back[0].text


def test_a_note_is_named_by_one_key_everywhere(tmp_path):
    """A link, an alias, ``linksto:`` and ``show`` fold case, runs of spaces and ``.md`` alike
    (markdown.name_key / file_name_key): a link written with other spacing or a capital
    ``.MD`` reaches the note, and the filter and the resolver agree with it."""
    from pms_tui.core.kb import KnowledgeBase

    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "Project  Alpha.md").write_text("# Project Alpha\n\nthe plan\n")
    (notes / "home.md").write_text("# Home\n\nsee [[project alpha.MD]] and [[Project   Alpha]]\n")
    with KnowledgeBase(home=tmp_path / "home") as kb:
        kb.collections.create(notes, name="notes")
        kb.sync(embed=False)
        links = kb.graph.links("notes/home.md")
        assert [link.target_path for link in links] == ["Project  Alpha.md"] * 2
        assert [h.relpath for h in kb.search('linksto:"project alpha"', k=5, mode="bm25")] == ["home.md"]
        assert kb.notes.note("Project Alpha.MD").relpath == "Project  Alpha.md"
