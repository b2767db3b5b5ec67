"""A followed note's first screen is painted as one widget, then its blocks replace it.

The stand-in must look as the blocks will (the same rows on the screen), keep links clickable
and dangling ones struck through, and lose no key pressed while it is up."""

from __future__ import annotations

from pathlib import Path

from textual.style import Style
from tests.tui.tui_helpers import make_app, run, settle, write_note

from pms_tui.tui.widgets.first_screen import FirstScreen
from pms_tui.tui.widgets.links_panel import PanelEntry
from pms_tui.tui.widgets.note_markdown import FirstScreenHolder
from pms_tui.tui.widgets.reader import Reader

# A short note of many blocks (Obsidian Help's Home, Folding): the case the stand-in is for.
HUB = """\
# Hub

Welcome to the hub, where every note of the vault is **one link** away. For the rest see
the [[Far]] note, or [[Nowhere]] which does not exist.

## Get started

1. [[Far]]
2. [[Near|the near note]]
3. `code` and _emphasis_

## Extend

- [[Far]]
\t- A nested item that explains the link above in a line long enough to wrap on the screen.
- [[Near]]
\t- Another nested item.

> [!tip] Tip
> A callout holding a list:
>
> - **Fold less** unfolds the section at the text cursor.
> - **Fold more** folds the section.

```
code block line
```

Last paragraph.
"""


def _vault(tmp_path: Path) -> Path:
    from pms_tui.core.kb import KnowledgeBase

    folder = tmp_path / "vault"
    write_note(folder, "Hub.md", HUB)
    write_note(folder, "Far.md", "# Far\n\nFar away. Back to [[Hub]].\n")
    write_note(folder, "Near.md", "# Near\n\nClose by.\n")
    home = tmp_path / "home"
    with KnowledgeBase(home=home) as kb:
        kb.collections.create(folder, name="v")
        kb.sync(embed=False)
    return home


def _reader_rows(app, reader: Reader) -> list[str]:
    """The reader's rows as painted (the compositor's strips: private, checked by this test),
    without the scrollbar's column (its thumb changes when the whole note is mounted)."""
    scroll = reader.query_one("#reader-scroll")
    region = scroll.region
    strips = app.screen._compositor.render_strips()
    width = region.width - scroll.styles.scrollbar_size_vertical
    return [strips[y].crop(region.x, region.x + width).text.rstrip() for y in range(region.y, region.bottom)]


