"""The command palette: it offers what the app and the screen it was opened from can do.

Each of them lists its own commands in a ``palette_commands()`` method (the search screen:
sync, clip, add a folder, filters, modes; the app: themes), so this module knows neither.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from textual.command import DiscoveryHit, Hit, Hits, Provider

Command = tuple[str, Callable[[], object], str]  # name, callback, help text


class _Commands(Provider):
    def _commands(self) -> Iterable[Command]:
        raise NotImplementedError

    async def discover(self) -> Hits:
        for name, callback, help_text in self._commands():
            yield DiscoveryHit(name, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, callback, help_text in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, text=name, help=help_text)


class ScreenCommands(_Commands):
    """The commands of the screen the palette was opened from (put it in its ``COMMANDS``)."""

    def _commands(self) -> Iterable[Command]:
        return getattr(self.screen, "palette_commands", list)()


class AppCommands(_Commands):
    """The app's own commands (themes), on every screen."""

    def _commands(self) -> Iterable[Command]:
        return getattr(self.app, "palette_commands", list)()
