"""The reader renders Obsidian-flavoured Markdown as Obsidian users expect: callouts with their
type, title and folding; wikilinks and embeds in table cells, columns aligned; nested heading
links; image embeds by their file name; block ids hidden; dangling Markdown links struck
through; long code lines marked where cut. A real index of a small vault, the app driven by Pilot."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.tui.tui_helpers import make_app, run, settle, write_note
from tests.tui.tui_helpers import shown_contents as _contents
from tests.tui.tui_helpers import shown_links as _hrefs
from tests.tui.tui_helpers import shown_struck as _struck

from pms_tui.tui.widgets.links_panel import PanelEntry

LONG = "x = '" + "abcdefghij" * 20 + "'  # the end of a long line"

VAULT = {
    "Target.md": "# Target\n\nIntro.\n\n## Questions\n\n### Report bugs\n\nReport them here.\n\n"
                 "A block to land on. ^b15695\n\n" + "More.\n\n" * 20,
    "Shows.md": (
        "# Shows\n\n"
        "> [!info] Here's a callout title\n> Here's a callout block.\n\n"
        "> [!tip]- Folded tip\n> Hidden until opened.\n\n"
        "> [!faq]+ Open question\n> Shown at first.\n\n"
        "> [!warning]\n> Default title.\n\n"
        "> [!danger] [bold red]Not markup[/] $x\n> | [b]body[/b]\n\n"
        "> [!question] Outer\n> > [!todo] Inner\n> > Nested body.\n\n"
        "- item with a callout:\n\n  > [!note] In a list\n  > List body.\n\n"
        "| Left | Middle | Right |\n|:--|:--:|--:|\n"
        "| [[Target\\|the target]] | ![[image.png\\|200]] | 3 |\n"
        "| [red]cell[/red] | [@click=app.quit]q[/] | 4 |\n\n"
        "Nested: [[Target#Questions#Report bugs]].\n\n"
        "Embed: ![[image.png#interface|300]].\n\n"
        "Web: ![250](https://example.org/pics/Engelbart.jpg).\n\n"
        "Ends with an id. ^ab12cd\n\n"
        "Go [[Target#^b15695|to the block]].\n\n"
        "Markdown links: [live](Target.md) and [gone](missing.md).\n\n"
        f"```\n{LONG}\n```\n"
    ),
}


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    from pms_tui.core.kb import KnowledgeBase

    root = tmp_path_factory.mktemp("obsidian")
    folder = root / "vault"
    for rel, text in VAULT.items():
        write_note(folder, rel, text)
    (folder / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    home = root / "home"
    with KnowledgeBase(home=home) as kb:
        kb.collections.create(folder, name="v")
        kb.sync(embed=False)
    return home


async def _open(app, pilot, path: str) -> None:
    await settle(app, pilot)
    app.search_screen.open_entry(PanelEntry("v", path, 1))
    await settle(app, pilot)
    for _ in range(40):  # the first screen stands in until the note's blocks are mounted
        if app.search_screen.reader.markdown.first_screen is None:
            break
        await pilot.pause(0.05)
    await settle(app, pilot)


def _shows(home: Path, scenario, size=(120, 90)) -> None:
    """Open Shows.md in the app at ``size`` and run ``scenario(app, pilot, shown)``: ``shown``
    gives the reader's (widget, content) pairs shown now."""

    async def run_it():
        app = make_app(home, load_model=False)
        async with app.run_test(size=size) as pilot:
            await _open(app, pilot, "Shows.md")
            await scenario(app, pilot, lambda: _contents(app.search_screen.reader.markdown))
    run(run_it())


def _lines(shown) -> list[str]:
    return [line for _, c in shown() for line in c.plain.split("\n")]


def test_a_callout_shows_its_type_and_title_on_a_line_above_its_body(home):
    async def scenario(app, pilot, shown):
        lines = _lines(shown)
        title = next(line for line in lines if "Here's a callout title" in line)
        assert "Info" in title and "[!info]" not in title and "callout block" not in title
        assert any(line.strip() == "Here's a callout block." for line in lines)
        assert any(line.strip().endswith("Warning") for line in lines)  # no title: the type's name
        assert not any("[!" in line for line in lines)  # nested ones and one in a list too
        assert any("Inner" in line and "Todo" in line for line in lines) and "Nested body." in lines
        assert any("In a list" in line and "Note" in line for line in lines) and "List body." in lines
    _shows(home, scenario)


