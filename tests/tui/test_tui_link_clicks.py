"""Clicking every kind of link the reader shows, with the mouse on the rendered link: each is
followed (the reader shows where it leads) or refused with one sentence, never a crash."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.tui.tui_helpers import make_app, reader_shown, run, settle, write_note

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


def link_cells(app, within: str = "#reader-scroll") -> dict[str, tuple[int, int]]:
    """{the click action of each rendered link: its first screen cell, top down}."""
    screen = app.screen
    region = screen.query_one(within).region
    cells: dict[str, tuple[int, int]] = {}
    for y in range(region.y, region.bottom):
        for x in range(region.x, region.right):
            action = screen.get_style_at(x, y).meta.get("@click", "")
            if action.startswith("link(") and action not in cells:
                cells[action] = (x, y)
    return cells


def link_cell(app, href: str, within: str = "#reader-scroll",
              cells: dict[str, tuple[int, int]] | None = None) -> tuple[int, int] | None:
    """The screen cell of the first rendered link (top down) whose target starts with ``href``."""
    found = cells if cells is not None else link_cells(app, within)
    return next((cell for action, cell in found.items() if action.startswith(f"link('{href}")), None)


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
    ("https://example.com", None, "https://example.com/page opens outside pms-tui: its address is copied"),
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
            cells: dict[str, tuple[int, int]] | None = None
            for href, goes, says in CASES:
                screen.open_entry(PanelEntry("v", "Home.md", 1))
                await settle(app, pilot)
                assert reader.hit is not None and reader.hit.relpath == "Home.md"
                cells = cells or link_cells(app)  # Home.md is shown the same way each time
                cell = link_cell(app, href, cells=cells)
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
                    assert screen.link_walker.reading_history.current.line == line
            assert copied == ["https://example.com/page"]
    run(scenario())


def test_links_inside_a_table_and_nested_headings_are_followed(home: Path):
    async def scenario():
        app = make_app(home, load_model=False)
        async with app.run_test(size=(120, 80)) as pilot:
            await settle(app, pilot)
            screen = app.search_screen
            screen.open_entry(PanelEntry("v", "Home.md", 1))
            await settle(app, pilot)
            text, links, _ = reader_shown(screen.reader)
            assert "[[" not in text  # every wikilink was read and rendered
            assert any(shown == "the alpha" and href.startswith("pms-note:") for shown, href in links)  # \| alias
            assert any(shown == "Gamma › Deep" and href.startswith("pms-note:") for shown, href in links)  # nested
            assert "⧉ picture.png" in text and "⧉ 300" not in text  # an image embed: its name
            # the table's link, clicked
            cell = link_cell(app, "pms-note:v%2FAlpha.md%3A1", "NoteTable")
            assert cell is not None
            await pilot.click(offset=cell)
            await settle(app, pilot)
            assert screen.reader.hit.relpath == "Alpha.md"
    run(scenario())


def _long_note() -> str:
    words = "the reader keeps its place while the screen around it changes size and shape"
    parts = [f"## Part {i}\n\n" + " ".join([f"Paragraph {i}: {words}."] * 6) + "\n" for i in range(30)]
    return "# Long\n\nIntro.\n\n" + "\n".join(parts)


def test_resizes_and_the_panel_keep_the_readers_place(tmp_path: Path):
    folder = tmp_path / "vault"
    write_note(folder, "Long.md", _long_note())
    write_note(folder, "Other.md", "# Other\n\nSee [[Long#Part 14]].\n")
    lines = (folder / "Long.md").read_text().split("\n")
    part = lines.index("## Part 14") + 1
    home = tmp_path / "home"
    from pms_tui.core.kb import KnowledgeBase

    with KnowledgeBase(home=home) as kb:
        kb.collections.create(folder, name="v")
        kb.sync(embed=False)

    async def scenario():
        app = make_app(home, load_model=False)
        async with app.run_test(size=(140, 40)) as pilot:
            await settle(app, pilot)
            screen = app.search_screen
            reader = screen.reader
            scroll = screen.query_one("#reader-scroll")
            screen.open_entry(PanelEntry("v", "Long.md", part))
            await settle(app, pilot)

            def top_line() -> int | None:
                place = reader._top_place(scroll)
                return place[0] if place else None

            def passage_in_view() -> bool:
                view = scroll.content_region
                return any(view.overlaps(b.region) for b in reader._blocks_marked())

            assert reader.hit.start_line <= part <= reader.hit.end_line
            assert top_line() == part and passage_in_view() and scroll.scroll_y > 0
            steps = [("f6", None), (None, (80, 24)), (None, (220, 60)), ("f6", None)]
            for key, size in steps:
                if key:
                    await pilot.press(key)
                else:
                    await pilot.resize_terminal(*size)
                await settle(app, pilot)
                await pilot.pause(0.05)
                if not reader.display:  # below 100 columns the open panel stands in the reader's place
                    assert screen.results.display and size == (80, 24)
                    continue
                assert top_line() == part, (key, size, top_line())
                assert passage_in_view() and f"Long.md:{reader.hit.start_line}-" in str(
                    screen.query_one("#breadcrumb").render())
            # scrolled by hand, the new place is the one kept
            scroll.scroll_relative(y=20, animate=False)
            await settle(app, pilot)
            kept = reader._top_place(scroll)
            assert kept is not None and kept[0] > part
            await pilot.resize_terminal(160, 40)
            await settle(app, pilot)
            await pilot.pause(0.05)
            assert top_line() == kept[0]
    run(scenario())


def test_at_80_columns_the_panel_takes_the_readers_place_and_rows_keep_their_ranks(home: Path):
    from pms_tui.tui.widgets.results import hit_row

    async def scenario():
        app = make_app(home, load_model=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(app, pilot)
            screen = app.search_screen
            for ch in "alpha":
                await pilot.press(ch)
            await settle(app, pilot)
            reader, results, panel = screen.reader, screen.results, screen.query_one("#links")
            assert results.display and reader.size.width >= 30
            await pilot.press("f6")
            await settle(app, pilot)
            assert panel.display and panel.size.width > 20
            # the results stay, beside the panel of the highlighted note; the reader steps aside
            assert results.display and not reader.display and results.size.width >= 40
            assert results.region.right <= panel.region.x and panel.region.right <= 80
            footer = screen.query_one("Footer")
            assert footer.region.width == 80
            await pilot.press("f6")
            await settle(app, pilot)
            assert results.display and reader.display and not panel.display
            hit = results.current
            for width in (20, 30, 36, 60):  # a row never wraps its first line
                first = hit_row(hit, width, False).split("\n")[0]
                assert first.cell_length <= width, (width, first.plain)
    run(scenario())


def test_the_panel_names_the_notes_links_lead_to(home: Path):
    async def scenario():
        app = make_app(home, load_model=False)
        async with app.run_test(size=(160, 50)) as pilot:
            await settle(app, pilot)
            screen = app.search_screen
            screen.open_entry(PanelEntry("v", "Home.md", 1), record=False)
            await settle(app, pilot)
            await pilot.press("f6")
            await settle(app, pilot)
            panel = screen.query_one("#links")
            assert str(panel.query_one("#links-trail").render()).strip() == "Home"  # before any link is followed
            shown = [text for text, _, _ in panel.content.links]
            assert "Alpha" in shown and "to alpha" not in shown  # [to alpha](Alpha.md): the note, not the label
            assert "Alpha › Goals" not in shown and "the alpha" not in shown
            assert "Gamma › Deep" in shown and "⧉ Beta › Plan" in shown and "Nowhere" in shown
    run(scenario())


def test_a_focused_results_list_at_80_columns_never_wraps_its_rows(tmp_path: Path):
    """Focus draws the list's border and narrows it without a resize: the rows are built again
    for the narrower list, so no row's last cell wraps onto a line of its own."""
    from pms_tui.core.kb import KnowledgeBase

    folder = tmp_path / "v"
    for i in range(6):
        write_note(folder, f"undo-latest-changes-committed-to-a-file-{i}.md",
                   f"# Undo Latest Changes Committed To Specific File {i}\n\n"
                   "Instead, I can point to the commit right before the current one that I am undoing.\n")
    home = tmp_path / "home"
    with KnowledgeBase(home=home) as kb:
        kb.collections.create(folder, name="til")
        kb.sync(embed=False)

    async def scenario():
        app = make_app(home, load_model=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(app, pilot)
            results = app.search_screen.query_one("#results")
            for keys in ((), ("down", "enter")):  # the bar focused, then the list
                for key in keys:
                    await pilot.press(key)
                await settle(app, pilot)
                inner = results.scrollable_content_region.width
                for i in range(results.option_count):
                    prompt = results.get_option_at_index(i).prompt
                    widest = max((line.cell_length for line in prompt.split("\n")), default=0)
                    assert widest <= inner - 2, (keys, i, widest, inner)  # inside the options' padding

    run(scenario())
