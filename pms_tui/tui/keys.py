"""Key bindings, each with an id so a person can remap it, and the names hints show for them.

Hints never spell a key: they ask :func:`bound_key` (through ``PmsApp.key_name``), so a key
remapped in config.toml is named as remapped everywhere.

Every key here works while the search bar has focus: none of them is bound by
:class:`textual.widgets.Input` (which takes ctrl+a/e/k/u/w/d/x/c/v, home/end, arrows left
and right, backspace and delete). ctrl+h, ctrl+i, ctrl+j and ctrl+m are avoided because
terminals send them as backspace, tab and enter; ctrl+b and ctrl+a because terminal
multiplexers take them as their prefix (tmux, screen) and the app would never see them.

Remap in ``config.toml``::

    [keys]
    "app.sync" = "f5"
    "app.open_editor" = "ctrl+e,f4"
"""

from __future__ import annotations

from collections.abc import Mapping

from textual.binding import Binding

# global keys, on the App: they work on every screen
_HELP = Binding("f1", "help", "Help", id="app.help", tooltip="List the keys")
_QUIT = Binding("ctrl+q", "quit", "Quit", id="app.quit", priority=True, tooltip="Quit")
APP_BINDINGS: list[Binding] = [_HELP, _QUIT]
_CLEAR = Binding("escape", "clear", "Back/Clear", id="app.clear", show=False,
                 tooltip="Back to the search bar; again to clear the query")

# keys of the search screen (the ids keep their "app." prefix: people's config.toml names them)
SEARCH_BINDINGS: list[Binding] = [
    # help again, first: the footer lists the screen's keys before the app's, and at 80 columns
    # the last ones fall off its end; the key to the list of every key must stay
    Binding("f1", "app.help", "Help", id="app.help", tooltip="List the keys"),
    Binding("ctrl+s", "sync", "Sync", id="app.sync", tooltip="Index what changed in the collections"),
    Binding("ctrl+z", "stop_sync", "Stop", id="app.stop_sync", show=False,
            tooltip="Stop a running sync or embedding (what is written stays; the next sync carries on), "
                    "or a page being clipped"),
    Binding("ctrl+o", "clip", "Clip", id="app.clip", tooltip="Save a web page as a note"),
    Binding("ctrl+n", "add_collection", "Add folder", id="app.add_collection",
            tooltip="Add a folder of notes as a collection"),
    Binding("ctrl+t", "cycle_mode", "Mode", id="app.cycle_mode", tooltip="Search mode: hybrid, bm25, vector"),
    Binding("ctrl+l", "cycle_collection", "Filter", id="app.cycle_collection",
            tooltip="Search all collections or one of them"),
    Binding("ctrl+r", "toggle_document", "Chunk/Note", id="app.toggle_document",
            tooltip="Show the matched chunk or the whole note"),
    Binding("ctrl+g", "open_editor", "Edit", id="app.open_editor", tooltip="Open the note in $EDITOR at the chunk"),
    Binding("ctrl+y", "copy_chunk", "Copy", id="app.copy_chunk", tooltip="Copy the chunk's text"),
    Binding("ctrl+f", "copy_path", "Copy path", id="app.copy_path", show=False, tooltip="Copy the note's path"),
    Binding("f3", "toggle_view", "Notes/Passages", id="app.toggle_view", show=False,
            tooltip="One row per note, or every matching passage (remembered)"),
    Binding("f4", "toggle_evidence", "Why", id="app.toggle_evidence", show=False,
            tooltip="The evidence panel: why the highlighted hit ranks where it does"),
    Binding("f12", "toggle_sort", "Sort", id="app.toggle_sort", show=False,
            tooltip="By relevance or most recently modified"),
    Binding("f6", "links('panel')", "Links", id="app.toggle_links", show=False,
            tooltip="The links panel: outline, links, backlinks, mentions and related notes of the note read"),
    Binding("alt+left,f7", "links('back')", "Back", id="app.link_back", show=False,
            tooltip="Back to the note read before following a link"),
    Binding("alt+right,f8", "links('forward')", "Forward", id="app.link_forward", show=False,
            tooltip="Forward again along the links followed"),
    Binding("ctrl+up", "history_back", "Older query", id="app.history_back", show=False,
            tooltip="Bring back an older query from the history"),
    Binding("ctrl+down", "history_forward", "Newer query", id="app.history_forward", show=False,
            tooltip="A newer query from the history"),
    _CLEAR,
    # the arrows move the results while the search bar has focus (Input does not bind them)
    Binding("down", "select_next", "Next result", show=False),
    Binding("up", "select_previous", "Previous result", show=False),
    Binding("pagedown", "select_page_down", "Page down", show=False),
    Binding("pageup", "select_page_up", "Page up", show=False),
]

RESULTS_BINDINGS: list[Binding] = [
    Binding("j", "cursor_down", "Next result", show=False, id="results.down"),
    Binding("k", "cursor_up", "Previous result", show=False, id="results.up"),
    Binding("space", "toggle_expand", "More passages", show=False, id="results.expand",
            tooltip="Show or hide a note's other matching passages"),
    Binding("s", "screen.toggle_sort", "Sort", show=False, id="results.sort",
            tooltip="By relevance or most recently modified"),
    Binding("v", "screen.toggle_view", "Notes/Passages", show=False, id="results.view",
            tooltip="One row per note, or every matching passage"),
    Binding("e", "screen.explain_note", "Explain", show=False, id="results.explain",
            tooltip="Where the highlighted note ranks in each lane, and the words it lacks"),
]


MULTIPLEXER_KEYS = ("ctrl+b", "ctrl+a")  # tmux's and screen's prefix: never bound here

# every binding with an id, in the order the help screen lists them
ALL_BINDINGS: list[Binding] = [
    *(b for b in SEARCH_BINDINGS if b.id and b.id != _HELP.id and b is not _CLEAR), _HELP, _CLEAR, _QUIT,
    *RESULTS_BINDINGS,
]
PALETTE = "command_palette"  # Textual's own binding (no id): App.COMMAND_PALETTE_BINDING


def bound_key(binding_id: str, keymap: Mapping[str, str], palette_key: str = "ctrl+p") -> str:
    """The first key that triggers ``binding_id`` now, remaps applied, as a person writes it
    (``ctrl+s``, ``f5``): the name to put in a hint."""
    if binding_id == PALETTE:
        return palette_key
    keys = keymap.get(binding_id) or next((b.key for b in ALL_BINDINGS if b.id == binding_id), "")
    if not keys:
        raise KeyError(binding_id)
    return keys.split(",")[0].strip()


def keymap_from_settings(table: object) -> tuple[dict[str, str], list[str]]:
    """The ``[keys]`` table of config.toml as a keymap, and sentences about bad entries."""
    if not isinstance(table, Mapping):
        return {}, ["The [keys] table of config.toml must map binding ids to keys."] if table else []
    known = {b.id for b in ALL_BINDINGS if b.id}
    keymap: dict[str, str] = {}
    problems: list[str] = []
    for binding_id, keys in table.items():
        if binding_id not in known:
            problems.append(f"Unknown key binding id {binding_id!r} in config.toml.")
        elif isinstance(keys, str) and keys.strip():
            keymap[binding_id] = keys.replace(" ", "")
        elif isinstance(keys, list) and all(isinstance(k, str) for k in keys) and keys:
            keymap[binding_id] = ",".join(k.strip() for k in keys)
        else:
            problems.append(f"The keys of {binding_id!r} in config.toml must be a string like \"ctrl+e\".")
    return keymap, problems
