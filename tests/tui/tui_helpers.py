"""Helpers for the terminal UI tests: fixed notes, the app under test, waiting without sleeping."""

from __future__ import annotations

import asyncio
import os
import textwrap
from pathlib import Path
from typing import NamedTuple

TUI_NOTES = {
    "git/undo-commit.md": """
        ---
        title: Undo the last commit
        tags: [git]
        ---
        # Git

        Everyday commands for the version control system, and how to get out of trouble when a
        commit went wrong. Every recipe here keeps your work safe unless it says otherwise, so
        read the whole section before you type anything.

        ## Fixing mistakes

        Mistakes happen to everyone: a commit with the wrong files, a message with a typo, a
        branch that went the wrong way. Git keeps enough history to undo almost all of them,
        as long as you have not pushed the commit to a shared remote yet.

        ### Undo the last commit

        Keep the changes in the working tree and drop only the commit:

        ```bash
        git reset --soft HEAD~1
        git status
        ```

        The files stay staged, so you can fix them and commit again with a better message and
        the right content. Nothing is lost, and the reflog still remembers the old commit.

        ### Throw the changes away

        A hard reset discards the commit and the working tree changes. Recover with the reflog
        if you change your mind: it remembers where HEAD was for about ninety days.
        """,
    "cooking/pancakes.md": """
        # Pancakes

        Fluffy pancakes for a lazy Sunday breakfast.

        ## Ingredients

        | Ingredient | Amount |
        |------------|--------|
        | flour      | 200 g  |
        | milk       | 300 ml |
        | eggs       | 2      |

        ## Method

        Whisk everything, rest the batter for ten minutes, and fry in butter until golden.
        """,
    "python/asyncio.md": """
        # Python asyncio

        ## Tasks

        Create concurrent coroutines with `asyncio.create_task` and wait for them with
        `asyncio.gather`.

        ## Event loop

        The event loop schedules callbacks and runs coroutines until they complete.
        """,
}
# fixed modification times, so "recent notes" (the empty query) has a stable order
MTIMES = {"git/undo-commit.md": 1_700_000_300, "cooking/pancakes.md": 1_700_000_200, "python/asyncio.md": 1_700_000_100}


def write_note(folder: Path, rel: str, text: str, mtime: int | None = None) -> Path:
    path = folder / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


class Notice(NamedTuple):
    message: str
    title: str
    severity: str


def synced_home(home: Path, folder: Path) -> Path:
    """A home whose index holds ``folder`` as the collection ``notes``, fully synced."""
    from pms_tui.core.kb import KnowledgeBase

    with KnowledgeBase(home=home) as kb:
        kb.collections.create(folder, name="notes")
        kb.sync()
    return home


def make_app(home: Path, **kwargs):
    """The app on ``home``; ``app.notified`` keeps every notification (Textual drops a toast
    from ``app._notifications`` when its timeout passes, which a slow machine reaches)."""
    from pms_tui.tui.app import PmsApp

    kwargs.setdefault("first_run_sample", False)
    kwargs.setdefault("read_clipboard", False)
    kwargs.setdefault("show_timings", False)
    app = PmsApp(home=home, **kwargs)
    app.notified = []
    notify = app.notify

    def recording_notify(message, *, title="", severity="information", **options):
        app.notified.append(Notice(str(message), title, severity))
        return notify(message, title=title, severity=severity, **options)

    app.notify = recording_notify
    return app


async def settle(app, pilot, rounds: int = 3) -> None:
    """Let pending work finish: the debounce timer, workers, and the renders they cause."""
    for _ in range(rounds):
        while app.search_screen.searcher.search_pending:
            await pilot.pause(0.02)
        await app.wait_for_work()
        await pilot.pause()


async def settled(app, pilot) -> None:
    """As :func:`settle`, then until a query typed has been searched again with its words whole
    (the results a person reads once typing pauses)."""
    await settle(app, pilot)
    while app.search_screen.searcher.settle_pending:
        await pilot.pause(0.05)
    await settle(app, pilot)


async def wait_for_model(app, pilot) -> None:
    screen = app.search_screen
    while screen.model_state == "loading" and screen.load_model_at_start:
        await pilot.pause(0.05)
    await settle(app, pilot)


async def type_query(app, pilot, text: str) -> None:
    for char in text:
        await pilot.press("space" if char == " " else char)
    await settle(app, pilot)


def run(coro):
    return asyncio.run(coro)


async def until(pilot, check, seconds: float = 120.0) -> bool:
    """Pause in 50 ms steps until ``check()`` holds (at most ``seconds``); whether it did."""
    for _ in range(int(seconds / 0.05)):
        if check():
            return True
        await pilot.pause(0.05)
    return check()


def shown_contents(root) -> list:
    """(widget, content) of every Static shown under ``root`` (hidden ones left out), top down:
    what the reader renders, links and styles in the content's spans."""
    from textual.content import Content
    from textual.widgets import Static

    out = []
    for widget in root.walk_children(with_self=False):
        if isinstance(widget, Static) and all(node.display for node in widget.ancestors_with_self
                                              if node is not root.parent and hasattr(node, "display")):
            if isinstance(widget.visual, Content):
                out.append((widget, widget.visual))
    return out


def shown_links(content) -> list[tuple[str, str]]:
    """(text, href) of the links in a rendered ``content``."""
    import re

    found = []
    for span in content.spans:
        meta = getattr(span.style, "meta", None) or {}
        m = re.match(r"link\('(.*)'\)$", meta.get("@click", "") if isinstance(meta, dict) else "")
        if m:
            found.append((content.plain[span.start:span.end], m.group(1)))
    return found


def shown_struck(content) -> list[str]:
    """The struck-through texts of a rendered ``content``."""
    return [content.plain[span.start:span.end] for span in content.spans if str(span.style) == ".s"]


def reader_shown(reader) -> tuple[str, list[tuple[str, str]], list[str]]:
    """The reader's rendered text, its links (text, href) and its struck-through texts."""
    contents = shown_contents(reader.query_one("#reader-scroll"))
    return ("\n".join(c.plain for _, c in contents), [link for _, c in contents for link in shown_links(c)],
            [s for _, c in contents for s in shown_struck(c)])
