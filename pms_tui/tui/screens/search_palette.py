"""What the command palette (ctrl+p) offers on the search screen."""

from __future__ import annotations

from functools import partial

from pms_tui.core.results import MODES

from ..commands import Command
from ..controllers.query import HISTORY_PALETTE

MODE_HELP = {
    "hybrid": "Keywords and meaning, fused by reciprocal rank fusion",
    "bm25": "Keywords only (FTS5 BM25)",
    "vector": "Meaning only (the embedding model)",
}


def palette_commands(screen) -> list[Command]:
    """The search screen's commands (``screen``: a SearchScreen, not imported here: it imports
    this module), the search language's, one per mode and per collection filter."""
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
    commands += query_commands(screen)
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


def query_commands(screen) -> list[Command]:
    """The search language's: the view, the sort, the evidence, saved searches and the history."""
    commands: list[Command] = [
        ("View: one row per note" if screen.view == "passages" else "View: every passage",
         screen.action_toggle_view, "Toggle notes / passages (remembered)"),
        (f"Sort: {'by date modified' if screen.sort == 'relevance' else 'by relevance'}",
         screen.action_toggle_sort, "Relevance or most recently modified first"),
        ("Evidence panel: show / hide", screen.action_toggle_evidence, "Why the highlighted hit ranks there"),
        ("Explain the highlighted note's rank", screen.action_explain_note,
         "Its rank in each lane and the words it lacks"),
        ("Explain any note's rank…", screen.action_explain_any_note,
         "Where a note you expected ranks for this query, and why"),
        ("Save this search…", screen.action_save_search, "Run it again later from the palette"),
    ]
    history = screen.historian.history
    if history is not None:
        for item in history.saved_items():
            mark = " (changed)" if item.changed else ""
            commands.append((f"Saved: {item.name}{mark}", partial(screen.run_saved, item.name), item.query))
        for query in history.recent(HISTORY_PALETTE):
            commands.append((f"History: {query}", partial(screen.set_query, query), "Search again"))
    return commands
