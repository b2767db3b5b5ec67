"""An Input whose bound keys keep their place among the characters typed around them.

Textual (8.2) inserts a printable key in ``Input._on_key`` at once, but a bound key (the
Input's backspace, delete, ctrl+u, ctrl+w, arrows, home, end; the screen's and the app's
escape, ctrl+up, ...) bubbles up to the app, and only there runs its action. When keys arrive
together (a fast typist, an app busy with a sync, a slow ssh link, ``tmux send-keys``) the
characters after a bound key are inserted before its action runs: typing ``grpe``, two
backspaces and ``ep`` leaves ``grpe``; escape (clear the query) then ``rebase`` leaves an
empty bar. Upstream: Textualize/textual#6605 (a fix is proposed in #6631 for the Input's own
keys, along the same lines as this one).

Here a non-printable key's binding runs inline, in ``_on_key``, found as the app finds it
(``App._check_bindings``): the screen's binding chain from the focused widget up to the app
(or to the nearest modal), non-priority bindings, the first whose action runs. Priority
bindings were checked by the app before the key reached the widget. A key no binding takes
bubbles as before.

A bound key that moves the focus (tab, shift+tab, a dialog's enter) leaves the rest of its
burst in this input's queue, already handed to it by the app: typing a folder, tab and a name
put the name at the end of the folder. Such a key, reaching an input that no longer has the
focus, is handed on to the widget that has it now, as the app would have done.
"""

from __future__ import annotations

from textual import events
from textual.widgets import Input


class TypingInput(Input):
    async def _on_key(self, event: events.Key) -> None:
        focused = self.app.focused
        if focused is not None and focused is not self:
            event.stop()
            event.prevent_default()
            focused.post_message(events.Key(event.key, event.character))
            return
        if not event.is_printable and await self._run_binding(event.key):
            event.stop()
            event.prevent_default()
            return
        await super()._on_key(event)

    async def _run_binding(self, key: str) -> bool:
        """Run ``key``'s binding as the app would (the user's keymap applied); False when no
        binding in the chain takes it."""
        for namespace, bindings in self.screen._modal_binding_chain:
            for binding in bindings.key_to_bindings.get(key, ()):
                if not binding.priority and await self.app.run_action(binding.action, namespace):
                    return True
        return False
