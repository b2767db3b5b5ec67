"""Textual's private names, all in pms_tui/tui/textual_seam.py: each is still there and still
what it was, and no other module of the app reaches one. A Textual upgrade that changes them
fails here, naming what changed, instead of as keys quietly typed out of order or a suite
three times slower."""

from __future__ import annotations

import ast
import asyncio
import importlib
import inspect
import subprocess
import sys
from pathlib import Path

import pytest
from textual.app import App

from pms_tui.tui.textual_seam import PRIVATE_NAMES
from pms_tui.tui.typing_input import TypingInput

PACKAGE = Path(__file__).resolve().parents[2] / "pms_tui"


def _found(module: str, name: str):
    first, *rest = name.split(".")
    owner = getattr(importlib.import_module(module), first, None)  # (textual.widgets is lazy)
    for part in rest:
        if owner is None:
            return None
        owner = inspect.getattr_static(owner, part, None)
    return owner


@pytest.mark.parametrize("entry", PRIVATE_NAMES, ids=lambda e: f"{e.module}.{e.name}")
def test_every_private_name_the_seam_lists_is_still_there(entry):
    found = _found(entry.module, entry.name)
    assert found is not None, (
        f"Textual no longer has {entry.module}.{entry.name}, which the app uses for {entry.why}; "
        f"change pms_tui/tui/textual_seam.py (public way: {entry.public_way})")
    if entry.kind == "async method":
        assert inspect.iscoroutinefunction(found), f"{entry.name} is no longer async"
        assert list(inspect.signature(found).parameters) == ["self", "event"], f"{entry.name}'s signature changed"
    elif entry.kind == "property":
        assert isinstance(found, property), f"{entry.name} is no longer a property"
    elif entry.kind == "class":
        assert inspect.isclass(found), f"{entry.name} is no longer a class"
    elif entry.kind == "float":
        assert isinstance(found, float), f"{entry.name} is no longer a number"
    else:
        raise AssertionError(f"unknown kind {entry.kind!r}")


def _private_textual_uses(path: Path) -> list[str]:
    """Textual's private modules imported, or private attributes of Textual's objects read,
    by one source file: ``textual._x`` imports and ``x._name`` where ``_name`` is defined by
    Textual and not by the app."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("textual"):
            if any(part.startswith("_") for part in node.module.split(".")):
                found.append(f"import {node.module}")
        elif isinstance(node, ast.Import):
            found += [f"import {a.name}" for a in node.names
                      if a.name.startswith("textual") and any(p.startswith("_") for p in a.name.split("."))]
    return found


def _textual_private_attributes() -> set[str]:
    """The private names Textual's Markdown, its blocks, Input and Screen have (the classes the
    app subclasses or reads), on the class or set on an instance, minus dunders and the
    Widget's own (every widget of the app has those)."""
    from markdown_it.token import Token
    from textual.screen import Screen
    from textual.widget import Widget
    from textual.widgets import Input, Markdown
    from textual.widgets.markdown import MarkdownBlock

    def private(names) -> set[str]:
        return {n for n in names if n.startswith("_") and not n.startswith("__")}

    names: set[str] = set()
    for cls in (Markdown, MarkdownBlock, Input, Screen, *Markdown.BLOCKS.values()):
        for klass in cls.__mro__:
            if klass.__module__.startswith("textual") and not issubclass(Widget, klass):
                names |= private(vars(klass))
    markdown = Markdown()
    for instance in (markdown, MarkdownBlock(markdown, Token("paragraph_open", "p", 1)), Input()):
        names |= private(vars(instance)) - private(vars(Widget()))
    return names


