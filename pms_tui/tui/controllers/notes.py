"""What can be done with the highlighted passage: the reader's view, $EDITOR, the clipboard."""

from __future__ import annotations

import os
import shlex
import subprocess


from textual.app import SuspendNotSupported

from pms_tui.core.errors import describe
from pms_tui.core.kb import is_document_name, is_guide_note, opener_command

from . import Host, thread_worker

READ_ONLY_GUIDE = "The guide is read-only: it is part of the installed app, not one of your notes."


class NoteController:
    """Owned by the search screen as ``screen.notes``; holds no state of its own (the
    highlighted passage is the reader's)."""

    def __init__(self, host: Host) -> None:
        self.host = host

    def _highlighted(self):
        hit = self.host.reader.hit
        if hit is None:
            self.host.notify("Highlight a result first.", severity="warning")
        return hit

    def toggle_document(self) -> None:
        if self._highlighted() is not None:
            self.host.reader.whole_note = not self.host.reader.whole_note

    def open_editor(self) -> None:
        hit = self._highlighted()
        if hit is None:
            return
        if is_document_name(hit.relpath):
            self.open_document(hit.path)
            return
        if is_guide_note(hit.path):  # editing it would change the installed package, for every user
            self.host.notify(READ_ONLY_GUIDE, severity="warning", timeout=6)
            return
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
        if not editor:
            self.host.notify("Set the EDITOR environment variable to open notes, for example "
                             "`export EDITOR=nano` in your shell profile.", severity="warning", timeout=10)
            return
        self.host.remember_query()
        try:
            with self.host.app.suspend():
                subprocess.call([*shlex.split(editor), f"+{hit.start_line}", hit.path])
        except SuspendNotSupported:
            self.host.notify("This terminal cannot hand over to an editor.", severity="warning")
            return
        except (OSError, ValueError) as exc:
            self.host.notify(f"Cannot start the editor {editor!r}: {describe(exc)}", severity="error")
            return
        self.host.start_sync(quiet=True)  # the note may have changed

    def open_document(self, path: str) -> None:
        """A PDF or Word file opens in the system's application for it, not in $EDITOR; the
        app stays as it is (the viewer is a window of its own)."""
        command = opener_command(path)
        if command is None:
            self.host.notify("No program to open documents was found (xdg-open on Linux).", severity="warning")
            return
        try:
            subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
        except OSError as exc:
            self.host.notify(f"Cannot open the document: {describe(exc)}", severity="error")
            return
        self.host.notify("Opened in the system's viewer.", timeout=3)

    def copy_chunk(self) -> None:
        hit = self._highlighted()
        if hit is not None:
            self.copy_text(hit.text, f"the chunk ({len(hit.text):,} characters)")

    def copy_path(self) -> None:
        hit = self._highlighted()
        if hit is not None:
            self.copy_text(hit.path, "the path")

    def copy_text(self, text: str, what: str) -> None:
        """OSC 52 through the terminal, and pyperclip where the terminal does not do OSC 52."""
        self.host.remember_query()
        self.host.app.copy_to_clipboard(text)
        thread_worker(self.host, "copy_with_pyperclip", "clipboard", self._copy_with_pyperclip, text, what)

    def _copy_with_pyperclip(self, text: str, what: str) -> None:
        try:
            import pyperclip

            pyperclip.copy(text)
        except Exception:  # noqa: BLE001 - no clipboard program: the OSC 52 copy is all we have
            pass
        self.host.app.call_from_thread(self.host.notify, f"Copied {what}.", timeout=3)
