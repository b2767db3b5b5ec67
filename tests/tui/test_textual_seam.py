"""Where the app and its tests lean on Textual's private names, a check that they are still
there and still what they were (tui/typing_input.py; tests/conftest.py). A Textual upgrade
that changes them fails here, naming what changed, instead of as keys quietly typed out of
order or a suite three times slower."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import subprocess
import sys

import pytest
from textual.app import App
from textual.binding import BindingsMap

from pms_tui.tui.typing_input import PRIVATE_NAMES, TypingInput


def _resolve(dotted: str):
    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)


@pytest.mark.parametrize(("owner", "name", "what"), PRIVATE_NAMES)
def test_the_private_names_typing_input_uses_are_still_there(owner, name, what):
    cls = _resolve(owner)
    found = inspect.getattr_static(cls, name, None)
    assert found is not None, (
        f"Textual no longer has {owner}.{name} ({what}): tui/typing_input.py must change; "
        "see Textualize/textual#6605 (it may be fixed: then TypingInput can become a plain Input)")
    if name == "_on_key":
        assert inspect.iscoroutinefunction(found), f"{owner}._on_key is no longer async"
        assert list(inspect.signature(found).parameters) == ["self", "event"], f"{owner}._on_key's signature changed"
    else:
        assert isinstance(found, property), f"{owner}.{name} is no longer a property"


def test_the_binding_chain_still_holds_namespaces_and_binding_maps():
    class One(App):
        def compose(self):
            yield TypingInput()

    async def scenario():
        app = One()
        async with app.run_test() as pilot:
            await pilot.pause()
            chain = app.screen._modal_binding_chain
            assert chain, "the screen's binding chain is empty"
            for namespace, bindings in chain:
                assert isinstance(bindings, BindingsMap) and hasattr(bindings, "key_to_bindings")
            assert any(isinstance(ns, TypingInput) for ns, _ in chain)  # from the focused widget up

    asyncio.run(scenario())


def test_the_pilot_idle_patch_is_still_needed_and_still_applies():
    """tests/conftest.py sets textual._wait's check step to 5 ms. Read Textual's own values in a
    fresh interpreter (the patch is active in this one): when Textual's step is 5 ms or less,
    the patch is no longer needed and should go; when the names are gone, it no longer works."""
    code = "from textual import _wait; print(_wait.SLEEP_GRANULARITY, _wait.SLEEP_IDLE)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, f"textual._wait's SLEEP_* are gone: fix tests/conftest.py\n{out.stderr}"
    granularity, idle = map(float, out.stdout.split())
    assert granularity > 1 / 200, (
        f"Textual now checks for idle every {granularity * 1000:g} ms by itself: "
        "remove pilot_idle_checks_every_5_ms from tests/conftest.py")
    assert idle == pytest.approx(granularity / 20), "Textual's idle ratio changed: re-check the conftest patch"


def test_the_markdown_streaming_position_the_reader_sets_is_still_there():
    """The reader appends a long note's later pieces after the first (widgets/reader.py) and
    points Textual's streaming position at the last block it rendered; without the attribute
    the guard skips that and the next piece would replace the last block."""
    from textual.widgets import Markdown

    assert hasattr(Markdown(), "_last_parsed_line"), (
        "Textual's Markdown no longer has _last_parsed_line: widgets/reader.py's piecewise "
        "rendering must change (tests/tui/test_tui_links.py counts the blocks it renders)")


def test_the_markdown_list_names_the_reader_overrides_are_still_there():
    """widgets/note_markdown.py swaps Textual's list blocks for lighter ones through
    ``Markdown.BLOCKS`` and reads a list item's ``_blocks`` and ``bullet``; a Textual that
    renames them would leave the reader on Textual's own lists (or failing to compose)."""
    from markdown_it.token import Token
    from textual.widgets import Markdown
    from textual.widgets._markdown import MarkdownBulletList, MarkdownListItem, MarkdownOrderedList

    assert Markdown.BLOCKS.get("bullet_list_open") is MarkdownBulletList, (
        "Textual's Markdown.BLOCKS no longer maps bullet_list_open: widgets/note_markdown.py must change")
    assert Markdown.BLOCKS.get("ordered_list_open") is MarkdownOrderedList, (
        "Textual's Markdown.BLOCKS no longer maps ordered_list_open: widgets/note_markdown.py must change")
    item = MarkdownListItem(Markdown(), Token("list_item_open", "li", 1), "•")
    assert isinstance(item._blocks, list) and item.bullet == "•", (
        "Textual's MarkdownListItem no longer keeps _blocks and bullet: widgets/note_markdown.py must change")


def test_the_markdown_names_the_first_screen_uses_are_still_there():
    """widgets/first_screen.py makes its text with ``MarkdownBlock._token_to_content`` (links
    as ``@click`` meta, the reader's inline styles), lays it out by Textual's Markdown CSS and
    ``Markdown.BULLETS``, and widgets/note_markdown.py sets ``Markdown._markdown`` (the source)
    and keeps Textual's ``_on_mount`` from rendering "" over the first screen. A Textual that
    changes them breaks the first screen (tests/tui/test_first_screen.py compares its rows)."""
    from markdown_it import MarkdownIt
    from textual.style import Style
    from textual.widgets import Markdown
    from textual.widgets._markdown import MarkdownBlock

    inline = MarkdownIt("gfm-like").parse("see [far](pms-note:x) ~~gone~~")[1]
    block = MarkdownBlock(Markdown(), inline)
    content = block._token_to_content(inline)
    assert content.plain == "see far gone", "MarkdownBlock._token_to_content changed: first_screen.py must change"
    styles = [span.style for span in content.spans]
    assert any(isinstance(s, Style) and s.meta.get("@click") == "link('pms-note:x')" for s in styles)
    assert ".s" in styles
    assert Markdown.BULLETS[0] == "• " and hasattr(Markdown("x"), "_markdown") and hasattr(Markdown, "_on_mount")


def test_the_markdown_names_the_obsidian_blocks_use_are_still_there():
    """widgets/note_markdown.py's quotes, callouts and tables replace Textual's through
    ``Markdown.BLOCKS`` (blockquote_open, table_open, th_open, td_open), are built by its
    ``_parse_markdown`` (an inline token straight inside a quote is the callout's title, given
    to ``build_from_token``), and read a block's ``_blocks``, ``_content``, ``_token`` and
    ``name`` (its token type). A Textual that changes them shows quotes and tables as its own."""
    from textual.widgets import Markdown

    from pms_tui.tui.widgets.note_markdown import NoteMarkdown, NoteQuote, NoteTable, NoteTableCell

    for name in ("blockquote_open", "table_open", "th_open", "td_open", "tr_open"):
        assert name in Markdown.BLOCKS, f"Textual's Markdown.BLOCKS no longer maps {name}: note_markdown.py must change"
    markdown = NoteMarkdown()
    tokens = markdown.parser().parse("> [!tip] Title\n> Body\n\n| a |\n|:-:|\n| [[x]] |\n")
    quote, table = list(markdown._parse_markdown(tokens))
    assert isinstance(quote, NoteQuote) and quote.callout == "tip" and quote._title is not None
    assert quote._title.plain == "Title" and quote._blocks[0]._content.plain == "Body"
    assert isinstance(table, NoteTable)
    cells = [c for c in table._cells(table) if isinstance(c, NoteTableCell)]
    assert [c.name for c in cells] == ["th_open", "td_open"] and cells[1].align == "center"
