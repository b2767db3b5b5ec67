"""An Input whose own editing keys keep their place among the characters typed around them.

Textual (8.2) inserts a printable key in ``Input._on_key`` at once, but a key bound on the
Input (backspace, delete, ctrl+u, ctrl+w, the arrows, home, end) bubbles up to the app, and
only there runs its action. When keys arrive together (a fast typist, an app busy with a
sync, a slow ssh link, ``tmux send-keys``) the characters after a bound key are inserted
before its action runs: typing ``grpe``, two backspaces and ``ep`` leaves ``grpe``. Upstream:
Textualize/textual#6605 (a fix is proposed in #6631, along the same lines as this one).

Here the Input's own bindings run inline, in ``_on_key``, taken from the screen's binding
chain and run through ``App.run_action`` as the app would run them. Nothing else changes: the
focused widget is the first namespace of that chain, so its own binding is the one the app
would have chosen; priority bindings (the app's) were checked before the key reached the
widget; keys the Input does not bind still bubble to the screen and the app.
"""

from __future__ import annotations

from textual import events
from textual.binding import BindingsMap
from textual.widgets import Input


class TypingInput(Input):
    async def _on_key(self, event: events.Key) -> None:
        if not event.is_printable:
            for binding in self._own_bindings().key_to_bindings.get(event.key, ()):
                if not binding.priority and await self.app.run_action(binding.action, self):
                    event.stop()
                    event.prevent_default()
                    return
        await super()._on_key(event)

    def _own_bindings(self) -> BindingsMap:
        """This Input's bindings as the app would resolve them now (the user's keymap applied):
        its entry in the screen's binding chain."""
        for node, bindings in self.screen._modal_binding_chain:
            if node is self:
                return bindings
        return BindingsMap()
