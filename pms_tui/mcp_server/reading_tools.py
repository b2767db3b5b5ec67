"""What the reading tools do: search, get, multi_get, status, explain. Each takes the runner
(for the KnowledgeBase and the model's state) and its checked arguments, runs on the reader
thread, and returns plain JSON data. Text from notes goes through ``safe_text``."""

from __future__ import annotations

import time

from ..core.safe_text import one_line, safe_text
from . import budget, limits, notes
from ..core.results import note_uri


def hit_json(hit) -> dict:
    """The engine's one hit schema, without the passage's whole text, each string on one line."""
    data = {k: one_line(v) if isinstance(v, str) else v for k, v in hit.to_json(with_text=False).items()}
    data["headings"] = [one_line(h) for h in hit.heading_path]
    data["uri"] = note_uri(hit.collection, hit.relpath)
    return data


def search(runner, args: dict) -> dict:
    kb = runner.kb
    query, collections = args["query"], args.get("collections") or None
    k, notes_out = args["k"], []
    vector = args["mode"] == "bm25" or runner.vector_ready()
    started = time.perf_counter()
    result = kb.search(query, k=k, mode=args["mode"], collections=collections, vector=vector)
    if not result and (empty := kb.searcher.empty_index_notice()):
        notes_out.append(empty)
    hits, left_out = budget.fit_hits([hit_json(h) for h in result])
    if left_out:
        notes_out.append(f"{left_out:,} more hits were left out to keep the answer within "
                         f"{budget.DEFAULT_PAGE_CHARS:,} characters; ask with a smaller k or narrower filters.")
    return {
        "hits": hits,
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
    limits.check_notes_or_pattern(args)
    max_bytes = min(args["max_bytes"], notes.MAX_MULTI_BYTES)
    return notes.multi_get(runner.kb, refs, pattern, max_bytes)


def _when(epoch: float | None) -> str | None:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(epoch)) if epoch else None


def status(runner, args: dict) -> dict:
    kb = runner.kb
    cols = []
    for col in kb.collections.list():
        documents, chunks = kb.collections.counts(col)
        cols.append({"name": col.name, "description": one_line(col.description), "folder": one_line(str(col.path)),
                     "notes": documents, "chunks": chunks, "last_sync": _when(col.last_sync),
                     "folder_exists": col.exists, "writable": col.writable})
    stats = kb.stats()
    syncs = [c.last_sync for c in kb.collections.list() if c.last_sync]
    return {
        "collections": cols,
        "notes": stats["documents"], "chunks": stats["chunks"], "vectors": stats["vectors"],
        "vectors_pending": stats["vectors_pending"],
        "model": stats["model"], "model_state": kb.model.state,
        "model_problem": kb.model.mismatch or kb.model.error,
        "last_sync": _when(max(syncs)) if syncs else None,
        "index_bytes": stats["db_bytes"], "read_only": kb.index.read_only,
        "writes_allowed": runner.allow_writes,
    }


def explain(runner, args: dict) -> dict:
    kb = runner.kb
    explanation = kb.searcher.explain(args["query"], notes.find(kb, args["note"]).id,
                             collections=args.get("collections") or None, vector=runner.vector_ready())
    data = explanation.to_json()
    data["lines"] = [safe_text(line, keep="") for line in data["lines"]]
    return data