def test_no_module_but_the_seam_reaches_a_private_name_of_textual():
    private = _textual_private_attributes()
    # names the app defines itself on its own widgets, which happen to share Textual's spelling
    own: set[str] = set()
    offenders = []
    for path in sorted((PACKAGE / "tui").rglob("*.py")):
        if path.name == "textual_seam.py":
            continue
        offenders += [f"{path.relative_to(PACKAGE)}: {use}" for use in _private_textual_uses(path)]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in private and node.attr not in own:
                offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: .{node.attr}")
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in private:
                offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: def {node.name} (overrides Textual's)")
    assert not offenders, "Textual's private names outside textual_seam.py:\n" + "\n".join(offenders)


def test_a_bound_key_typed_in_the_input_runs_the_binding_nearest_the_focus():
    """TypingInput runs a key's binding itself, found through the screen's active bindings: the
    input's own (backspace) before the screen's, the screen's before the app's."""
    from textual.binding import Binding
    from textual.screen import Screen

    ran: list[str] = []

    class Home(Screen):
        BINDINGS = [Binding("backspace", "mark('screen')"), Binding("f5", "mark('screen')")]

        def compose(self):
            yield TypingInput()

        def action_mark(self, where: str) -> None:
            ran.append(where)

    class One(App):
        BINDINGS = [Binding("f5", "mark('app')"), Binding("f6", "mark('app')")]

        def on_mount(self):
            self.push_screen(Home())

        def action_mark(self, where: str) -> None:
            ran.append(where)

    async def scenario():
        app = One()
        async with app.run_test() as pilot:
            await pilot.pause()
            field = app.screen.query_one(TypingInput)
            await pilot.press("a", "b", "backspace", "f5", "f6")
            await pilot.pause()
            assert field.value == "a" and ran == ["screen", "app"]

    asyncio.run(scenario())


def test_the_pilot_idle_patch_is_still_needed_and_still_applies():
    """tests/conftest.py sets textual._wait's check step to 5 ms. Read Textual's own values in a
    fresh interpreter (the patch is active in this one): when Textual's step is 5 ms or less,
    the patch is no longer needed and should go; when the names are gone, it no longer works."""
    code = "from textual import _wait; print(_wait.SLEEP_GRANULARITY, _wait.SLEEP_IDLE)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, f"textual._wait's SLEEP_* are gone: fix textual_seam.pilot_idle_step\n{out.stderr}"
    granularity, idle = map(float, out.stdout.split())
    assert granularity > 1 / 200, (
        f"Textual now checks for idle every {granularity * 1000:g} ms by itself: "
        "remove pilot_idle_checks_every_5_ms from tests/conftest.py")
    assert idle == pytest.approx(granularity / 20), "Textual's idle ratio changed: re-check pilot_idle_step"


def test_the_markdown_blocks_the_reader_customises_are_textual_s_public_ones():
    """widgets/note_markdown.py subclasses the list blocks Markdown.BLOCKS maps (their module is
    private), takes a block's children from MarkdownBlock.compose, a block's text from
    set_content (called by build_from_token) and a cell's alignment from its token: a Textual
    that changes these shows the reader's lists, quotes and tables as its own, or fails."""
    from markdown_it.token import Token
    from textual.widgets import Markdown

    from pms_tui.tui.widgets.note_markdown import LightBulletList, LightOrderedList, NoteMarkdown, NoteQuote
    from pms_tui.tui.widgets.note_markdown import NoteTable, NoteTableCell

    for name in ("bullet_list_open", "ordered_list_open", "list_item_ordered_open", "list_item_unordered_open",
                 "paragraph_open", "blockquote_open", "table_open", "th_open", "td_open", "tr_open"):
        assert name in Markdown.BLOCKS, f"Textual's Markdown.BLOCKS no longer maps {name}: note_markdown.py must change"
    assert issubclass(LightBulletList, Markdown.BLOCKS["bullet_list_open"])
    assert issubclass(LightOrderedList, Markdown.BLOCKS["ordered_list_open"])
    item = Markdown.BLOCKS["list_item_unordered_open"](Markdown(), Token("list_item_open", "li", 1), "•")
    assert getattr(item, "bullet", None) == "•", "Textual's list item no longer keeps its bullet"
    markdown = NoteMarkdown()
    tokens = markdown.parser().parse("> [!tip] Title\n> Body\n\n| a |\n|:-:|\n| [[x]] |\n")
    blocks = list(markdown._parse_markdown(tokens))  # (what Markdown.update mounts)
    quote, table = blocks
    assert isinstance(quote, NoteQuote) and quote.callout == "tip" and quote._title is not None
    assert quote._title.plain == "Title"
    assert isinstance(table, NoteTable)
    cells = [c for c in table._cells(table) if isinstance(c, NoteTableCell)]
    assert [c.name for c in cells] == ["th_open", "td_open"] and cells[1].align == "center"
    assert [c.text.plain for c in cells] == ["a", "[[x]]"]  # (no index: as written)


def test_the_first_screen_s_text_is_textual_s_inline_conversion():
    """widgets/first_screen.py makes its text through MarkdownBlock.build_from_token (links as
    ``@click`` meta, the reader's inline styles) and Markdown.BULLETS (tests/tui/test_first_screen.py
    compares its rows with Textual's)."""
    from markdown_it import MarkdownIt
    from textual.style import Style
    from textual.widgets import Markdown

    from pms_tui.tui.widgets.first_screen import FirstScreen

    inline = MarkdownIt("gfm-like").parse("see [far](pms-note:x) ~~gone~~")[1]
    content = FirstScreen(Markdown(), "x\n", 0, 10, False)._inline_content(inline)
    assert content.plain == "see far gone", "MarkdownBlock.build_from_token changed: first_screen.py must change"
    styles = [span.style for span in content.spans]
    assert any(isinstance(s, Style) and s.meta.get("@click") == "link('pms-note:x')" for s in styles)
    assert ".s" in styles
    assert Markdown.BULLETS[0] == "• "


def test_the_app_s_input_imports_without_textual_s_private_parser():
    """The one private name the app needs is optional: a Textual that moved its terminal parser
    leaves escape as Textual reads it, and the app still starts (pyproject allows a range)."""
    code = ("import sys; sys.modules['textual._xterm_parser'] = None\n"
            "from pms_tui.tui.typing_input import TypingInput\n"
            "assert 'pms_tui.tui.escape_key' not in sys.modules")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
