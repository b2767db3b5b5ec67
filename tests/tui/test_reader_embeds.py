"""An embed of a heading (``![[Note#Heading]]``) shows that section's text rendered, never
its raw Markdown (the heading's marks, the emphasis' stars, a link's brackets)."""

from __future__ import annotations

from pathlib import Path

from tests.tui.tui_helpers import make_app, reader_shown, run, settle, write_note

from pms_tui.tui.widgets.links_panel import PanelEntry


def test_a_heading_embed_shows_its_section_rendered(tmp_path: Path):
    from pms_tui.core.kb import KnowledgeBase

    folder = tmp_path / "vault"
    write_note(folder, "Host.md", "# Host\n\nBefore.\n\n![[Source#Setup steps]]\n\nAfter.\n")
    write_note(folder, "Source.md", "# Source\n\n## Setup steps\n\nRun **the installer** with `--quiet`, "
                                    "then read [the guide](https://example.org) and [[Host|the host]].\n\n"
                                    "## Later\n\nNot embedded.\n")
    home = tmp_path / "home"
    with KnowledgeBase(home=home) as kb:
        kb.collections.create(folder, name="v")
        kb.sync(embed=False)

    async def scenario():
        app = make_app(home, load_model=False)
        async with app.run_test(size=(140, 40)) as pilot:
            await settle(app, pilot)
            app.search_screen.open_entry(PanelEntry("v", "Host.md", 1))
            await settle(app, pilot)
            await pilot.pause(0.2)
            await settle(app, pilot)
            text = reader_shown(app.search_screen.reader)[0]
            line = next(row for row in text.split("\n") if "⧉" in row)
            assert "Run the installer with --quiet, then read the guide and the host." in line, line
            for raw in ("##", "**", "`", "](", "[[", "Not embedded"):
                assert raw not in line, (raw, line)
    run(scenario())