def test_the_first_screen_is_one_widget_that_looks_as_the_blocks_do_and_links_work(tmp_path: Path):
    home = _vault(tmp_path)

    async def scenario():
        app = make_app(home, load_model=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            screen = app.search_screen
            reader = screen.reader
            painted: list[tuple[list[str], list, int]] = []
            post = reader.post_message

            def record(message) -> bool:
                if isinstance(message, Reader.HitShown):
                    shown = [c for c in reader.markdown.children if c.display]
                    children = [c.first_screen if isinstance(c, FirstScreenHolder) else c for c in shown]
                    painted.append((_reader_rows(app, reader), children, children[0].size.width))
                return post(message)

            reader.post_message = record
            screen.open_entry(PanelEntry("v", "Far.md", 1))
            await settle(app, pilot)
            screen.open_entry(PanelEntry("v", "Hub.md", 1))
            await settle(app, pilot)
            first_rows, children, width = painted[-1]
            assert [type(c) for c in children] == [FirstScreen]  # one widget painted first
            assert reader.markdown.first_screen is None  # then the note's blocks
            await pilot.pause()
            blocks = list(reader.markdown.children)  # (the first screen, hidden, is gone after a refresh)
            assert len(blocks) > 8 and not any(isinstance(b, (FirstScreen, FirstScreenHolder)) for b in blocks)
            final_rows = _reader_rows(app, reader)
            assert any("Welcome to the hub" in row for row in first_rows)
            assert first_rows == final_rows  # the same rows: nothing moves when the blocks arrive
            # live links are clickable in the stand-in, a dangling one is struck through
            stand_in: FirstScreen = children[0]
            rows = stand_in.laid_out(width)
            spans = [(row.plain[s.start:s.end], s.style) for row in rows for s in row.spans]
            assert any(text == "Far" and isinstance(style, Style) and "@click" in (style.meta or {})
                       for text, style in spans)
            assert any(text == "Nowhere" and style == ".s" for text, style in spans)
    run(scenario())


def test_keys_pressed_while_the_first_screen_is_up_are_not_lost(tmp_path: Path):
    """Back and forward pressed at once after following a link (before its blocks are
    mounted) all take effect, in order."""
    home = _vault(tmp_path)

    async def scenario():
        app = make_app(home, load_model=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            screen = app.search_screen
            reader = screen.reader
            screen.open_entry(PanelEntry("v", "Far.md", 1))
            await settle(app, pilot)
            stand_ins = []
            post = reader.post_message

            def record(message) -> bool:
                if isinstance(message, Reader.HitShown):
                    stand_ins.append(reader.markdown.first_screen)
                return post(message)

            reader.post_message = record
            screen.open_entry(PanelEntry("v", "Hub.md", 1))
            await pilot.press("alt+left", "alt+right", "alt+left")  # Far, Hub, Far
            await settle(app, pilot)
            assert reader.hit.relpath == "Far.md" and reader.markdown.first_screen is None
            assert any(s is not None for s in stand_ins)
            await pilot.press("alt+right")
            await settle(app, pilot)
            assert reader.hit.relpath == "Hub.md" and "Last paragraph." in reader.source
            assert reader.markdown.first_screen is None
    run(scenario())


def test_a_link_in_the_first_screen_is_followed_by_a_click(tmp_path: Path):
    home = _vault(tmp_path)

    async def scenario():
        app = make_app(home, load_model=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            screen = app.search_screen
            reader = screen.reader

            async def never(generation: int) -> None:  # the first screen stays up
                return None

            reader._complete = never
            screen.open_entry(PanelEntry("v", "Hub.md", 1))
            await settle(app, pilot)
            stand_in = reader.markdown.first_screen
            assert stand_in is not None
            rows = stand_in.laid_out(stand_in.size.width)
            y, row = next((i, r) for i, r in enumerate(rows) if "the Far note" in r.plain)
            x = row.plain.index("Far note")
            await pilot.click(stand_in, offset=(x + 1, y))
            await settle(app, pilot)
            assert reader.hit.relpath == "Far.md"
    run(scenario())


OBSIDIAN = f"""\
# Obsidian

> [!faq]- Folded question
> Its answer, hidden.

> [!question] Outer
> > [!todo] Inner
> > Nested body, see [[Far#Deep#Deeper|deep]].

A line that ends with a block id. ^abc123

![[image.png#interface|300]]

```
{"wide " * 60}
```

Last paragraph.
"""


def test_the_first_screen_shows_callouts_ids_embeds_and_wide_fences_as_the_blocks_do(tmp_path: Path):
    from pms_tui.core.kb import KnowledgeBase

    folder = tmp_path / "vault"
    write_note(folder, "Obsidian.md", OBSIDIAN)
    write_note(folder, "Far.md", "# Far\n\n## Deep\n\n### Deeper\n\nFar away.\n")
    (folder / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    home = tmp_path / "home"
    with KnowledgeBase(home=home) as kb:
        kb.collections.create(folder, name="v")
        kb.sync(embed=False)

    async def scenario():
        app = make_app(home, load_model=False)
        async with app.run_test(size=(100, 40)) as pilot:
            await settle(app, pilot)
            screen = app.search_screen
            reader = screen.reader
            painted: list[tuple[list[str], list]] = []
            post = reader.post_message

            def record(message) -> bool:
                if isinstance(message, Reader.HitShown):
                    painted.append((_reader_rows(app, reader), list(reader.markdown.children)))
                return post(message)

            reader.post_message = record
            screen.open_entry(PanelEntry("v", "Far.md", 1))
            await settle(app, pilot)
            screen.open_entry(PanelEntry("v", "Obsidian.md", 1))
            await settle(app, pilot)
            first_rows, children = painted[-1]
            assert [type(c) for c in children] == [FirstScreenHolder]  # the first screen, one widget
            assert reader.markdown.first_screen is None
            text = "\n".join(first_rows)
            assert "Folded question" in text and "hidden" not in text and "[!" not in text
            assert "deep" in text and "^abc123" not in text and "⧉ image.png" in text
            assert first_rows == _reader_rows(app, reader)  # the blocks look the same
    run(scenario())
