"""Keys a terminal multiplexer takes are never bound, and ctrl+g refuses to open the bundled
guide (inside the installed package) in $EDITOR, with one sentence."""

from __future__ import annotations

import sys

from tests.tui.tui_helpers import make_app, run, settle, type_query, wait_for_model

from pms_tui.tui.controllers.notes import READ_ONLY_GUIDE
from pms_tui.tui.keys import ALL_BINDINGS, MULTIPLEXER_KEYS


def test_no_key_is_a_terminal_multiplexer_s_prefix():
    bound = {key.strip() for b in ALL_BINDINGS for key in b.key.split(",")}
    assert bound.isdisjoint(MULTIPLEXER_KEYS) and {"ctrl+b", "ctrl+a"} <= set(MULTIPLEXER_KEYS)
    assert next(b.key for b in ALL_BINDINGS if b.id == "app.copy_path") == "ctrl+f"


def test_ctrl_g_on_a_guide_note_says_the_guide_is_read_only(tmp_path, monkeypatch):
    marker = tmp_path / "editor-ran"
    monkeypatch.setenv("EDITOR", f"{sys.executable} -c \"open(r'{marker}', 'w')\"")
    monkeypatch.delenv("VISUAL", raising=False)

    async def scenario():
        app = make_app(tmp_path / "fresh", first_run_sample=True, load_model=False)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            await settle(app, pilot, rounds=6)
            await type_query(app, pilot, "remap keys")
            assert screen.reader.hit is not None and screen.reader.hit.collection == "guide"
            await pilot.press("ctrl+g")
            await settle(app, pilot)
            said = [n.message for n in app.notified if n.severity == "warning"]
            assert READ_ONLY_GUIDE in said and not any("editor" in m.lower() for m in said)
            assert app.is_running
        assert not marker.exists()

    run(scenario())


def test_the_footer_keeps_f1_help_at_80_columns(tmp_path):
    """The footer lists the screen's keys before the app's and cuts what does not fit: the key
    to the list of every key comes first, so it is never the one cut."""
    from textual.widgets import Footer

    async def scenario():
        app = make_app(tmp_path / "fresh", first_run_sample=True, load_model=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(app, pilot)
            footer = app.search_screen.query_one(Footer)
            shown = [w for w in footer.children if getattr(w, "description", "")]
            assert shown and shown[0].description == "Help" and shown[0].region.right <= 80

    run(scenario())
