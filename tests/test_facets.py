"""Tags and dates of a note, from its frontmatter and its text."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pms_tui.core.indexing.facets import inline_tags, note_date, note_tags
from pms_tui.core.indexing.frontmatter import split_frontmatter


@pytest.mark.parametrize("front, expected", [
    ("tags: [git, Tools]", ["git", "tools"]),
    ("tags:\n  - git\n  - '#tools'", ["git", "tools"]),
    ("tags: git, tools", ["git", "tools"]),
    ("tags: git tools", ["git", "tools"]),
    ("tags: '#git #tools'", ["git", "tools"]),
    ("Tags: project/alpha", ["project/alpha"]),
    ("tag: solo", ["solo"]),
    ("keywords: [a, b]", ["a", "b"]),
    ("tags: 2024", ["2024"]),
    ("tags: {a: 1}", []),
    ("tags:", []),
    ("tags: [git, git, '']", ["git"]),
])
def test_frontmatter_tags(front, expected):
    meta, body, _ = split_frontmatter(f"---\n{front}\n---\nbody\n")
    assert note_tags(meta, body) == expected


def test_inline_tags_outside_code_and_headings():
    body = (
        "# Heading #inheading\n"
        "Some #idea and #Project/Alpha, [link](#anchor) [#bracket]\n"
        "not: page#anchor, a/#b, &#123;, #123, ##double, `#span`\n"
        "```css\ncolor: #fff;\n```\n"
        "~~~\n#tilde\n~~~\n"
        "    #indented code\n"
        "end #last-one.\n"
    )
    assert inline_tags(body) == ["inheading", "idea", "project/alpha", "bracket", "last-one"]


def test_frontmatter_and_inline_merge_once():
    meta, body, _ = split_frontmatter("---\ntags: [git]\n---\n#git #rebase\n")
    assert note_tags(meta, body) == ["git", "rebase"]


@pytest.mark.parametrize("front, expected", [
    ("date: 2024-05-17", "2024-05-17"),
    ("created: 2024-05-17T10:30:00", "2024-05-17"),
    ("updated: '2024/05/17'", "2024-05-17"),
    ("created: 2020-01-01\nupdated: 2024-02-02", "2024-02-02"),
    ("Date: 2024-05-17 10:30", "2024-05-17"),
    ("date: not a date\ncreated: 2021-03-04", "2021-03-04"),
    ("date: 2024-13-45", None),
    ("title: x", None),
    ("date: 2019", "2019-01-01"),
])
def test_note_date(front, expected):
    meta, _, _ = split_frontmatter(f"---\n{front}\n---\n")
    day = note_date(meta)
    assert (day.isoformat() if day else None) == expected


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400), st.dictionaries(st.sampled_from(["tags", "date", "tag", "x"]),
       st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                    lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=5), c, max_size=3),
                    max_leaves=8)))
def test_never_raises(body, meta):
    tags = note_tags(meta, body)
    assert len(tags) == len(set(tags))
    assert all(t and t == t.lower() and not t.startswith("#") and " " not in t for t in tags)
    day = note_date(meta)
    assert day is None or isinstance(day, dt.date)


LOOK_ALIKES = {
    # each note holds "#git" somewhere that is not a tag, as Obsidian reads one
    "heading-link.md": "# Sync\n\n4. **Version control**: [[#Git]] and [[#Working Copy]]\n\n## Git\n\nRebase here.\n",
    "anchor-link.md": "# Anchor\n\nSee [the part](#git) on rebase.\n",
    "code-span.md": "# Code\n\nType `#git` to rebase.\n",
    "url.md": "# Url\n\nRead https://example.org/#git about rebase.\n",
    "escaped.md": "# Escaped\n\nNot a tag: \\#git, rebase.\n",
    "fence.md": "# Fence\n\n```\n#git rebase\n```\n",
    "real.md": "# Real\n\nA rebase note. #git\n",
}


@pytest.fixture
def look_alike_kb(tmp_path):
    from tests.kb_helpers import text_only_kb, write

    folder = tmp_path / "vault"
    for rel, text in LOOK_ALIKES.items():
        write(folder, rel, text)
    kb = text_only_kb(tmp_path / "home", folder)
    yield kb
    kb.close()


@pytest.mark.parametrize("query", ["tag:git", "rebase tag:git"])
def test_only_a_real_inline_tag_is_a_tag_in_the_index(look_alike_kb, query):
    """A heading link ``[[#Git]]``, an anchor link, a code span, a URL's fragment, an escaped
    ``\\#`` and a fence hold ``#git`` without tagging their note (obsidian-help's "Sync
    your notes across devices" matched tag:git by its ``[[#Git]]``)."""
    hits = look_alike_kb.search(query, mode="bm25")
    assert [h.relpath for h in hits] == ["real.md"]
    assert look_alike_kb.searcher.facet_values()["tag"] == ["git"]


def test_obsidian_help_sync_note_has_no_tag():
    from tests.kb_helpers import CORPORA

    note = CORPORA / "markdown/obsidian-help/en/Getting started/Sync your notes across devices.md"
    if not note.exists():
        pytest.skip("the obsidian-help corpus is absent")
    meta, body, _ = split_frontmatter(note.read_text(encoding="utf-8"))
    assert "[[#Git]]" in body
    assert note_tags(meta, body) == []


def test_an_index_read_by_earlier_tag_rules_is_read_again_once(look_alike_kb):
    """An index whose tags an earlier version read (``[[#Git]]`` was a tag then) has them read
    again from its stored text when it is opened, once."""
    from pms_tui.core.kb import KnowledgeBase
    from pms_tui.core.store import facets as facet_rows

    conn = look_alike_kb._store.conn
    with look_alike_kb._store.transaction() as writer:
        for (doc_id,) in writer.execute("SELECT id FROM documents").fetchall():
            facet_rows.write(writer, doc_id, ["git", "working"], None)
        writer.execute("DELETE FROM meta WHERE key = 'tag_rules'")
    home = look_alike_kb.home
    look_alike_kb.close()
    with KnowledgeBase(home, embedder=None) as kb:
        assert kb.searcher.facet_values()["tag"] == ["git"]
        assert [h.relpath for h in kb.search("tag:git")] == ["real.md"]


def test_a_long_note_is_scanned_once_for_its_tags(tmp_path, monkeypatch):
    """The tags of a note longer than a parse window are read with the structure the chunker
    scanned, not by scanning the note a second time; a tag past the first window is found, and a
    ``#tag`` inside a long fence is not."""
    from pms_tui.core import markdown
    from pms_tui.core.indexing import prose
    from tests.kb_helpers import text_only_kb, write

    filler = "".join(f"Paragraph {i} about rebasing and merging branches.\n\n" for i in range(2500))
    fence = "```\n" + "".join(f"#notatag line {i}\n" for i in range(400)) + "```\n\n"
    text = "# Long\n\n" + filler + fence + "The end. #late-tag\n"
    assert len(text) > markdown.WINDOW_CHARS * 2
    folder = tmp_path / "vault"
    write(folder, "long.md", text)
    scans: list[int] = []
    real_scan = prose.scan

    def counting_scan(*args, **kwargs):
        scans.append(1)
        return real_scan(*args, **kwargs)

    monkeypatch.setattr(prose, "scan", counting_scan)
    kb = text_only_kb(tmp_path / "home", folder)
    try:
        assert kb.searcher.facet_values()["tag"] == ["late-tag"]
    finally:
        kb.close()
    assert scans == []
