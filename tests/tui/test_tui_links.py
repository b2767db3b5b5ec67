"""Walking the link graph in the app: following a link (from the reader and from the links
panel), back and forward, the panel's backlinks, outline and related notes."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from tests.tui.tui_helpers import make_app, reader_shown, run, settle, write_note

from pms_tui.tui.reading_history import Place, ReadingHistory
from pms_tui.tui.widgets.links_panel import LinksPanel

VAULT = {
    "Home.md": "# Home\n\nStart at [[Alpha]], then ![[Beta#Plan]]. Missing: [[Nowhere]].\n",
    "Alpha.md": "# Alpha\n\n## Goals\n\nShip it, see [[Beta|the beta]].\n",
    "sub/Beta.md": "# Beta\n\n## Plan\n\nThe plan of beta is to go [[Gamma#Deep]].\n",
    "Gamma.md": "# Gamma\n\nIntro.\n\n## Deep\n\nDeep text. Back [[Home]].\n",
}


def test_reading_history_back_forward_and_trail():
    history = ReadingHistory()
    for name in ("A", "B", "C"):
        history.visit(Place("c", f"{name}.md", 1, name))
    assert history.back().path == "B.md" and history.back().path == "A.md" and history.back() is None
    assert history.forward().path == "B.md" and history.trail() == "A › [B] › C"
    history.visit(Place("c", "D.md", 1, "D"))  # a new way drops what was ahead
    assert [p.path for p in history.places] == ["A.md", "B.md", "D.md"] and not history.can_go_forward


@pytest.fixture
def vault_home(tmp_path: Path) -> Path:
    from pms_tui.core.kb import KnowledgeBase

    folder = tmp_path / "vault"
    for rel, text in VAULT.items():
        write_note(folder, rel, text)
    home = tmp_path / "home"
    with KnowledgeBase(home=home) as kb:
        kb.collections.create(folder, name="v")
        kb.sync()
    return home


def text_only_home(tmp_path: Path, folder: Path) -> Path:
    """A home holding ``folder`` as collection "v", synced without vectors."""
    from pms_tui.core.kb import KnowledgeBase

    home = tmp_path / "home"
    with KnowledgeBase(home=home) as kb:
        kb.collections.create(folder, name="v")
        kb.sync(embed=False)
    return home


async def _search_home(app, pilot) -> tuple[str, list[tuple[str, str]], list[str]]:
    """Type "home"; the reader shows Home.md: its rendered text, links and struck texts."""
    await settle(app, pilot)
    for ch in "home":
        await pilot.press(ch)
    await settle(app, pilot)
    assert _reader_note(app) == "Home.md"
    return reader_shown(app.search_screen.reader)


def _reader_note(app) -> str:
    hit = app.search_screen.reader.hit
    return hit.relpath if hit else ""


def test_follow_links_back_forward_and_panel(vault_home):
    async def scenario():
        app = make_app(vault_home, load_model=False)
        async with app.run_test(size=(140, 40)) as pilot:
            screen = app.search_screen
            text, links, struck = await _search_home(app, pilot)
            assert links[0][1].startswith("pms-note:") and struck == ["Nowhere"]  # live vs dangling
            assert "The plan of beta" in text  # the embed's passage, in place
            # follow the first link from the reader (what a click does)
            href = links[0][1]
            assert screen.follow_href(href)
            await settle(app, pilot)
            assert _reader_note(app) == "Alpha.md" and screen.reader.whole_note
            # the panel: keyboard only from here
            await pilot.press("f6")
            await settle(app, pilot)
            panel = screen.query_one(LinksPanel)
            assert panel.has_class("-shown") and screen.focused.id == "links-list"
            content = panel.content
            assert [o[0] for o in content.outline] == ["Alpha", "Goals"]
            assert [b[0] for b in content.backlinks] == ["Home"] and "[[Alpha]]" in content.backlinks[0][1]
            assert any(r[3].path == "sub/Beta.md" and r[2] == "→ " for r in content.related)  # linked, marked
            # choose the link to Beta in the panel
            option_list = panel.option_list
            beta = next(i for i in range(option_list.option_count)
                        if (oid := option_list.get_option_at_index(i).id) and panel.entries[oid].path == "sub/Beta.md")
            option_list.highlighted = beta
            await pilot.press("enter")
            await settle(app, pilot)
            assert _reader_note(app) == "sub/Beta.md"
            assert screen.reader.hit.start_line <= 3 <= screen.reader.hit.end_line or screen.reader.hit.start_line == 1
            assert "Alpha" in panel.query_one("#links-trail").render().plain
            # back twice, forward once
            await pilot.press("alt+left")
            await settle(app, pilot)
            assert _reader_note(app) == "Alpha.md"
            await pilot.press("f7")
            await settle(app, pilot)
            assert _reader_note(app) == "Home.md"
            await pilot.press("f8")
            await settle(app, pilot)
            assert _reader_note(app) == "Alpha.md"
            assert screen.link_walker.follow_latencies_ms  # the app's own follow timing
    run(scenario())


def test_outline_and_heading_links_scroll_to_their_line(vault_home):
    async def scenario():
        app = make_app(vault_home, load_model=False)
        async with app.run_test(size=(100, 12)) as pilot:  # short: the reader must scroll
            await settle(app, pilot)
            screen = app.search_screen
            from pms_tui.tui.widgets.links_panel import PanelEntry

            screen.open_entry(PanelEntry("v", "Gamma.md", 5))  # [[Gamma#Deep]]: line 5
            await settle(app, pilot)
            scroll = screen.query_one("#reader-scroll")
            assert _reader_note(app) == "Gamma.md" and scroll.scroll_y > 0
            screen.open_entry(PanelEntry("", "", 1))  # the outline's first heading: the top
            await settle(app, pilot)
            assert scroll.scroll_y == 0
    run(scenario())


def test_wikilink_in_inline_code_beside_a_real_link_stays_code(tmp_path: Path):
    from pms_tui.tui.widgets.links_panel import PanelEntry

    folder = tmp_path / "vault"
    write_note(folder, "Alpha.md", "# Alpha\n\nAlpha text.\n")
    write_note(folder, "Code.md", "# Code\n\nWrite `[[Alpha]]` to link, like this: [[Alpha]].\n")
    home = text_only_home(tmp_path, folder)

    async def scenario():
        app = make_app(home, load_model=False)
        async with app.run_test(size=(120, 30)) as pilot:
            await settle(app, pilot)
            screen = app.search_screen
            screen.open_entry(PanelEntry("v", "Code.md", 1))
            await settle(app, pilot)
            text, links, _ = reader_shown(screen.reader)
            assert "Write [[Alpha]] to link" in text  # the code is left as written
            assert [label for label, _ in links] == ["Alpha"] and "this: Alpha." in text
    run(scenario())


def test_a_long_note_is_shown_from_the_followed_heading_and_filled_in_around_it(tmp_path: Path):
    from pms_tui.tui.widgets.links_panel import PanelEntry
    from pms_tui.tui.note_window import FIRST_LINES
    from pms_tui.tui.widgets.reader import Reader

    folder = tmp_path / "vault"
    sections = [f"## Part {i}\n\n" + "".join(f"- item {i}.{j} of the long note\n" for j in range(8)) for i in range(40)]
    write_note(folder, "Long.md", "# Long\n\nIntro.\n\n" + "\n".join(sections))
    write_note(folder, "Start.md", "# Start\n\nRead [[Long#Part 30]] now.\n")
    home = text_only_home(tmp_path, folder)
    lines = (folder / "Long.md").read_text().split("\n")
    part30 = lines.index("## Part 30") + 1

    async def scenario():
        app = make_app(home, load_model=False)
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(app, pilot)
            screen = app.search_screen
            reader = screen.reader
            shown_first: list[str] = []
            post = reader.post_message

            def record_first_paint(message) -> bool:  # what is rendered when the reader says it is shown
                if isinstance(message, Reader.HitShown):
                    shown_first.append(reader.source)
                return post(message)

            reader.post_message = record_first_paint
            screen.open_entry(PanelEntry("v", "Start.md", 1))
            await settle(app, pilot)
            link = next(x for x in screen.link_walker.links_by_line.values() for x in x)
            assert link.target_line == part30
            screen.open_entry(PanelEntry("v", "Long.md", part30))  # what following the link does
            await settle(app, pilot)
            first = shown_first[-1]
            assert first.startswith("## Part 30") and "# Long" not in first  # the target at once, not the note
            assert first.count("\n") <= FIRST_LINES + 12
            source = reader.source  # then the rest of the window, above and below
            assert "# Long" in source and "## Part 0" in source and "item 39.7" in source
            blocks = [b.source or "" for w in (reader.above, reader.markdown) for b in w.children]
            assert [b.strip() for b in blocks if b.startswith("## Part")] == [f"## Part {i}" for i in range(40)]
            assert sum(b.count("- item") for b in blocks) == 40 * 8  # every block once, none replaced
            top = next(b for b in reader.markdown.children if (b.source or "").startswith("## Part 30"))
            scroll = screen.query_one("#reader-scroll")
            assert scroll.scroll_y > 0 and 0 <= top.region.y - scroll.region.y <= 2  # still at the top (its margin)
            screen.open_entry(PanelEntry("", "", 1))  # the outline's first heading: the top
            await settle(app, pilot)
            assert scroll.scroll_y == 0
            await pilot.press("alt+left")  # back to Start
            await settle(app, pilot)
            assert _reader_note(app) == "Start.md" and "# Long" not in reader.source
    run(scenario())


def test_a_note_of_a_few_screens_is_painted_from_its_first_screen_and_the_last_note_goes_after(tmp_path: Path):
    """Following a link paints a screenful first (any note longer than a screen and a half,
    not only long ones), says when it was painted, then fills in the rest; the note it left
    is removed only after that, so the reader holds one note's blocks once it settles."""
    from textual.widgets import Markdown

    from pms_tui.tui.widgets.links_panel import PanelEntry
    from pms_tui.tui.note_window import FIRST_LINES
    from pms_tui.tui.widgets.reader import Reader

    folder = tmp_path / "vault"
    paragraphs = [f"Paragraph {i} of the mid note, which is a few screens long." for i in range(30)]
    write_note(folder, "Mid.md", "# Mid\n\n" + "\n\n".join(paragraphs) + "\n")  # 61 lines
    write_note(folder, "Big.md", "# Big\n\n" + "\n".join(f"- point {i}" for i in range(200)) + "\n\nSee [[Mid]].\n")
    home = text_only_home(tmp_path, folder)

    async def scenario():
        app = make_app(home, load_model=False)
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(app, pilot)
            screen = app.search_screen
            reader = screen.reader
            shown: list[tuple[str, float | None, int]] = []
            post = reader.post_message

            def record(message) -> bool:
                if isinstance(message, Reader.HitShown):
                    scroll = screen.query_one("#reader-scroll")
                    shown.append((reader.source, message.painted_at, len(scroll.query_children(Markdown))))
                return post(message)

            reader.post_message = record
            screen.open_entry(PanelEntry("v", "Big.md", 1))
            await settle(app, pilot)
            assert "- point 199" in reader.source
            big_blocks = reader.markdown
            screen.open_entry(PanelEntry("v", "Mid.md", 1))
            await settle(app, pilot)
            first, painted_at, markdowns = shown[-1]
            assert first.startswith("# Mid") and "Paragraph 0 " in first and "Paragraph 29" not in first
            assert first.count("\n") <= FIRST_LINES + 2
            assert painted_at is not None and screen.link_walker.follow_latencies_ms
            assert markdowns == 3  # the lines above, the new note, and the old one (hidden), until then
            assert "Paragraph 29" in reader.source  # the rest arrived
            assert not big_blocks.is_attached and len(screen.query_one("#reader-scroll").children) == 2
            assert reader.markdown.display and "- point" not in reader.source
    run(scenario())


