"""The link graph's tools: links, backlinks (with unlinked mentions), related. Each names a
note as ``get`` does (checked by ``notes.find``, so only indexed notes are looked up) and
returns plain JSON data; text from notes goes through ``one_line``."""

from __future__ import annotations

from ..core.safe_text import one_line
from . import notes
from ..core.results import note_uri

def _link(link) -> dict:
    data = link.to_json()
    for key in ("source", "source_title", "target", "anchor", "label", "target_path", "target_title", "text"):
        if data.get(key) is not None:
            data[key] = one_line(data[key])
    data["source_id"] = f"{link.collection}/{link.source}"
    data["target_id"] = f"{link.collection}/{link.target_path}" if link.target_path else None
    return data


def links(runner, args: dict) -> dict:
    note = notes.find(runner.kb, args["note"])
    found = runner.kb.graph.links(note.id)
    return {"note": note.id, "count": len(found), "links": [_link(link) for link in found]}


def backlinks(runner, args: dict) -> dict:
    kb = runner.kb
    note = notes.find(kb, args["note"])
    data = {"note": note.id, "backlinks": [_link(link) for link in kb.graph.backlinks(note.id)]}
    if args.get("mentions"):
        data["mentions"] = [
            {**{k: one_line(v) if isinstance(v, str) else v for k, v in m.to_json().items()},
             "id": f"{m.collection}/{m.path}"}
            for m in kb.graph.mentions(note.id)
        ]
    return data


def related(runner, args: dict) -> dict:
    kb = runner.kb
    note = notes.find(kb, args["note"])
    k = args.get("k", 10)
    ready = runner.vector_ready()
    found = kb.graph.related(note.id, k) if ready else []
    data = {"note": note.id, "related": [
        {"id": f"{r.collection}/{r.path}", "uri": note_uri(r.collection, r.path), "title": one_line(r.title),
         "score": round(r.score, 4), "line": r.line, "linked": r.linked, "links_here": r.links_here}
        for r in found
    ]}
    if not ready:
        data["note_for_you"] = "The embedding model is not ready yet; related notes need it. Ask again shortly."
    elif not found:
        data["note_for_you"] = "No related notes yet: this note's passages may still be waiting for their vectors."
    return data
