"""The link graph's tools: links, backlinks (with unlinked mentions), related. Each names a
note as ``get`` does (checked by ``notes.find``, so only indexed notes are looked up) and
returns the engine's JSON (``NoteGraph.to_json``), its strings made inert (``inert``)."""

from __future__ import annotations

from ..core.results import NoteGraph
from . import notes
from .inert import inert


def links(runner, args: dict) -> dict:
    note = notes.find(runner.kb, args["note"])
    return inert(NoteGraph(note.id, links=runner.kb.graph.links(note.id)).to_json())


def backlinks(runner, args: dict) -> dict:
    kb = runner.kb
    note = notes.find(kb, args["note"])
    found = NoteGraph(note.id, backlinks=kb.graph.backlinks(note.id),
                      mentions=kb.graph.mentions(note.id) if args.get("mentions") else None)
    return inert(found.to_json())


def related(runner, args: dict) -> dict:
    kb = runner.kb
    note = notes.find(kb, args["note"])
    ready = runner.vector_ready()
    found = kb.graph.related(note.id, args.get("k", 10)) if ready else []
    data: dict = inert(NoteGraph(note.id, related=found).to_json())
    if not ready:
        data["note_for_you"] = "The embedding model is not ready yet; related notes need it. Ask again shortly."
    elif not data["related"]:
        data["note_for_you"] = "No related notes yet: this note's passages may still be waiting for their vectors."
    return data
