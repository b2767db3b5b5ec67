"""What the reading tools do: search, get, multi_get, status, explain. Each takes the runner
(for the KnowledgeBase and the model's state) and its checked arguments, runs on the reader
thread, and returns plain JSON data. Text from notes goes through ``safe_text``."""

from __future__ import annotations

import time

from ..core.errors import UsageError
from ..core.safe_text import one_line, safe_text
from . import budget, notes
from .uris import note_uri

MAX_K = 100
# The engine parses at most 4,000 characters of a query; a longer one is a mistake, said so.
MAX_QUERY_CHARS = 4000


def _query(args: dict) -> str:
    query = args["query"]
    if not query.strip():
        raise UsageError("The query is empty; give words, a \"phrase\" or a filter such as tag:NAME.")
    if len(query) > MAX_QUERY_CHARS:
        raise UsageError(f"The query is {len(query):,} characters long; a query may hold up to {MAX_QUERY_CHARS:,}.")
    return query


def _collections(kb, args: dict) -> list[str] | None:
    names = args.get("collections") or None
    if names:
        known = {c.name for c in kb.collections.list()}
        unknown = [n for n in names if n not in known]
        if unknown:
            listed = ", ".join(sorted(known)) or "none yet"
            raise UsageError(f"There is no collection named {one_line(unknown[0])[:80]!r}; the collections are: {listed}.")
    return names


def hit_json(hit) -> dict:
    return {
        "id": f"{hit.collection}/{hit.relpath}",
        "uri": note_uri(hit.collection, hit.relpath),
        "collection": hit.collection,
        "path": one_line(hit.relpath),
        "title": one_line(hit.title),
        "headings": [one_line(h) for h in hit.heading_path],
        "lines": [hit.start_line, hit.end_line],
        "snippet": one_line(hit.snippet),
        "score": round(hit.score, 4),
        "bm25_rank": hit.bm25_rank,
        "vector_rank": hit.vector_rank,
        "vector_pending": hit.vector_pending,
        "chunk_id": hit.chunk_id,
    }


def search(runner, args: dict) -> dict:
    kb = runner.kb
    query = _query(args)
    collections = _collections(kb, args)
    k, notes_out = args["k"], []
    if k > MAX_K:
        notes_out.append(f"k capped at {MAX_K}")
        k = MAX_K
    vector = args["mode"] == "bm25" or runner.vector_ready()
    started = time.perf_counter()
    result = kb.search(query, k=k, mode=args["mode"], collections=collections, vector=vector)
    if not result and not kb.stats()["chunks"]:
        notes_out.append("the index is empty: the user adds a folder with `pms-tui add PATH` and runs `pms-tui sync`")
    return {
        "hits": [hit_json(h) for h in result],
        "lanes": result.lanes,
        "weak": result.weak,  # no note matches the query well: the hits are only the nearest
        "notes": notes_out + [safe_text(n, keep="") for n in result.notes],
        "filters": [one_line(c) for c in result.query.chips()],
        "ignored": [{"text": one_line(i.text), "reason": one_line(i.reason)} for i in result.query.ignored],
        "ms": round((time.perf_counter() - started) * 1000, 1),
    }


def get(runner, args: dict) -> dict:
    max_chars = min(args["max_chars"], budget.MAX_PAGE_CHARS)
    note = notes.get_note(runner.kb, args["note"], args.get("start_line"), args.get("end_line"),
                          max_chars=max_chars, start_char=args["start_char"])
    if args["max_chars"] > max_chars:
        note["capped"] = f"max_chars capped at {budget.MAX_PAGE_CHARS:,}"
    return note


def multi_get(runner, args: dict) -> dict:
    refs, pattern = args.get("notes"), args.get("pattern")
    if (refs is None) == (pattern is None):
        raise UsageError("Give either notes (a list of ids or paths) or pattern (a glob over ids), not both or neither.")
    max_bytes = min(args["max_bytes"], notes.MAX_MULTI_BYTES)
    return notes.multi_get(runner.kb, refs, pattern, max_bytes)


def _when(epoch: float | None) -> str | None:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(epoch)) if epoch else None


def status(runner, args: dict) -> dict:
    kb = runner.kb
    cols = []
    for col in kb.collections.list():
        documents, chunks = col.counts()
        cols.append({"name": col.name, "description": one_line(col.description), "folder": one_line(str(col.path)),
                     "notes": documents, "chunks": chunks, "last_sync": _when(col.last_sync),
                     "folder_exists": col.exists})
    stats = kb.stats()
    syncs = [c.last_sync for c in kb.collections.list() if c.last_sync]
    return {
        "collections": cols,
        "notes": stats["documents"], "chunks": stats["chunks"], "vectors": stats["vectors"],
        "vectors_pending": stats["vectors_pending"],
        "model": stats["model"], "model_state": kb.model_state,
        "model_problem": kb.model_mismatch or kb.model_error,
        "last_sync": _when(max(syncs)) if syncs else None,
        "index_bytes": stats["db_bytes"], "read_only": kb.store.read_only,
        "writes_allowed": runner.allow_writes,
    }


def explain(runner, args: dict) -> dict:
    kb = runner.kb
    query = _query(args)
    collections = _collections(kb, args)
    note = notes.find(kb, args["note"])
    vector = runner.vector_ready()
    explanation = kb.explain(query, note.id, collections=collections, vector=vector)
    depth = kb.settings.lane_depth
    result = kb.search(query, k=depth, collections=collections, vector=vector)
    rank = next((i for i, h in enumerate(result, 1) if (h.collection, h.relpath) == (note.collection.name, note.relpath)), None)
    data = explanation.to_json()
    data["note"] = note.id
    data["fused_rank"] = rank
    data["lines"] = [safe_text(line, keep="") for line in explanation.lines()]
    data["lines"].insert(1, f"Fused (what search returns): #{rank}" if rank else f"Fused: not in the first {depth}")
    return data
