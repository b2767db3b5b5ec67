"""Each of the screen's parts as a unit of the app: the messages it posts, seen through
``run_test(message_hook=...)`` (Pilot, a real index), and that they reach the screen."""

from __future__ import annotations

from tests.tui.test_tui_links import vault_home  # noqa: F401 - a fixture
from tests.tui.tui_helpers import make_app, run, settle, type_query, wait_for_model, write_note

from pms_tui.tui.controllers import Part


def posted(messages: list, *kinds: type) -> list:
    """The messages of these kinds, in order, each once (the hook sees a message at the part
    that posted it and again at the screen it bubbles to)."""
    seen: dict[int, object] = {}
    for message in messages:
        if isinstance(message, kinds):
            seen.setdefault(id(message), message)
    return list(seen.values())


def test_a_sync_posts_its_start_its_progress_its_text_written_and_its_report(tui_home, tui_notes):
    from pms_tui.tui.controllers.sync import Syncer

    messages = []

    async def scenario():
        app = make_app(tui_home)
        async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            assert isinstance(screen.syncer, Part) and not screen.syncer.display
            write_note(tui_notes, "zoo/quagga.md", "# Quagga\n\nThe quagga is an extinct subspecies of zebra.\n")
            messages.clear()
            await pilot.press("ctrl+s")
            await settle(app, pilot)
            mine = posted(messages, Syncer.Progressed, Syncer.TextWritten, Syncer.Finished)
            kinds = [type(m).__name__ for m in mine]
            assert kinds[0] == "Progressed" and mine[0].progress.phase == ""  # started, no phase yet
            assert kinds.index("TextWritten") < kinds.index("Finished") == len(kinds) - 1
            phases = {m.progress.phase for m in mine if isinstance(m, Syncer.Progressed)}
            assert "embedding" in phases
            finished = mine[-1]
            assert [str(p) for p in finished.report.added] == ["notes/zoo/quagga.md"] and not finished.quiet
            # the screen reacted: the progress is gone from the status line, the counts follow
            assert screen.sync_progress is None and screen.counts.documents == 4

    run(scenario())


def test_the_stop_key_with_nothing_running_is_said_and_no_sync_message_is_posted(tui_home):
    from pms_tui.tui.controllers.sync import Syncer

    messages = []

    async def scenario():
        app = make_app(tui_home)
        async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
            await wait_for_model(app, pilot)
            await settle(app, pilot)
            messages.clear()
            await pilot.press("ctrl+z")
            await pilot.pause()
            assert not any(isinstance(m, Syncer.Progressed) for m in messages)
            assert any(n.message.startswith("Nothing to stop") for n in app.notified)

    run(scenario())


def test_a_clip_of_a_local_page_posts_its_stages_then_finished(tui_home, monkeypatch):
    from tests.webserver import LocalWebServer, default_routes

    from pms_tui.tui.controllers.clip import Clipper
    from pms_tui.tui.dialogs.clip import ClipRequest

    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    site = LocalWebServer().start()
    default_routes(site)
    messages = []

    async def scenario():
        app = make_app(tui_home)
        async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            screen.clipper.clip(ClipRequest(site.url("/2024/03/lazy-pipelines/"), "notes"))
            await settle(app, pilot)
            mine = posted(messages, Clipper.Progressed, Clipper.ClipFinished)
            assert mine and isinstance(mine[-1], Clipper.ClipFinished) and mine[-1].result.status == "created"
            stages = [m.clipping.stage for m in mine[:-1]]
            assert stages[0] == "" and len(set(stages)) >= 3  # started, then the engine's stages
            assert {m.clipping.host for m in mine[:-1]} == {"127.0.0.1"}
            assert screen.clipping is None and not screen.clipper.running
            assert any(n.title == "Clipped" for n in app.notified)
            assert screen.counts.documents == 4

    try:
        run(scenario())
    finally:
        site.stop()


def test_copying_a_path_posts_note_used_and_the_screen_keeps_the_query(tui_home, monkeypatch):
    from pms_tui.tui.controllers.notes import NoteOpener

    monkeypatch.setenv("EDITOR", "true")
    messages = []

    async def scenario():
        app = make_app(tui_home, load_model=False)
        async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
            screen = app.search_screen
            await settle(app, pilot)
            await type_query(app, pilot, "pancakes")
            app.copy_to_clipboard = lambda text: None  # (the terminal's clipboard is not the test's)
            await pilot.press("ctrl+f")
            await settle(app, pilot)
            assert [type(m) for m in posted(messages, NoteOpener.NoteUsed, NoteOpener.NoteEdited)] == \
                [NoteOpener.NoteUsed]
            assert screen.historian.history is not None and screen.historian.history.recent()[:1] == ["pancakes"]
            assert any(n.message == "Copied the path." for n in app.notified)
            # the editor cannot take a headless terminal over: used, said, and not edited
            messages.clear()
            await pilot.press("ctrl+g")
            await settle(app, pilot)
            assert [type(m) for m in posted(messages, NoteOpener.NoteUsed, NoteOpener.NoteEdited)] == \
                [NoteOpener.NoteUsed]
            assert any("cannot hand over to an editor" in n.message for n in app.notified)

    run(scenario())


