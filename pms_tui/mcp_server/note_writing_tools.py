"""The tools that write notes, off unless the server was started with ``--allow-writes``,
and then only in the collections the person marked writable (``pms-tui collections
--writable NAME``): create_note, edit_note, move_note, delete_note, undo; and ``recent``, what
was written lately and by whom. Each calls ``kb.write`` (the engine's one writer, which
refuses what it may not do in one sentence); each edit names the version of the note it was
made from, the ``version`` that ``get`` returns, and a note that changed since is not written.

A written note is searchable by its words when the call returns; its vectors are computed
behind the answer (``runner.embed_behind``), so it is found by meaning seconds later.
"""

from __future__ import annotations

from ..core.results import Undone, Writes
from ..core.safe_text import one_line
from .inert import inert

MAX_TEXT_CHARS = 1_000_000  # the schema's bound; the engine's max_write_kb bounds the note's bytes
VERSION = {"type": "string", "pattern": "^[0-9a-fA-F]{64}$",
           "description": "The note's version the edit is made from: the version get returned (64 hex digits). "
                          "If the note changed since, nothing is written and the error gives the version now and "
                          "what differs."}
NOTE = {"type": "string", "maxLength": 4096,
        "description": "The note: its id (collection/path), a path inside a collection's folder, or its "
                       "pms://note/ URI."}
EDIT_ACTIONS = ("append", "prepend", "replace_section", "replace_text", "set_properties")


def _client(runner) -> str:
    name = getattr(runner, "client", None)
    return f"mcp:{one_line(name)[:60]}" if name else "mcp"


def _done(runner, result) -> dict:
    data: dict = inert(result.to_json())
    ready = runner.kb.model.ready
    runner.embed_behind()  # now, or once the model has loaded
    if ready:
        data["searchable"] = "by its words now; by meaning once its passages are embedded, in seconds"
    else:
        data["searchable"] = "by its words now; by meaning once the embedding model has loaded"
    return data


def create_note(runner, args: dict) -> dict:
    result = runner.kb.write.create(
        args["title"], args.get("collection"), args.get("folder") or "", args.get("body") or "",
        properties=args.get("properties"), tags=args.get("tags"), path=args.get("path"), client=_client(runner))
    return _done(runner, result)


def edit_note(runner, args: dict) -> dict:
    write, note, version, client = runner.kb.write, args["note"], args["version"], _client(runner)
    action = args["action"]
    if action in ("append", "prepend"):
        run = write.append if action == "append" else write.prepend
        result = run(note, args.get("text", ""), version=version, heading=args.get("heading"), client=client)
    elif action == "replace_section":
        result = write.replace_section(note, args.get("heading", ""), args.get("text", ""), version=version,
                                       client=client)
    elif action == "replace_text":
        result = write.replace_text(note, args.get("old_text", ""), args.get("text", ""), count=args["count"],
                                    version=version, client=client)
    else:
        result = write.set_properties(note, args.get("properties"), args.get("remove"), version=version,
                                      client=client)
    return _done(runner, result)


def move_note(runner, args: dict) -> dict:
    result = runner.kb.write.move(args["note"], args["to"], version=args["version"],
                                  rewrite_links=args["rewrite_links"], client=_client(runner))
    return _done(runner, result)


def delete_note(runner, args: dict) -> dict:
    result = runner.kb.write.delete(args["note"], version=args["version"], client=_client(runner))
    return _done(runner, result)


def undo(runner, args: dict) -> dict:
    results = runner.kb.write.undo(args.get("journal_id"), client=_client(runner))
    if runner.kb.model.ready:
        runner.embed_behind()
    return inert(Undone(results).to_json())


def recent(runner, args: dict) -> dict:
    entries = runner.kb.write.recent(args.get("since"), limit=args["limit"])
    return inert(Writes(entries).to_json())


def _text(description: str, max_length: int = MAX_TEXT_CHARS) -> dict:
    return {"type": "string", "maxLength": max_length, "description": description}


