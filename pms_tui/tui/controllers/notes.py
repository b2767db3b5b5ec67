"""What can be done with the highlighted passage: the reader's view, $EDITOR, the clipboard."""

from __future__ import annotations

import os
import shlex
import subprocess

from textual import work
from textual.app import SuspendNotSupported

from pms_tui.core.errors import describe


class NoteActions:
    """Mixed into the search screen (which supplies ``reader`` and ``start_sync``)."""

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
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
        if not editor:
            self.notify("Set the EDITOR environment variable to open notes, for example "
                        "`export EDITOR=nano` in your shell profile.", severity="warning", timeout=10)
            return
        self.remember_query()
        try:
            with self.app.suspend():
                subprocess.call([*shlex.split(editor), f"+{hit.start_line}", hit.path])
        except SuspendNotSupported:
            self.notify("This terminal cannot hand over to an editor.", severity="warning")
            return
        except (OSError, ValueError) as exc:
            self.notify(f"Cannot start the editor {editor!r}: {describe(exc)}", severity="error")
            return
        self.start_sync(quiet=True)  # the note may have changed

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
        self.remember_query()
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
