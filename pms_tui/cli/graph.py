"""The link graph on the command line: ``pms-tui links NOTE``, ``backlinks NOTE`` and
``related NOTE`` (each with ``--json``), and the link counts ``status`` and ``doctor`` show.

The helpers it needs from ``cli`` (opening the knowledge base, printing safely) are handed in
by ``add_parsers``, so this module never imports ``cli`` (no import cycle).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

NOTE_HELP = "the note: collection/relative-path, a file path, a note's name or alias, or its pms://note/ URI"


def link_summary(counts: dict[str, int]) -> str:
    """``links: 1,549 resolved, 9 dangling, 0 ambiguous (251 to files)`` for one collection."""
    resolved, dangling, ambiguous = (counts.get(k, 0) for k in ("resolved", "dangling", "ambiguous"))
    extra = [f"{counts[k]:,} {label}" for k, label in (("file", "to files"), ("outside", "leaving the folder"),
                                                        ("pending", "not resolved yet")) if counts.get(k)]
    return (f"links: {resolved:,} resolved, {dangling:,} dangling, {ambiguous:,} ambiguous"
            + (f" ({', '.join(extra)})" if extra else ""))


def add_parsers(sub, open_kb: Callable, say: Callable, print_json: Callable) -> None:
    def run(show: Callable) -> Callable[[argparse.Namespace], int]:
        def command(args) -> int:
            with open_kb(args) as kb:
                return show(kb, args)
        return command

    def links(kb, args) -> int:
        found = kb.graph.links(args.note)
        if args.json:
            print_json([link.to_json() for link in found])
            return 0
        for link in found:
            where = (f"{link.target_path}:{link.target_line}" if link.resolved else f"({link.status})")
            shown = link.target + (f"#{link.anchor}" if link.anchor else "")
            say(f"{link.line:>5}  {'!' if link.embed else ' '}{shown}  ->  {where}")
        if not found:
            say("No links in this note.")
        return 0

    def backlinks(kb, args) -> int:
        found = kb.graph.backlinks(args.note)
        mentions = kb.graph.mentions(args.note) if args.mentions else []
        if args.json:
            data: dict = {"backlinks": [link.to_json() for link in found]}
            if args.mentions:
                data["mentions"] = [m.to_json() for m in mentions]
            print_json(data if args.mentions else data["backlinks"])
            return 0
        for link in found:
            say(f"{link.source}:{link.line}  {link.text.strip()}")
        if not found:
            say("No note links here.")
        if args.mentions:
            say(f"Unlinked mentions ({len(mentions)}):")
            for m in mentions:
                say(f"  {m.path}:{m.line}  {m.text}")
        return 0

    def related(kb, args) -> int:
        found = kb.graph.related(args.note, args.k)
        if args.json:
            print_json([note.to_json() for note in found])
            return 0
        for note in found:
            marks = ("links to it" if note.linked else "") + (", " if note.linked and note.links_here else "") + \
                ("links here" if note.links_here else "")
            say(f"{note.score:.3f}  {note.collection}/{note.path}" + (f"  ({marks})" if marks else ""))
        if not found:
            say("No related notes yet (the note's passages may still wait for their vectors: `pms-tui sync`).")
        return 0

    p = sub.add_parser("links", help="the links a note makes and where each leads")
    p.add_argument("note", help=NOTE_HELP)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run(links))
    p = sub.add_parser("backlinks", help="the notes linking to a note, each with the line that links")
    p.add_argument("note", help=NOTE_HELP)
    p.add_argument("--mentions", action="store_true", help="also notes naming it without a link")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run(backlinks))
    p = sub.add_parser("related", help="the notes nearest to a note in meaning")
    p.add_argument("note", help=NOTE_HELP)
    p.add_argument("-k", type=int, default=10)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run(related))
