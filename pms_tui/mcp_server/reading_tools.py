"""What the reading tools do: search, get, multi_get, status, explain. Each takes the runner
(for the KnowledgeBase and the model's state) and its checked arguments, runs on the reader
thread, and returns the engine's JSON (each result's ``to_json``), its strings made inert (``inert``)."""

from __future__ import annotations

import time

from ..core.results import IndexStatus
from . import budget, limits, notes
from .inert import inert


def search(runner, args: dict) -> dict:
    """The engine's ``SearchResult.to_json``, each hit without its passage's whole text (its
    snippet is there), as many hits as fit a result (``budget.fit_hits``), and how long it took."""
    kb = runner.kb
    query, collections = args["query"], args.get("collections") or None
    k, notes_out = args["k"], []
    vector = args["mode"] == "bm25" or runner.vector_ready()
    started = time.perf_counter()
    result = kb.search(query, k=k, mode=args["mode"], collections=collections, vector=vector)
    if not result and (empty := kb.searcher.empty_index_notice()):
        notes_out.append(empty)
    data: dict = inert(result.to_json(with_text=False))
    data["hits"], left_out = budget.fit_hits(data["hits"])
    if left_out:
        notes_out.append(f"{left_out:,} more hits were left out to keep the answer within "
                         f"{budget.DEFAULT_PAGE_CHARS:,} characters; ask with a smaller k or narrower filters.")
    data["notes"] = notes_out + data["notes"]
    data["ms"] = round((time.perf_counter() - started) * 1000, 1)
    return data


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


def status(runner, args: dict) -> dict:
    """The engine's ``IndexStatus.to_json``, and whether this server's writing tools are on."""
    return {**inert(IndexStatus.of(runner.kb).to_json()), "writes_allowed": runner.allow_writes}


def explain(runner, args: dict) -> dict:
    kb = runner.kb
    explanation = kb.searcher.explain(args["query"], notes.find(kb, args["note"]).id,
                             collections=args.get("collections") or None, vector=runner.vector_ready())
    return inert(explanation.to_json())
