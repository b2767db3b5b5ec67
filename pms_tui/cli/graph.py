"""The link graph on the command line: ``pms-tui links NOTE``, ``backlinks NOTE`` and
``related NOTE`` (each with ``--json``), and the link counts ``status`` and ``doctor`` show.

Opening the knowledge base is handed in by ``add_parsers``, so this module never imports
``cli`` (no import cycle); each prints through ``output`` (``--json``: ``NoteGraph.to_json``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from .output import add_json_option, emit, say
from ..core.results import NoteGraph, note_id

NOTE_HELP = "the note: collection/relative-path, a file path, a note's name or alias, or its pms://note/ URI"


def link_summary(counts: dict[str, int]) -> str:
    """``links: 1,549 resolved, 9 dangling, 0 ambiguous (251 to files)`` for one collection."""
    resolved, dangling, ambiguous = (counts.get(k, 0) for k in ("resolved", "dangling", "ambiguous"))
    extra = [f"{counts[k]:,} {label}" for k, label in (("file", "to files"), ("outside", "leaving the folder"),
                                                        ("pending", "not resolved yet")) if counts.get(k)]
    return (f"links: {resolved:,} resolved, {dangling:,} dangling, {ambiguous:,} ambiguous"
            + (f" ({', '.join(extra)})" if extra else ""))


def add_parsers(sub, open_kb: Callable) -> None:
    def run(show: Callable) -> Callable[[argparse.Namespace], int]:
        def command(args) -> int:
            with open_kb(args) as kb:
                return show(kb, args)
        return command

    def links(kb, args) -> int:
        found = NoteGraph(kb.notes.note(args.note).id, links=kb.graph.links(args.note))

        def human() -> None:
            for link in found.links or []:
                where = (f"{link.target_path}:{link.target_line}" if link.resolved else f"({link.status})")
                shown = link.target + (f"#{link.anchor}" if link.anchor else "")
                say(f"{link.line:>5}  {'!' if link.embed else ' '}{shown}  ->  {where}")
            if not found.links:
                say("No links in this note.")

        emit(args, found, human)
        return 0

    def backlinks(kb, args) -> int:
        found = NoteGraph(kb.notes.note(args.note).id, backlinks=kb.graph.backlinks(args.note),
                          mentions=kb.graph.mentions(args.note) if args.mentions else None)

        def human() -> None:
            for link in found.backlinks or []:
                say(f"{link.source}:{link.line}  {link.text.strip()}")
            if not found.backlinks:
                say("No note links here.")
            if found.mentions is not None:
                say(f"Unlinked mentions ({len(found.mentions)}):")
                for m in found.mentions:
                    say(f"  {m.path}:{m.line}  {m.text}")

        emit(args, found, human)
        return 0

    def related(kb, args) -> int:
        found = NoteGraph(kb.notes.note(args.note).id, related=kb.graph.related(args.note, args.k))

        def human() -> None:
            for note in found.related or []:
                marks = ("links to it" if note.linked else "") + (", " if note.linked and note.links_here else "") + \
                    ("links here" if note.links_here else "")
                say(f"{note.score:.3f}  {note_id(note.collection, note.path)}" + (f"  ({marks})" if marks else ""))
            if not found.related:
                say("No related notes yet (the note's passages may still wait for their vectors: `pms-tui sync`).")

        emit(args, found, human)
        return 0

    p = sub.add_parser("links", help="the links a note makes and where each leads")
    p.add_argument("note", help=NOTE_HELP)
    add_json_option(p)
    p.set_defaults(func=run(links))
    p = sub.add_parser("backlinks", help="the notes linking to a note, each with the line that links")
    p.add_argument("note", help=NOTE_HELP)
    p.add_argument("--mentions", action="store_true", help="also notes naming it without a link")
    add_json_option(p)
    p.set_defaults(func=run(backlinks))
    p = sub.add_parser("related", help="the notes nearest to a note in meaning")
    p.add_argument("note", help=NOTE_HELP)
    p.add_argument("-k", type=int, default=10)
    add_json_option(p)
    p.set_defaults(func=run(related))
