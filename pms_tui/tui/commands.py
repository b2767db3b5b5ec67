"""The command palette (ctrl+p): sync, clip, add a folder, filters, modes, themes, help."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider

if TYPE_CHECKING:
    from .app import PmsApp

Command = tuple[str, Callable[[], object], str]


class PmsCommands(Provider):
    """Every action of the app, plus one command per collection, mode and theme."""

    def _commands(self) -> list[Command]:
        app: PmsApp = self.app  # type: ignore[assignment]
        commands: list[Command] = [
            ("Sync: index what changed", app.action_sync, "Read changed notes and update the index"),
            ("Clip a web page", app.action_clip, "Save a page as a Markdown note and index it"),
            ("Add a folder of notes", app.action_add_collection, "Add a collection and sync it"),
            ("Toggle chunk / whole note", app.action_toggle_document, "What the reader shows"),
            ("Open the note in $EDITOR", app.action_open_editor, "At the chunk's first line"),
            ("Copy the chunk", app.action_copy_chunk, "Its Markdown text"),
            ("Copy the note's path", app.action_copy_path, "The absolute path"),
            ("Help: keys", app.action_help, "List every key and its id"),
        ]
        for mode in ("hybrid", "bm25", "vector"):
            mark = " (current)" if app.mode == mode else ""
            commands.append((f"Mode: {mode}{mark}", partial(app.set_mode, mode), MODE_HELP[mode]))
        commands.append(("Filter: all collections", partial(app.set_collection_filter, None),
                         "Search every collection"))
        for name in app.collection_names:
            commands.append((f"Filter: {name}", partial(app.set_collection_filter, name),
                             f"Search only the collection {name!r}"))
        for name in sorted(app.available_themes):
            if name.startswith("pms-") or name in app.user_theme_names:
                commands.append((f"Theme: {name}", partial(app.set_theme, name), "Switch and remember"))
        if not app.has_sample_collection:
            commands.append(("Add the bundled user guide", app.action_add_sample,
                             "Index the guide that ships with pms-tui"))
        return commands

    async def discover(self) -> Hits:
        for name, callback, help_text in self._commands():
            yield DiscoveryHit(name, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, callback, help_text in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, text=name, help=help_text)


MODE_HELP = {
    "hybrid": "Keywords and meaning, fused by reciprocal rank fusion",
    "bm25": "Keywords only (FTS5 BM25)",
    "vector": "Meaning only (the embedding model)",
}
