"""What the command palette (ctrl+p) offers on the search screen."""

from __future__ import annotations

from functools import partial

from pms_tui.core.results import MODES

from ..commands import Command

MODE_HELP = {
    "hybrid": "Keywords and meaning, fused by reciprocal rank fusion",
    "bm25": "Keywords only (FTS5 BM25)",
    "vector": "Meaning only (the embedding model)",
}


def palette_commands(screen) -> list[Command]:
    """The search screen's commands (``screen``: a SearchScreen, not imported here: it imports
    this module), its query part's, one per mode and per collection filter."""
    commands: list[Command] = [
        ("Sync: index what changed", screen.action_sync, "Read changed notes and update the index"),
        ("Stop the running sync", screen.action_stop_sync,
         "Stop syncing or embedding; the next sync or start carries on"),
        ("Clip a web page", screen.action_clip, "Save a page as a Markdown note and index it"),
        ("Add a folder of notes", screen.action_add_collection, "Add a collection and sync it"),
        ("Toggle chunk / whole note", screen.action_toggle_document, "What the reader shows"),
        ("Open the note in $EDITOR", screen.action_open_editor, "At the chunk's first line"),
        ("Copy the chunk", screen.action_copy_chunk, "Its Markdown text"),
        ("Copy the note's path", screen.action_copy_path, "The absolute path"),
        ("Help: keys", screen.app.action_help, "List every key and its id"),
    ]
    commands += screen.query_commands()
    for mode in MODES:
        mark = " (current)" if screen.mode == mode else ""
        commands.append((f"Mode: {mode}{mark}", partial(screen.set_mode, mode), MODE_HELP[mode]))
    commands.append(("Filter: all collections", lambda: screen.set_collection_filter(None),
                     "Search every collection"))
    for name in screen.collection_names:
        commands.append((f"Filter: {name}", partial(screen.set_collection_filter, name),
                         f"Search only the collection {name!r}"))
    if not screen.has_sample_collection:
        commands.append(("Add the bundled user guide", screen.action_add_sample,
                         "Index the guide that ships with pms-tui"))
    return commands
