"""The screen's note opener: the highlighted note in $EDITOR or the system's viewer, and
its passage or path on the clipboard.

It keeps no state (the highlighted passage is the reader's: the screen hands it over); it
says that a note was used (``NoteOpener.NoteUsed``: the query that found it enters the
history) and that the editor returned (``NoteOpener.NoteEdited``: the note may have changed).
"""

from __future__ import annotations

import os
import shlex
import subprocess
from typing import TYPE_CHECKING

from textual import work
from textual.app import SuspendNotSupported
from textual.message import Message
from textual.worker import Worker, WorkerState

from pms_tui.core.errors import describe
from pms_tui.core.kb import is_document_name, is_guide_note, opener_command

from . import Part

if TYPE_CHECKING:
    from pms_tui.core.results import Hit

READ_ONLY_GUIDE = "The guide is read-only: it is part of the installed app, not one of your notes."


class NoteOpener(Part):
    """The editor, the system's viewer, the clipboard, for the hit the screen hands it."""

    class NoteUsed(Message):
        """A note was opened or copied: the query that found it was acted on."""

    class NoteEdited(Message):
        """The editor returned: the note may have changed (a quiet sync follows)."""

    def edit(self, hit: Hit) -> None:
        """``hit``'s note in $EDITOR at its first line (a document in the system's viewer)."""
        if is_document_name(hit.relpath):
            self.view_document(hit.path)
            return
        if is_guide_note(hit.path):  # editing it would change the installed package, for every user
            self.notify(READ_ONLY_GUIDE, severity="warning", timeout=6)
            return
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
        if not editor:
            self.notify("Set the EDITOR environment variable to open notes, for example "
                        "`export EDITOR=nano` in your shell profile.", severity="warning", timeout=10)
            return
        self.post_message(self.NoteUsed())
        try:
            with self.app.suspend():
                subprocess.call([*shlex.split(editor), f"+{hit.start_line}", hit.path])
        except SuspendNotSupported:
            self.notify("This terminal cannot hand over to an editor.", severity="warning")
            return
        except (OSError, ValueError) as exc:
            self.notify(f"Cannot start the editor {editor!r}: {describe(exc)}", severity="error")
            return
        self.post_message(self.NoteEdited())

    def view_document(self, path: str) -> None:
        """A PDF or Word file opens in the system's application for it, not in $EDITOR; the
        app stays as it is (the viewer is a window of its own)."""
        command = opener_command(path)
        if command is None:
            self.notify("No program to open documents was found (xdg-open on Linux).", severity="warning")
            return
        try:
            subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
        except OSError as exc:
            self.notify(f"Cannot open the document: {describe(exc)}", severity="error")
            return
        self.notify("Opened in the system's viewer.", timeout=3)

    def copy(self, text: str, what: str) -> None:
        """OSC 52 through the terminal, and pyperclip where the terminal does not do OSC 52."""
        self.post_message(self.NoteUsed())
        self.app.copy_to_clipboard(text)
        self.copy_with_pyperclip(text, what)

    @work(thread=True, group="clipboard", exit_on_error=False)
    def copy_with_pyperclip(self, text: str, what: str) -> str:
        try:
            import pyperclip

            pyperclip.copy(text)
        except Exception:  # noqa: BLE001 - no clipboard program: the OSC 52 copy is all we have
            pass
        return what

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.SUCCESS and event.worker.group == "clipboard":
            self.notify(f"Copied {event.worker.result}.", timeout=3)