def test_a_refresh_of_the_results_leaves_a_followed_note_in_the_reader(vault_home):
    """A sync (or an edit) re-runs the shown query and lays the same results out again: the
    note reached by a link stays in the reader; a new query's hit takes its place."""
    async def scenario():
        app = make_app(vault_home, load_model=False)
        async with app.run_test(size=(140, 40)) as pilot:
            screen = app.search_screen
            assert screen.follow_href((await _search_home(app, pilot))[1][0][1])
            await settle(app, pilot)
            assert _reader_note(app) == "Alpha.md"
            screen.request_search(immediate=True)  # what a sync's refresh does: the same query again
            await settle(app, pilot)
            assert screen.results.hits and screen.results.hits[0].relpath == "Home.md"
            assert _reader_note(app) == "Alpha.md"  # the walk stays
            for _ in "home":
                await pilot.press("backspace")
            for ch in "gamma":
                await pilot.press(ch)
            await settle(app, pilot)
            assert _reader_note(app) == screen.results.hits[0].relpath == "Gamma.md"

    run(scenario())


def test_the_links_panel_loads_off_the_ui_thread_and_drops_a_superseded_note(vault_home):
    """The panel's links, backlinks, mentions and related notes are read in a worker: while a
    slow note loads, the UI still answers keys; a note followed meanwhile is what the panel
    shows, and the slow note's result, arriving last, is not applied."""
    import threading

    from pms_tui.tui.widgets.links_panel import PanelEntry

    gate, entered, returned = threading.Event(), threading.Event(), threading.Event()

    async def scenario():
        app = make_app(vault_home, load_model=False)
        async with app.run_test(size=(160, 40)) as pilot:
            screen = app.search_screen
            await _search_home(app, pilot)
            await pilot.press("f6")
            await settle(app, pilot)
            panel = screen.query_one(LinksPanel)
            assert panel.content is not None and panel.content.title == "Home"
            real = app.kb.graph.backlinks

            def slow_for_alpha(name, *args, **kwargs):  # the index answering Alpha's panel slowly
                if name.endswith("Alpha.md"):
                    entered.set()
                    gate.wait(5)
                    returned.set()
                return real(name, *args, **kwargs)

            app.kb.graph.backlinks = slow_for_alpha
            screen.open_entry(PanelEntry("v", "Alpha.md", 1))
            for _ in range(500):
                if entered.is_set():
                    break
                await pilot.pause(0.01)
            assert entered.is_set()
            # the UI answers a key while Alpha's panel is still being read
            option_list = panel.option_list
            option_list.focus()
            await pilot.pause()
            before = option_list.highlighted
            await pilot.press("down")
            assert option_list.highlighted != before and not returned.is_set()
            # a newer note: its panel is shown, though Alpha's load has not ended
            screen.open_entry(PanelEntry("v", "Gamma.md", 1))
            for _ in range(500):
                if panel.content.title == "Gamma":
                    break
                await pilot.pause(0.01)
            assert panel.content.title == "Gamma" and not returned.is_set()
            gate.set()  # Alpha's result arrives last: it is not applied
            await app.wait_for_work()
            await pilot.pause()
            assert returned.is_set() and panel.content.title == "Gamma" and _reader_note(app) == "Gamma.md"

    try:
        run(scenario())
    finally:
        gate.set()