def test_a_folded_callout_hides_its_body_until_its_title_is_clicked(home):
    async def scenario(app, pilot, shown):
        lines = _lines(shown)
        assert any("Folded tip" in line for line in lines) and "Hidden until opened." not in lines
        assert "Shown at first." in lines  # [!faq]+: open, foldable
        title = next(w for w, c in shown() if "Folded tip" in c.plain and "Hidden" not in c.plain)
        app.search_screen.query_one("#reader-scroll").scroll_to_widget(title, animate=False, top=True)
        await pilot.pause()
        await pilot.click(title)
        await pilot.pause()
        assert "Hidden until opened." in _lines(shown)
        title = next(w for w, c in shown() if "Open question" in c.plain and "Shown" not in c.plain)
        app.search_screen.query_one("#reader-scroll").scroll_to_widget(title, animate=False, top=True)
        await pilot.pause()
        await pilot.click(title)
        await pilot.pause()
        assert "Shown at first." not in _lines(shown)
    _shows(home, scenario)


def test_a_table_cell_holds_a_live_wikilink_and_an_embed_and_its_columns_are_aligned(home):
    async def scenario(app, pilot, shown):
        cells = {w.name: (w, c) for w, c in shown() if (w.name or "").startswith("cell1.")}
        links = _hrefs(cells["cell1.1"][1])
        assert links and links[0][0] == "the target" and links[0][1].startswith("pms-note:")
        assert cells["cell1.2"][1].plain.strip() == "⧉ image.png"
        assert [cells[f"cell1.{n}"][0].styles.text_align for n in (2, 3)] == ["center", "right"]
        # a click on the cell's link follows it
        cell = cells["cell1.1"][0]
        app.search_screen.query_one("#reader-scroll").scroll_to_widget(cell, animate=False, top=True)
        await pilot.pause()
        await pilot.click(cell, offset=(3, 0))
        await settle(app, pilot)
        assert app.search_screen.reader.hit.relpath == "Target.md"
    _shows(home, scenario)


def test_note_text_in_callouts_and_tables_is_never_markup(home):
    async def scenario(app, pilot, shown):
        lines = _lines(shown)
        assert any("[bold red]Not markup[/] $x" in line for line in lines)
        assert "| [b]body[/b]" in lines
        cells = {w.name: c.plain.strip() for w, c in shown() if (w.name or "").startswith("cell2.")}
        assert cells["cell2.1"] == "[red]cell[/red]" and cells["cell2.2"] == "[@click=app.quit]q[/]"
        assert app.is_running
    _shows(home, scenario)


def test_a_nested_heading_link_is_a_link_named_by_its_last_heading(home):
    async def scenario(app, pilot, shown):
        links = [link for _, c in shown() for link in _hrefs(c)]
        assert any(label.endswith("Report bugs") and href.startswith("pms-note:") for label, href in links)
        assert not any("[[Target#Questions" in line for line in _lines(shown))
    _shows(home, scenario)


def test_an_image_embed_with_a_size_shows_the_file_name(home):
    async def scenario(app, pilot, shown):
        lines = _lines(shown)
        assert "Embed: ⧉ image.png." in lines and not any("⧉ 300" in line for line in lines)
        assert any(line.startswith("Web: ") and "Engelbart.jpg" in line and "250" not in line for line in lines)
    _shows(home, scenario)


def test_a_block_id_is_hidden(home):
    async def scenario(app, pilot, shown):
        lines = _lines(shown)
        assert "Ends with an id." in lines and not any("^ab12cd" in line for line in lines)
    _shows(home, scenario)


def test_a_dangling_markdown_link_is_struck_through_and_a_live_one_is_not(home):
    async def scenario(app, pilot, shown):
        struck = [s for _, c in shown() for s in _struck(c)]
        assert "gone" in struck and "live" not in struck
    _shows(home, scenario)


def test_a_code_line_wider_than_the_reader_is_marked_where_it_is_cut(home):
    async def scenario(app, pilot, shown):
        fence = next(w for w in app.search_screen.reader.markdown.walk_children() if type(w).__name__ == "NoteFence")
        assert fence.max_scroll_x > 0 and fence.scrollbar_size_horizontal == 1  # a scrollbar under it
    _shows(home, scenario)


def test_a_link_to_a_hidden_block_id_still_lands_on_its_block(home):
    async def scenario(app, pilot, shown):
        screen = app.search_screen
        links = [link for _, c in shown() for link in _hrefs(c)]
        assert screen.follow_href(next(href for label, href in links if label == "to the block"))
        await settle(app, pilot)
        assert screen.reader.hit.relpath == "Target.md"
        scroll = screen.query_one("#reader-scroll")
        assert scroll.scroll_y > 0  # at the block, not the top
        on_screen = [c.plain for w, c in shown() if scroll.region.y <= w.region.y < scroll.region.bottom]
        assert any(line.startswith("A block to land on.") for line in on_screen)
        assert not any("^b15695" in line for line in on_screen)
    _shows(home, scenario, size=(100, 12))
