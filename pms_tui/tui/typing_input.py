"""An Input whose bound keys keep their place among the characters typed around them.

Textual (8.2) inserts a printable key in the Input's key handler at once, but a bound key (the
Input's backspace, delete, ctrl+u, ctrl+w, arrows, home, end; the screen's and the app's
escape, ctrl+up, ...) bubbles up to the app, and only there runs its action. When keys arrive
together (a fast typist, an app busy with a sync, a slow ssh link, ``tmux send-keys``) the
characters after a bound key are inserted before its action runs: typing ``grpe``, two
backspaces and ``ep`` leaves ``grpe``; escape (clear the query) then ``rebase`` leaves an
empty bar. Upstream: Textualize/textual#6605 (a fix is proposed in #6631 for the Input's own
keys, along the same lines as this one).

Here a non-printable key's binding runs inline, in the input's key handler, found as the
app finds it: the screen's active binding for the key, the nearest the focused widget (up to
the app or the nearest modal) whose action is not disabled. Priority bindings were checked by
the app before the key reached the widget. A key no binding takes
bubbles as before.

A bound key that moves the focus (tab, shift+tab) or opens or closes a screen (ctrl+o's clip
dialog, escape) leaves the rest of its burst in this input's queue, already handed to it by
the app: typing a folder, tab and a name put the name at the end of the folder, and ctrl+o
then a URL typed the URL into the search bar behind the dialog. Such a key, reaching an input
that no longer has the focus, is handed on to the widget that has it now, as the app would
have done; when a new screen has not focused its widget yet, it waits for that (briefly).

Escape and the keys typed right after it, read by the app in one go, are kept apart before
they become keys, in :mod:`.escape_key` (installed when this module is imported).

All of it through Textual's public interface: a key handler that runs before the Input's own
and prevents it, and the screen's ``active_bindings``. This can go when a Textual release fixes
Textualize/textual#6605 (watch #6631): then ``TypingInput`` becomes a plain ``Input`` and
tests/tui/test_typing_order.py must still pass.
"""

from __future__ import annotations

import asyncio

from textual import events
from textual.dom import NoScreen
from textual.widgets import Input

try:  # before the app starts its input thread, which makes the parser
    from . import escape_key
except ImportError:  # a Textual whose terminal parser moved (textual_seam): escape as Textual reads it
    pass
else:
    escape_key.install()

SCREEN_FOCUS_WAIT = 0.5  # seconds a key waits for a screen just opened (or resumed) to focus a widget


class TypingInput(Input):
    async def on_key(self, event: events.Key) -> None:
        """Before the Input's own handler (a subclass's handler runs first; preventing the
        default skips the Input's): a key handed on, or a bound key run here, stops there."""
        target = await self._focused_now()
        handed_on = target is not None and target is not self
        if handed_on:
            target.post_message(events.Key(event.key, event.character))
        if handed_on or (not event.is_printable and await self._run_binding(event.key)):
            event.stop()
            event.prevent_default()

    async def _focused_now(self):
        """The widget the app would hand a key to now: its focused widget; while the active
        screen is another one than this input's and has focused nothing yet, waited for.
        None when nothing is focused (the key is then this input's, as before)."""
        try:
            mine = self.screen
        except NoScreen:  # already removed with its dialog
            mine = None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + SCREEN_FOCUS_WAIT
        while self.app.focused is None and self.app.screen is not mine and loop.time() < deadline:
            await asyncio.sleep(0.005)
        return self.app.focused

    async def _run_binding(self, key: str) -> bool:
        """Run ``key``'s binding as the app would (the user's keymap applied): the screen's
        active binding for it, the one nearest the focused widget whose action is not
        disabled; False when there is none, or it is a priority one (the app ran those)."""
        active = self.screen.active_bindings.get(key)
        if active is None or active.binding.priority:
            return False
        return bool(await self.app.run_action(active.binding.action, active.node))
