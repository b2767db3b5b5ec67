"""Clicking every kind of link the reader shows, with the mouse on the rendered link: each is
followed (the reader shows where it leads) or refused with one sentence, never a crash."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.tui.tui_helpers import make_app, run, settle, write_note

from pms_tui.tui.widgets.links_panel import PanelEntry

HOME = """\
# Home

[[Alpha]] is a wikilink.

[to alpha](Alpha.md) is a Markdown link.

[[Gamma#Deep]] is a heading link.

[deep](Gamma.md#deep) is a Markdown heading link.

[[Gamma#Intro part#Deep]] is a nested heading link.

[[Nowhere]] is a dangling wikilink.

[gone](missing.md) is a dangling Markdown link.

[site](https://example.com/page) is a web link.

[[#Local]] is a link within the note.

[here](#local) is a Markdown link within the note.

![[Beta#Plan]]

![[picture.png|300]]

| Link | Note |
|------|------|
| [[Alpha\\|the alpha]] | a table cell |

## Local

The local section.
"""

VAULT = {
    "Home.md": HOME,
    "Alpha.md": "# Alpha\n\n## Goals\n\nShip it.\n",
    "sub/Beta.md": "# Beta\n\n## Plan\n\nThe plan of beta.\n",
    "Gamma.md": "# Gamma\n\n## Intro part\n\nIntro.\n\n### Deep\n\nDeep text.\n",
    "picture.png": "not really a picture",
}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    from pms_tui.core.kb import KnowledgeBase

    folder = tmp_path / "vault"
    for rel, text in VAULT.items():
        write_note(folder, rel, text)
    home = tmp_path / "home"
    with KnowledgeBase(home=home) as kb:
        kb.collections.create(folder, name="v")
        kb.sync(embed=False)
    return home


def link_cell(app, href: str, within: str = "#reader-scroll") -> tuple[int, int] | None:
    """The screen cell of the first rendered link (top down) whose target starts with ``href``."""
    screen = app.screen
    region = screen.query_one(within).region
    for y in range(region.y, region.bottom):
        for x in range(region.x, region.right):
            if f"link('{href}" in screen.get_style_at(x, y).meta.get("@click", ""):
                return x, y
    return None


def file_line(note: str, text: str) -> int:
    return VAULT[note].split("\n").index(text) + 1


# (the link's href contains, where the reader goes (note, line) or None, the sentence says)
CASES = [
    ("pms-note:v%2FAlpha.md%3A1", ("Alpha.md", 1), ""),  # [[Alpha]]
    ("Alpha.md", ("Alpha.md", 1), ""),  # [to alpha](Alpha.md)
    ("pms-note:v%2FGamma.md%3A7", ("Gamma.md", 7), ""),  # [[Gamma#Deep]]: its heading's line
    ("Gamma.md#deep", ("Gamma.md", 7), ""),
    ("pms-nowhere:No%20note%20named%20Nowhere", None, "No note named Nowhere in this collection."),
    ("missing.md", None, "No note named missing.md in this collection."),
    ("https://example.com", None, "Web links open outside pms-tui: https://example.com/page is copied"),
    ("pms-note:v%2FHome.md%3A", ("Home.md", file_line("Home.md", "## Local")), ""),  # [[#Local]]
    ("#local", ("Home.md", file_line("Home.md", "## Local")), ""),
    ("pms-note:v%2Fsub%2FBeta.md%3A3", ("sub/Beta.md", 3), ""),  # the embed ![[Beta#Plan]]
    ("pms-nowhere:picture.png", None, "picture.png is a file, not a note"),
]


@pytest.mark.parametrize("size", [(120, 80)])
def test_clicking_each_kind_of_link(home: Path, size):
    async def scenario():
        app = make_app(home, load_model=False)
        async with app.run_test(size=size) as pilot:
            await settle(app, pilot)
            screen = app.search_screen
            reader = screen.reader
            copied: list[str] = []
            app.copy_to_clipboard = copied.append  # (the terminal's clipboard is not the test's)
            for href, goes, says in CASES:
                screen.links.open(PanelEntry("v", "Home.md", 1))
                await settle(app, pilot)
                assert reader.hit is not None and reader.hit.relpath == "Home.md"
                cell = link_cell(app, href)
                assert cell is not None, f"no rendered link to {href}"
                before = len(app.notified)
                await pilot.click(offset=cell)
                await settle(app, pilot)
                assert app.is_running
                said = [n.message for n in app.notified[before:]]
                if goes is None:
                    assert len(said) == 1 and says in said[0], (href, said)
                    assert reader.hit.relpath == "Home.md"
                else:
                    assert not said, (href, said)
                    note, line = goes
                    assert reader.hit.relpath == note and reader.whole_note, href
                    assert reader.hit.start_line <= line <= reader.hit.end_line, (href, reader.hit)
                    assert screen.links.history.current.line == line
            assert copied == ["https://example.com/page"]
    run(scenario())


def test_links_inside_a_table_and_nested_headings_are_followed(home: Path):
    async def scenario():
        app = make_app(home, load_model=False)
        async with app.run_test(size=(120, 80)) as pilot:
            await settle(app, pilot)
            screen = app.search_screen
            screen.links.open(PanelEntry("v", "Home.md", 1))
            await settle(app, pilot)
            source = screen.reader.source
            assert "[[" not in source.replace("[[Nowhere]]", "")  # every wikilink was read and rendered
            assert "| [the alpha](pms-note:" in source  # the table's escaped alias bar
            assert "[Gamma › Deep](pms-note:" in source  # the nested heading link: its last heading
            assert "⧉ picture.png" in source and "⧉ 300" not in source  # an image embed: its name
            # the table's link, clicked
            cell = link_cell(app, "pms-note:v%2FAlpha.md%3A1", "MarkdownTable")
            assert cell is not None
            await pilot.click(offset=cell)
            await settle(app, pilot)
            assert screen.reader.hit.relpath == "Alpha.md"
    run(scenario())