def test_a_link_added_to_the_note_in_the_reader_is_a_link_once_the_note_is_synced(tmp_path: Path):
    """The reader reads a note's links again when the note was synced since (its file time in
    the index moved), not only when another note is shown."""
    import os

    from pms_tui.tui.widgets.links_panel import PanelEntry

    folder = tmp_path / "vault"
    write_note(folder, "Alpha.md", "# Alpha\n\nAlpha text.\n")
    code = write_note(folder, "Code.md", "# Code\n\nNo links yet.\n")
    home = text_only_home(tmp_path, folder)

    async def scenario():
        app = make_app(home, load_model=False)
        async with app.run_test(size=(120, 30)) as pilot:
            await settle(app, pilot)
            screen = app.search_screen
            screen.open_entry(PanelEntry("v", "Code.md", 1))
            await settle(app, pilot)
            assert reader_shown(screen.reader)[1] == []
            code.write_text("# Code\n\nNow a link: [[Alpha]].\n", encoding="utf-8")
            os.utime(code, (code.stat().st_mtime + 10, code.stat().st_mtime + 10))
            await asyncio.to_thread(screen.kb.sync, embed=False)
            screen.open_entry(PanelEntry("v", "Code.md", 1))
            await settle(app, pilot)
            text, links, _ = reader_shown(screen.reader)
            assert [label for label, _ in links] == ["Alpha"] and "[[Alpha]]" not in text
    run(scenario())
