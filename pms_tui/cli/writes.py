"""Writing notes from the command line, through ``kb.write`` as the MCP tools do: ``new``,
``append`` (``--start`` to prepend, ``--heading`` for one section), ``set`` (frontmatter
properties), ``mv``, ``rm`` (to the trash), ``history``, ``undo``, ``recent``. Each writes only
in a collection marked writable (``pms-tui collections --writable NAME``), is journaled as the
client ``cli`` and indexed before the command ends (its vectors too, unless ``--no-embed``).

An edit is made from the note's version on disk when the command reads it (``--version``
names another: the edit is refused if the note is no longer that one). Opening the knowledge
base is handed in by ``add_parsers``; ``--json`` prints the engine's ``to_json`` of each result.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable

from .output import add_json_option, emit, say
from ..core.errors import PmsError, UsageError
from ..core.results import Undone, Writes

CLIENT = "cli"


def _text(value: str | None) -> str:
    """The text given, or standard input for ``-`` (or none given)."""
    if value is None or value == "-":
        if sys.stdin is None or sys.stdin.isatty():
            raise UsageError("Give the text as an argument, or pipe it in with '-'.")
        return sys.stdin.read()
    return value


def _property(item: str) -> tuple[str, object]:
    key, sep, raw = item.partition("=")
    if not sep or not key.strip():
        raise UsageError(f"Properties are KEY=VALUE (a JSON value, or text); {item[:80]!r} is not.")
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    return key.strip(), value


def add_parsers(sub, open_kb: Callable) -> None:
    def run(act: Callable) -> Callable[[argparse.Namespace], int]:
        def command(args) -> int:
            with open_kb(args) as kb:
                return act(kb, args)
        return command

    def report(kb, args, result) -> int:
        """A write's result (an undo's: ``Undone``), its vectors made first unless --no-embed."""
        written = result.results if isinstance(result, Undone) else [result]
        if not getattr(args, "no_embed", True):
            try:
                kb.index.embed_pending()
            except PmsError as exc:
                say(f"Searchable by its words; not yet by meaning ({exc})", file=sys.stderr)
        emit(args, result, lambda: say("\n".join(f"{r.message} (write {r.journal}, version {(r.version or '-')[:12]})"
                                                 for r in written)))
        return 0

    def new(kb, args) -> int:
        body = _text(args.body) if args.body is not None else ""
        result = kb.write.create(args.title, args.collection, args.folder or "", body,
                                 properties=dict(_property(p) for p in args.property) or None,
                                 tags=args.tag or None, path=args.path, client=CLIENT)
        return report(kb, args, result)

    def append(kb, args) -> int:
        act = kb.write.prepend if args.start else kb.write.append
        return report(kb, args, act(args.note, _text(args.text), version=args.version, heading=args.heading,
                                    client=CLIENT))

    def section(kb, args) -> int:
        return report(kb, args, kb.write.replace_section(args.note, args.heading, _text(args.text),
                                                         version=args.version, client=CLIENT))

    def set_props(kb, args) -> int:
        values = dict(_property(p) for p in args.property)
        return report(kb, args, kb.write.set_properties(args.note, values, args.remove, version=args.version,
                                                        client=CLIENT))

    def move(kb, args) -> int:
        return report(kb, args, kb.write.move(args.note, args.to, version=args.version,
                                              rewrite_links=not args.keep_links, client=CLIENT))

    def delete(kb, args) -> int:
        return report(kb, args, kb.write.delete(args.note, version=args.version, client=CLIENT))

    def undo(kb, args) -> int:
        return report(kb, args, Undone(kb.write.undo(args.id, client=CLIENT)))

    def listing(entries, args) -> int:
        def human() -> None:
            if not entries:
                say("No writes yet." if args.command == "history" else "Nothing written in that time.")
            for e in entries:
                when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(e.at))
                state = f"  (undone by {e.undone_by})" if e.undone_by else ""
                say(f"{e.id:>5}  {when}  {e.client:<14} {e.tool:<15} {e.note_id}  {e.summary}{state}")

        emit(args, Writes(entries), human)
        return 0

    def history(kb, args) -> int:
        return listing(kb.write.history(args.n, args.note), args)

    def recent(kb, args) -> int:
        return listing(kb.write.recent(args.since, limit=args.n), args)

    def command(name: str, help_text: str, act: Callable, *, embeds: bool = True) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text)
        add_json_option(p)
        if embeds:
            p.add_argument("--no-embed", action="store_true", help="leave the vectors to the next sync")
        p.set_defaults(func=run(act), command=name)
        return p

    def versioned(p: argparse.ArgumentParser) -> None:
        p.add_argument("note", help="the note: collection/path, a file path, or a note's name")
        p.add_argument("--version", help="the version the edit is made from (default: the note on disk now)")

    p = command("new", "create a note in a writable collection (frontmatter: title, tags, properties)", new)
    p.add_argument("title")
    p.add_argument("--collection", "-c", help="default: the only writable one")
    p.add_argument("--folder", help="a folder inside the collection")
    p.add_argument("--path", help="exactly this path inside the collection (instead of the title's slug)")
    p.add_argument("--body", help="the body, or '-' to read it from standard input")
    p.add_argument("--tag", action="append", default=[])
    p.add_argument("--property", "-p", action="append", default=[], metavar="KEY=VALUE")
    p = command("append", "add text at the end of a note (--start: its start; --heading: one section)", append)
    versioned(p)
    p.add_argument("text", nargs="?", help="the text, or '-' (or nothing) to read standard input")
    p.add_argument("--heading", help="the section's heading (\"Tasks\", or \"Project > Tasks\")")
    p.add_argument("--start", action="store_true", help="add it at the start instead")
    p = command("section", "replace the text of one heading's section of a note", section)
    versioned(p)
    p.add_argument("heading")
    p.add_argument("text", nargs="?", help="the new text, or '-' (or nothing) to read standard input")
    p = command("set", "set or remove a note's frontmatter properties", set_props)
    versioned(p)
    p.add_argument("property", nargs="*", metavar="KEY=VALUE")
    p.add_argument("--remove", action="append", default=[], metavar="KEY")
    p = command("mv", "rename or move a note in its collection, rewriting the links to it", move)
    versioned(p)
    p.add_argument("to", help="the new path inside the collection")
    p.add_argument("--keep-links", action="store_true", help="leave the links to it as they are")
    p = command("rm", "move a note to the trash in the home (`pms-tui undo` restores it)", delete)
    versioned(p)
    p = command("undo", "put a note back as it was before a write (default: the newest)", undo)
    p.add_argument("id", nargs="?", type=int, help="the write's number, as history lists it")
    p = command("history", "the writes made through pms-tui, the newest first", history, embeds=False)
    p.add_argument("note", nargs="?", help="only this note's")
    p.add_argument("-n", type=int, default=50, help="at most this many (default 50)")
    p = command("recent", "what was written since a time, by whom", recent, embeds=False)
    p.add_argument("--since", help="an ISO date or time, or a span back: 30m, 2h, 7d (default: 1d)")
    p.add_argument("-n", type=int, default=200, help="at most this many (default 200)")
