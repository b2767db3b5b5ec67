"""What can be done with the highlighted passage: the reader's view, $EDITOR, the clipboard.

A part of :class:`pms_tui.tui.screens.search.SearchScreen`; it keeps no state (the
highlighted passage is the reader's)."""

from __future__ import annotations

import os
import shlex
import subprocess

from textual import work
from textual.app import SuspendNotSupported

from pms_tui.core.errors import describe
from pms_tui.core.kb import is_document_name, is_guide_note, opener_command

from ..messages import QueryUsed, SyncRequested
from .search_runs import SearchRuns

READ_ONLY_GUIDE = "The guide is read-only: it is part of the installed app, not one of your notes."


class NotePart(SearchRuns):
    """The reader's view of the highlighted hit, the editor, the system's viewer, the clipboard."""

    def _highlighted(self):
        hit = self.reader.hit
        if hit is None:
            self.notify("Highlight a result first.", severity="warning")
        return hit

    def action_toggle_document(self) -> None:
        if self._highlighted() is not None:
            self.reader.whole_note = not self.reader.whole_note

    def action_open_editor(self) -> None:
        hit = self._highlighted()
        if hit is None:
            return
        if is_document_name(hit.relpath):
            self.open_document(hit.path)
            return
        if is_guide_note(hit.path):  # editing it would change the installed package, for every user
            self.notify(READ_ONLY_GUIDE, severity="warning", timeout=6)
            return
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
        if not editor:
            self.notify("Set the EDITOR environment variable to open notes, for example "
                             "`export EDITOR=nano` in your shell profile.", severity="warning", timeout=10)
            return
        self.post_message(QueryUsed())
        try:
            with self.app.suspend():
                subprocess.call([*shlex.split(editor), f"+{hit.start_line}", hit.path])
        except SuspendNotSupported:
            self.notify("This terminal cannot hand over to an editor.", severity="warning")
            return
        except (OSError, ValueError) as exc:
            self.notify(f"Cannot start the editor {editor!r}: {describe(exc)}", severity="error")
            return
        self.post_message(SyncRequested(quiet=True))  # the note may have changed

    def open_document(self, path: str) -> None:
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

    def action_copy_chunk(self) -> None:
        hit = self._highlighted()
        if hit is not None:
            self.copy_text(hit.text, f"the chunk ({len(hit.text):,} characters)")

    def action_copy_path(self) -> None:
        hit = self._highlighted()
        if hit is not None:
            self.copy_text(hit.path, "the path")

    def copy_text(self, text: str, what: str) -> None:
        """OSC 52 through the terminal, and pyperclip where the terminal does not do OSC 52."""
        self.post_message(QueryUsed())
        self.app.copy_to_clipboard(text)
        self.copy_with_pyperclip(text, what)

    @work(thread=True, group="clipboard", exit_on_error=False)
    def copy_with_pyperclip(self, text: str, what: str) -> None:
        try:
            import pyperclip

            pyperclip.copy(text)
        except Exception:  # noqa: BLE001 - no clipboard program: the OSC 52 copy is all we have
            pass
        self.app.call_from_thread(self.notify, f"Copied {what}.", timeout=3)
