"""A PDF beside the notes in the app (Pilot): a phrase of its third page finds it, the
breadcrumb names the page, the reader shows the page's text (and the whole document's text
from the index), and ctrl+g hands the original to the system's opener, not to $EDITOR."""

from __future__ import annotations

import os
import shutil
import stat

import pytest

from tests.kb_helpers import CORPORA
from tests.tui.tui_helpers import (make_app, reader_shown, run, settle, synced_home, type_query, wait_for_model,
                                   write_note)
from pms_tui.tui.widgets.breadcrumb import Breadcrumb

PDF = CORPORA / "documents" / "py-pdf-sample-files" / "026-latex-multicolumn" / "multicolumn.pdf"


@pytest.mark.skipif(not PDF.is_file(), reason="../shared/corpora/documents is absent")
def test_a_pdf_hit_shows_its_page_and_ctrl_g_opens_the_original(tmp_path, tui_notes, monkeypatch):
    shutil.copy(PDF, tui_notes / "multicolumn.pdf")
    write_note(tui_notes, "reading.md", "# Reading\n\nThe EU table: [[multicolumn.pdf#page=3]]\n")
    home = synced_home(tmp_path / "home", tui_notes)
    # a stand-in for the desktop's opener, recording what it was asked to open
    opened = tmp_path / "opened.txt"
    tools = tmp_path / "bin"
    tools.mkdir()
    for name in ("xdg-open", "open"):
        script = tools / name
        script.write_text(f"#!/bin/sh\nprintf '%s' \"$1\" > {opened}\n", encoding="utf-8")
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("EDITOR", "false")

    async def scenario():
        app = make_app(home)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            await type_query(app, pilot, "Copenhagen Danish Helsinki")
            hit = screen.reader.hit
            assert hit is not None and hit.relpath == "multicolumn.pdf" and hit.heading_path == ["page 3"]
            crumb = str(app.query_one(Breadcrumb).render())
            # the page, not a line of the engine's numbering, which means nothing to a person
            assert "notes/multicolumn.pdf · page 3" in crumb and f":{hit.start_line}" not in crumb
            assert "Copenhagen" in screen.reader.markdown.source
            # the page's lines shown as lines (a table's rows, a formula's parts), not one paragraph
            shown = reader_shown(screen.reader)[0].split("\n")
            assert "Denmark 5.8 42,951 Copenhagen Danish" in [row.strip() for row in shown]
            assert "Finland 5.5 338,424 Helsinki Finnish, Swedish" in [row.strip() for row in shown]
            await pilot.press("ctrl+r")
            await settle(app, pilot)
            assert screen.reader.whole_note
            source = screen.reader.markdown.source  # the page first; the pages above are filled in after
            assert source.startswith("# page 3") and "Copenhagen" in source and "cannot be read" not in source
            assert "# page 1" in screen.reader.window.markdown and "# page 2" in screen.reader.window.markdown
            await pilot.press("ctrl+g")
            await settle(app, pilot)
            for _ in range(100):
                if opened.exists():
                    break
                await pilot.pause(0.05)
            assert opened.read_text(encoding="utf-8") == str(tui_notes / "multicolumn.pdf")
            assert any("system's viewer" in n.message for n in app.notified)

    run(scenario())


GEOTOPO = CORPORA / "documents" / "py-pdf-sample-files" / "009-pdflatex-geotopo" / "GeoTopo-komprimiert.pdf"


@pytest.mark.skipif(not GEOTOPO.is_file(), reason="../shared/corpora/documents is absent")
def test_a_long_pdfs_window_names_the_pages_it_shows_not_lines(tmp_path):
    from pms_tui.core.kb import KnowledgeBase
    from pms_tui.tui.hit_place import place
    from pms_tui.tui.note_window import read_window

    folder = tmp_path / "docs"
    folder.mkdir()
    shutil.copy(GEOTOPO, folder / GEOTOPO.name)
    with KnowledgeBase(home=tmp_path / "home") as kb:
        kb.collections.create(folder, name="docs")
        kb.sync(embed=False)
        # GeoTopo prints its own page numbers: its physical page 54 is its page 51
        hit = next(h for h in kb.chunks_of("docs", GEOTOPO.name) if h.heading_path[:1] == ["page 51 (PDF page 54)"])
        window = read_window(hit, kb)
    assert window.clipped and window.pages is not None
    first, last, total = window.pages
    assert first <= 54 <= last < total and total > 100
    assert place(hit) == f"docs/{GEOTOPO.name} · page 51 (PDF page 54)"
    from pms_tui.tui.widgets.results import hit_row

    row = hit_row(hit, 160, False).plain  # the results list names the page, never an index line
    assert f"{GEOTOPO.name} · page 51 (PDF page 54)" in row and f"{GEOTOPO.name}:" not in row