# The specs (tools.ToolSpec's fields), read by tools.py into its WRITING list.
SPECS: list[dict] = [
    dict(
        name="create_note", title="Create a note", run=create_note, required=("title",), writes=True,
        description="Create a Markdown note in a writable collection: YAML frontmatter (title, tags, properties), "
                    "then the body. Its file name is the title's slug (numbered when taken) in folder, or exactly "
                    "path. Returns its id and version; searchable by its words at once.",
        properties={
            "title": _text("The note's title (1 to 300 characters, one line).", 300),
            "collection": _text("The collection (default: the only writable one).", 64),
            "folder": _text("A folder inside the collection (created when missing), e.g. ideas/2026.", 1024),
            "path": _text("Exactly this path inside the collection instead (ending .md); refused when taken.", 1024),
            "body": _text("The Markdown body (up to max_write_kb, 1,024 KB by default, for the whole note)."),
            "tags": {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 200},
                     "maxItems": 100, "description": "Tags for the frontmatter."},
            "properties": {"type": "object", "description": "More frontmatter properties (name: JSON value)."},
        },
    ),
    dict(
        name="edit_note", title="Edit a note", run=edit_note, required=("note", "version", "action"), writes=True,
        description="Edit a note in a writable collection, made from the version get returned: append or prepend "
                    "text (to the note, or to one heading's section with heading), replace_section (the text "
                    "under heading), replace_text (old_text -> text, occurring exactly count times), "
                    "set_properties (properties to set, remove to remove). Every byte outside the change stays; "
                    "refused with the version now and a diff when the note changed since.",
        properties={
            "note": NOTE, "version": VERSION,
            "action": {"type": "string", "enum": list(EDIT_ACTIONS), "description": "What to change."},
            "text": _text("The text to add, the section's new text, or replace_text's replacement."),
            "heading": _text("A heading's text (\"Tasks\", or \"Project > Tasks\" when several share it).", 400),
            "old_text": _text("replace_text: the exact passage to replace."),
            "count": {"type": "integer", "minimum": 1, "maximum": 10_000, "default": 1,
                      "description": "replace_text: how many times old_text occurs (the edit is refused otherwise)."},
            "properties": {"type": "object", "description": "set_properties: name -> JSON value."},
            "remove": {"type": "array", "items": {"type": "string"}, "maxItems": 100,
                       "description": "set_properties: property names to remove."},
        },
    ),
    dict(
        name="move_note", title="Rename or move a note", run=move_note, required=("note", "version", "to"),
        writes=True,
        description="Rename or move a note within its writable collection (to: its new path; .md added when "
                    "missing). With rewrite_links (default), the wikilinks and Markdown links to it in the "
                    "collection are rewritten to its new name, as Obsidian does.",
        properties={"note": NOTE, "version": VERSION, "to": _text("The new path inside the collection.", 1024),
                    "rewrite_links": {"type": "boolean", "default": True,
                                      "description": "Rewrite the links that lead to the note."}},
    ),
    dict(
        name="delete_note", title="Delete a note", run=delete_note, required=("note", "version"), writes=True,
        description="Move a note of a writable collection to the trash in the pms-tui home (never erased: undo "
                    "or `pms-tui undo` restores it).",
        properties={"note": NOTE, "version": VERSION},
    ),
    dict(
        name="undo", title="Undo a write", run=undo, writes=True,
        description="Put a note back as it was before one write (journal_id, as writes return it; default the "
                    "newest not undone); a move is undone with the links it rewrote. Refused when the note "
                    "changed since that write.",
        properties={"journal_id": {"type": "integer", "minimum": 1, "description": "The write to undo."}},
    ),
    dict(
        name="recent", title="Recent writes", run=recent, writes=True,
        description="What was written through pms-tui since a time (default: the last day), the newest first: "
                    "when, which client and tool, the note, its versions before and after.",
        properties={"since": _text("An ISO date or time (2026-05-01T14:00) or a span back (30m, 2h, 7d).", 64),
                    "limit": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 50,
                              "description": "At most this many writes."}},
    ),
]
