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
        "> [!question] Outer\n> > [!todo] Inner\n> > Nested body.\n\n"
        "- item with a callout:\n\n  > [!note] In a list\n  > List body.\n\n"
        "| Left | Middle | Right |\n|:--|:--:|--:|\n"
        "| [[Target\\|the target]] | ![[image.png\\|200]] | 3 |\n\n"
        "Nested: [[Target#Questions#Report bugs]].\n\n"
        "Embed: ![[image.png#interface|300]].\n\n"
        "Ends with an id. ^ab12cd\n\n"
        "Go [[Target#^b15695|to the block]].\n\n"
        "Markdown links: [live](Target.md) and [gone](missing.md).\n\n"
        f"```\n{LONG}\n```\n"
    ),
}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    from pms_tui.core.kb import KnowledgeBase

    folder = tmp_path / "vault"
    for rel, text in VAULT.items():
        write_note(folder, rel, text)
    (folder / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    home = tmp_path / "home"
    with KnowledgeBase(home=home) as kb:
        kb.collections.create(folder, name="v")
        kb.sync(embed=False)
    return home


async def _open(app, pilot, path: str) -> None:
    await settle(app, pilot)
    app.search_screen.links.open(PanelEntry("v", path, 1))
    await settle(app, pilot)
    for _ in range(20):  # the first screen stands in until the note's blocks are mounted
        if app.search_screen.reader.markdown.first_screen is None:
            break
        await pilot.pause(0.05)
    await settle(app, pilot)


def test_callouts_show_type_title_and_fold(home):
    from pms_tui.tui.widgets.note_markdown import CalloutTitle, NoteQuote

    async def scenario():
        app = make_app(home, load_model=False)
        async with app.run_test(size=(120, 80)) as pilot:
            await _open(app, pilot, "Shows.md")
            markdown = app.search_screen.reader.markdown
            callouts = [q for q in markdown.query(NoteQuote) if q.callout]
            assert [q.callout for q in callouts] == ["info", "tip", "faq", "warning", "question", "todo", "note"]
            info = callouts[0]
            title = info.query_one(CalloutTitle).visual.plain
            assert "Info" in title and "Here's a callout title" in title and "[!" not in title
            body = " ".join(c.plain for _, c in _contents(info.query_one(".callout-body")))
            assert "Here's a callout block." in body and "callout title" not in body  # on lines of their own
            assert info.has_class("-callout-info") and callouts[2].has_class("-callout-question")
            assert callouts[3].query_one(CalloutTitle).visual.plain.strip().endswith("Warning")  # the default title
            # [!tip]-: folded, its body hidden until its title is clicked
            tip = callouts[1]
            assert tip.folded and not tip.query_one(".callout-body").display
            shown = " ".join(c.plain for _, c in _contents(markdown))
            assert "Hidden until opened." not in shown and "Shown at first." in shown
            scroll = app.search_screen.query_one("#reader-scroll")
            scroll.scroll_to_widget(tip, animate=False, top=True)
            await pilot.pause()
            await pilot.click(tip.query_one(CalloutTitle))
            await pilot.pause()
            assert not tip.folded and tip.query_one(".callout-body").display
            assert "Hidden until opened." in " ".join(c.plain for _, c in _contents(tip))
            # [!faq]+ folds with a click
            faq = callouts[2]
            assert not faq.folded
            scroll.scroll_to_widget(faq, animate=False, top=True)
            await pilot.pause()
            await pilot.click(faq.query_one(CalloutTitle))
            await pilot.pause()
            assert faq.folded
    run(scenario())


def test_links_embeds_ids_tables_and_code_render_as_obsidian_shows_them(home):
    from pms_tui.tui.widgets.note_markdown import TableCell

    async def scenario():
        app = make_app(home, load_model=False)
        async with app.run_test(size=(120, 80)) as pilot:
            await _open(app, pilot, "Shows.md")
            markdown = app.search_screen.reader.markdown
            contents = _contents(markdown)
            text = "\n".join(c.plain for _, c in contents)
            links = [link for _, c in contents for link in _hrefs(c)]
            struck = [s for _, c in contents for s in _struck(c)]
            # a table cell's wikilink is a link; its embed of an image shows the image's name
            cells = {w.name: (w, c) for w, c in contents if isinstance(w, TableCell)}
            first = cells["cell1.1"][1]
            assert _hrefs(first) and _hrefs(first)[0][0] == "the target" and "pms-note:" in _hrefs(first)[0][1]
            assert "⧉ image.png" in cells["cell1.2"][1].plain and "[[" not in text
            # the columns' alignment
            assert [cells[f"cell1.{n}"][0].styles.text_align for n in (1, 2, 3)] == ["left", "center", "right"]
            # a nested heading link: a link labelled with its last heading
            assert any("Report bugs" in label and "pms-note:" in href for label, href in links)
            # an image embed with a size: the file name, not the size
            assert "Embed: ⧉ image.png." in text and "⧉ 300" not in text
            # block ids hidden
            assert "^ab12cd" not in text and "Ends with an id." in text
            # the dangling Markdown link struck through, the live one not
            assert "gone" in struck and "live" not in struck
            # the long code line: a scrollbar under its fence says it goes on
            fence = next(w for w in markdown.walk_children() if type(w).__name__ == "NoteFence")
            assert fence.max_scroll_x > 0 and fence.scrollbars_enabled[1]
    run(scenario())


def test_a_link_to_a_hidden_block_id_still_lands_on_its_block(home):
    async def scenario():
        app = make_app(home, load_model=False)
        async with app.run_test(size=(100, 12)) as pilot:
            await _open(app, pilot, "Shows.md")
            screen = app.search_screen
            links = [link for _, c in _contents(screen.reader.markdown) for link in _hrefs(c)]
            href = next(href for label, href in links if label == "to the block")
            assert screen.links.follow_href(href)
            await settle(app, pilot)
            reader = screen.reader
            assert reader.hit.relpath == "Target.md"
            scroll = screen.query_one("#reader-scroll")
            assert scroll.scroll_y > 0  # at the block, not the top
            shown = [c.plain for w, c in _contents(reader.markdown)
                     if w.region.y >= scroll.region.y and w.region.y < scroll.region.bottom]
            assert any(line.startswith("A block to land on.") for line in shown)
            assert not any("^b15695" in line for line in shown)
    run(scenario())
