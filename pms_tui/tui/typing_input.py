"""An Input whose bound keys keep their place among the characters typed around them.

Textual (8.2) inserts a printable key in the Input's key handler at once, but a bound key (the
Input's backspace, delete, ctrl+u, ctrl+w, arrows, home, end; the screen's and the app's
escape, ctrl+up, ...) bubbles up to the app, and only there runs its action. When keys arrive
together (a fast typist, an app busy with a sync, a slow ssh link, ``tmux send-keys``) the
characters after a bound key are inserted before its action runs: typing ``grpe``, two
backspaces and ``ep`` leaves ``grpe``; escape (clear the query) then ``rebase`` leaves an
empty bar. Upstream: Textualize/textual#6605 (a fix is proposed in #6631 for the Input's own
keys, along the same lines as this one).

Here a non-printable key's binding runs inline, in the key hook (``key_first``), found as the
app finds it: the screen's binding chain from the focused widget up to the app (or to the
nearest modal), non-priority bindings, the first whose action runs. Priority
bindings were checked by the app before the key reached the widget. A key no binding takes
bubbles as before.

A bound key that moves the focus (tab, shift+tab) or opens or closes a screen (ctrl+o's clip
dialog, escape) leaves the rest of its burst in this input's queue, already handed to it by
the app: typing a folder, tab and a name put the name at the end of the folder, and ctrl+o
then a URL typed the URL into the search bar behind the dialog. Such a key, reaching an input
that no longer has the focus, is handed on to the widget that has it now, as the app would
have done; when a new screen has not focused its widget yet, it waits for that (briefly).

Escape and the keys typed right after it, read by the app in one go, are kept apart before
they become keys, in :mod:`.escape_key` (installed when this module is imported).

The key hook is one of Textual's private names, reached through :mod:`.textual_seam` (which
lists them and why); the binding is the screen's public ``active_bindings``. This can go when a Textual release fixes
Textualize/textual#6605 (watch #6631): then ``TypingInput`` becomes a plain ``Input`` and
tests/tui/test_typing_order.py must still pass.
"""

from __future__ import annotations

import asyncio

from textual import events
from textual.dom import NoScreen

from . import escape_key
from .textual_seam import KeyFirstInput

SCREEN_FOCUS_WAIT = 0.5  # seconds a key waits for a screen just opened (or resumed) to focus a widget
escape_key.install()  # before the app starts its input thread, which makes the parser


class TypingInput(KeyFirstInput):
    async def key_first(self, event: events.Key) -> bool:
        target = await self._focused_now()
        handed_on = target is not None and target is not self
        if handed_on:
            target.post_message(events.Key(event.key, event.character))
        return handed_on or (not event.is_printable and await self._run_binding(event.key))

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