def test_following_a_link_posts_the_note_to_open_the_trail_and_the_panel(vault_home):
    from pms_tui.tui.controllers.links import LinkWalker
    from pms_tui.tui.widgets.links_panel import PanelEntry

    messages = []

    async def scenario():
        app = make_app(vault_home, load_model=False)
        async with app.run_test(size=(140, 40), message_hook=messages.append) as pilot:
            screen = app.search_screen
            await settle(app, pilot)
            await type_query(app, pilot, "home")
            assert screen.reader.hit is not None and screen.reader.hit.relpath == "Home.md"
            messages.clear()
            screen.open_entry(PanelEntry("v", "Gamma.md", 5))
            await settle(app, pilot)
            opened = posted(messages, LinkWalker.NoteOpened)
            assert [(m.hit.relpath, m.line) for m in opened] == [("Gamma.md", 5)]
            trail = posted(messages, LinkWalker.TrailChanged)[-1]
            assert trail.title == "Gamma" and trail.can_go_back and not trail.can_go_forward
            assert "Home" in trail.trail
            assert not posted(messages, LinkWalker.PanelLoaded)  # the panel is hidden: nothing is read for it
            await pilot.press("f6")
            await settle(app, pilot)
            loaded = posted(messages, LinkWalker.PanelLoaded)
            assert len(loaded) == 1 and [b[0] for b in loaded[0].content.backlinks] == ["Beta"]
            assert screen.links_panel.content is loaded[0].content  # the screen showed what was posted
            messages.clear()
            screen.link_walker.back(screen.reader.hit)
            await settle(app, pilot)
            assert [m.hit.relpath for m in posted(messages, LinkWalker.NoteOpened)] == ["Home.md"]

    run(scenario())


def test_a_typed_query_posts_its_typed_results_then_its_settled_ones_and_stale_ones_stop_at_the_searcher(tui_home):
    from tests.tui.tui_helpers import settled

    from pms_tui.tui.controllers.search_runs import Searcher

    messages = []

    async def scenario():
        app = make_app(tui_home, load_model=False)
        async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
            screen = app.search_screen
            await settle(app, pilot)
            messages.clear()
            for char in "pancak":
                await pilot.press(char)
            await settled(app, pilot)
            ready = [m for m in posted(messages, Searcher.ResultsReady) if m.query == "pancak"]
            assert ready and ready[0].result.query.typing  # its last word read as a prefix
            assert not ready[-1].result.query.typing and ready[-1].same_query  # then whole, the selection kept
            assert screen.results.hits[0].relpath == "cooking/pancakes.md"
            shown, answer = list(screen.results.hits), screen.answer
            stale = Searcher.ResultsReady(screen.searcher.search_generation - 1, "git", [], [], [], 1.0, False)
            screen.searcher.post_message(stale)
            await settle(app, pilot)
            assert stale._stop_propagation  # stopped at the searcher: it never reached the screen
            assert list(screen.results.hits) == shown and screen.answer is answer

    run(scenario())


def test_the_model_loader_posts_loaded_and_the_explainer_posts_evidence_then_an_explanation(tui_home):
    from pms_tui.tui.controllers.evidence import Explainer
    from pms_tui.tui.controllers.model import ModelLoader

    messages = []

    async def scenario():
        app = make_app(tui_home)
        async with app.run_test(size=(120, 40), message_hook=messages.append) as pilot:
            screen = app.search_screen
            await wait_for_model(app, pilot)
            loaded = posted(messages, ModelLoader.Loaded, ModelLoader.Failed)
            assert [type(m) for m in loaded] == [ModelLoader.Loaded] and loaded[0].seconds > 0
            assert screen.model_state == "ready"
            await type_query(app, pilot, "undo the last commit")
            assert not posted(messages, Explainer.EvidenceReady)  # the panel is hidden: nothing is read for it
            await pilot.press("f4")
            await settle(app, pilot)
            evidence = posted(messages, Explainer.EvidenceReady)
            top = screen.results.current
            assert evidence[-1].hit.chunk_id == top.chunk_id
            assert evidence[-1].title.startswith(f"Why passage #1: notes/{top.relpath}") and evidence[-1].lines
            screen.results.focus()
            await pilot.press("e")
            await settle(app, pilot)
            explained = posted(messages, Explainer.ExplanationReady)
            assert [m.title for m in explained] == [f"Explain: notes/{top.relpath}"]
            assert f"Explain: notes/{top.relpath}" in str(screen.evidence.render())

    run(scenario())
