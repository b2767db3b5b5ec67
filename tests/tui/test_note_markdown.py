"""The reader's Markdown (lighter list items) looks exactly as Textual's Markdown does."""

from __future__ import annotations

import asyncio

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown

from pms_tui.tui.widgets.note_markdown import ItemRow, NoteMarkdown

TEXT = """\
# Lists

- one short item
- a long item that wraps over the width of the screen, so its second line must start under
  the first word and not under the bullet, as Textual's column puts it
- an item with a [link](pms-note:x) and **bold**
  - a nested item
  - another

3. third, numbered from three
4. fourth, with two paragraphs

   the second paragraph
5. fifth

10. ten
11. eleven

Text after the lists.
"""


class Side(App):
    def compose(self) -> ComposeResult:
        yield VerticalScroll(id="box")


def test_note_markdown_renders_lists_as_textual_does_with_fewer_widgets():
    async def scenario():
        app = Side()
        shots, counts = [], []
        async with app.run_test(size=(60, 40)) as pilot:
            box = app.query_one("#box")
            for cls in (Markdown, NoteMarkdown):
                await box.remove_children()
                widget = cls(TEXT)
                await box.mount(widget)
                await pilot.pause()
                await pilot.pause()
                shots.append(app.export_screenshot())
                counts.append(len(list(widget.walk_children())))
                rows = len(widget.query(ItemRow))
        assert shots[0] == shots[1]  # the same cells on the screen
        assert rows == 8 and counts[1] == counts[0] - rows  # one column fewer per one-paragraph item
    asyncio.run(scenario())


PYTHON = "import os\n\ndef greet(name):\n    return f'hello {name}'\n"


def test_a_fence_naming_no_language_is_plain_text_not_guessed():
    # Textual's fence guesses (Pygments' guess_lexer imports every lexer: 150-220 ms the first
    # time, on the UI thread); the reader's shows such a fence as plain text
    from textual.widgets.markdown import MarkdownFence

    plain = MarkdownFence.highlight(PYTHON, "text").spans
    assert MarkdownFence.highlight(PYTHON, "").spans != plain  # Textual's guess colours it
    for kind in ("fence", "code_block"):
        fence = NoteMarkdown.BLOCKS[kind]
        assert fence.highlight(PYTHON, "").spans == plain
        assert fence.highlight(PYTHON, "python").spans == MarkdownFence.highlight(PYTHON, "python").spans
