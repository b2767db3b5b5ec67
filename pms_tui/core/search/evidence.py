"""Why a hit ranks where it does, and where a given note ranks: the evidence panel and
``pms-tui explain``.

Both are computed on demand (for the selected hit, or the note asked about), never for every
search: each costs a few small FTS5 lookups and, for a note, one scan of the vectors.
"""

from __future__ import annotations

from dataclasses import replace

from ..results import Evidence, Hit, NoteExplanation, SearchResult, note_id
from ..store import cjk, facets, language
from . import query as fts_query
from .filters import fts_quote, plan
from .query_syntax import ParsedQuery


def query_words(parsed: ParsedQuery) -> list[str]:
    """The words a passage is scored by: content words of the text, each once."""
    return list(dict.fromkeys(fts_query.content_words(parsed.text)))


def hit_evidence(retrieval, result: SearchResult, hit: Hit) -> Evidence:
    parsed: ParsedQuery = result.query
    s = retrieval.settings
    conn = retrieval.store.conn
    words = query_words(parsed)
    typing = fts_query.prefix_word(parsed.match_text)  # a prefix in the search, so here too
    expressions = {w: fts_quote(w) + ("*" if w == typing else "") for w in words if not cjk.has_cjk(w)}
    matched = facets.column_matches(conn, hit.chunk_id, expressions) if expressions else {}
    found = {w for ws in matched.values() for w in ws}
    languages = retrieval.bm25.languages(parsed.text)
    said = language.languages_said(fts_query.words(parsed.text), languages)
    stemmed = {w: " OR ".join(fts_quote(t) + ("*" if w == typing else "")
                              for t in language.query_stems(w, languages, said=said))
               for w in expressions if w not in found}
    stemmed = {w: e for w, e in stemmed.items() if e}
    if stemmed:  # found by another inflection: the stems (of title, heading and body) count as body
        held = facets.column_matches(conn, hit.chunk_id, stemmed, columns=("stems",))["stems"]
        if held:
            matched.setdefault("body", []).extend(held)
    for column, ws in _cjk_matches(hit, [w for w in words if cjk.has_cjk(w)]).items():
        matched.setdefault(column, []).extend(ws)
    found = {w for ws in matched.values() for w in ws}
    stems = retrieval.bm25.stems(words)
    fusion = result.fusion
    weights = fusion.weights if fusion else {"bm25": s.bm25_weight, "vector": s.vector_weight}
    lane_k = fusion.k if fusion else {lane: s.rrf_k for lane in result.lanes}
    contributions = {}
    for lane, rank in (("bm25", hit.bm25_rank), ("vector", hit.vector_rank)):
        if rank is not None and lane in weights:
            contributions[lane] = weights[lane] / (lane_k.get(lane, s.rrf_k) + rank)
    queued = bool(getattr(hit, "vector_pending", False))
    why = "" if "vector" in result.lanes else next((n for n in result.notes if "vector" in n), "")
    pending = queued or bool(why)
    return Evidence(
        note=note_id(hit.collection, hit.relpath), start_line=hit.start_line,
        bm25=hit.bm25, bm25_rank=hit.bm25_rank,
        matched={c: ws for c, ws in matched.items() if ws}, stems=stems,
        missing=[w for w in words if w not in found],
        similarity=None if hit.distance is None else round(1.0 - float(hit.distance), 6),
        vector_rank=hit.vector_rank, rrf_k=s.rrf_k,
        contributions={k: round(v, 8) for k, v in contributions.items()},
        rrf=round(sum(contributions.values()), 8),
        filters=parsed.chips(), ignored=[f"{i.text}: {i.reason}" for i in parsed.ignored],
        vector_pending=pending, lane_k=dict(lane_k), fusion=list(fusion.reasons) if fusion else [],
        vector_queued=queued, vector_out=why,
    )


def _cjk_matches(hit: Hit, words: list[str]) -> dict[str, list[str]]:
    """{column: CJK words it holds as written}: the full-text columns hold a CJK run as one
    token (its pairs are in the ``cjk`` column), so these words are looked up in the text."""
    found: dict[str, list[str]] = {}
    columns = {"title": hit.title, "heading": " > ".join(hit.heading_path), "body": hit.text}
    for column, text in columns.items():
        held = [w for w in words if w in text.lower()]
        if held:
            found[column] = held
    return found


def explain_note(retrieval, parsed: ParsedQuery, collection_id: int, relpath: str, note: str,
                 collection_ids=None, *, vector: bool = True) -> NoteExplanation:
    conn = retrieval.store.conn
    s = retrieval.settings
    chunks = facets.note_chunk_ids(conn, collection_id, relpath)
    chunk_ids = [c for c, _ in chunks]
    fplan = plan(parsed, collection_ids, retrieval.collection_map())
    failed = _failed_filters(retrieval, fplan, parsed, chunk_ids)
    words = query_words(parsed)
    bm25_rank = bm25_line = None
    text_match = retrieval.bm25.build_match(parsed.text, prefix=False) if parsed.has_text else None
    if text_match:  # ranked as the lane ranks it (a long text: its strongest phrases)
        text_match = retrieval.bm25.as_ranked(text_match)
    expression = fplan.match(text_match)
    if expression and chunk_ids:
        bm25_rank, best = retrieval.bm25.rank_within(expression, chunk_ids, fplan.resolve(conn).doc_ids)
        bm25_line = _line(retrieval, best)
    missing = []
    if chunk_ids:
        languages = retrieval.bm25.languages(parsed.text)
        said = language.languages_said(fts_query.words(parsed.text), languages)
        for w in words:
            if not facets.any_match(conn, fts_query.word_expression(w, stem_languages=languages, said=said),
                                    chunk_ids):
                missing.append(w)
    vector_rank = similarity = vector_line = None
    if vector and parsed.has_text and chunks and retrieval.embedder.ready and not retrieval.vectors_mismatch():
        import numpy as np

        qvec = retrieval.embedder.embed_query(parsed.text)
        among = None if collection_ids is None else np.array(
            sorted(facets.vector_ids_in_collections(conn, collection_ids)), dtype=np.int64)
        ranked = retrieval.vectors.rank_of(qvec, np.array(sorted({v for _, v in chunks}), dtype=np.int64), among)
        if ranked is not None:
            vid, similarity, vector_rank = ranked
            vector_line = _line(retrieval, next(c for c, v in chunks if v == vid))
            similarity = round(float(similarity), 6)
    return NoteExplanation(
        note=note, query=parsed.to_json(), passes_filters=not failed, failed_filters=failed,
        bm25_rank=bm25_rank, bm25_line=bm25_line, vector_rank=vector_rank, similarity=similarity,
        vector_line=vector_line, missing=missing, lane_depth=s.lane_depth,
        vector_out=retrieval.unread_note(parsed.text) if parsed.has_text else "",
    )


def with_lane_ranks(retrieval, explanation: NoteExplanation, ranked: dict[str, list[tuple[int, float]]],
                    collection_id: int, relpath: str) -> NoteExplanation:
    """``explanation`` with its lane ranks read off the lanes a search fused (``ranked``: each
    lane's (chunk id, score) best first): where the note's best passage is in a lane, its
    rank there is the one the search's hits carry. A note the lane's whole depth left out is
    past it, whatever the count among all passages said."""
    chunks = {c for c, _ in facets.note_chunk_ids(retrieval.store.conn, collection_id, relpath)}
    changes: dict = {}
    for lane, (rank_field, line_field) in (("bm25", ("bm25_rank", "bm25_line")),
                                           ("vector", ("vector_rank", "vector_line"))):
        found = ranked.get(lane)
        if found is None:
            continue
        at = next(((i, c, score) for i, (c, score) in enumerate(found, 1) if c in chunks), None)
        if at is not None:
            changes[rank_field], changes[line_field] = at[0], _line(retrieval, at[1])
            if lane == "vector":
                changes["similarity"] = round(1.0 - float(at[2]), 6)
        elif len(found) >= explanation.lane_depth and getattr(explanation, rank_field) is not None:
            changes[rank_field] = max(getattr(explanation, rank_field), explanation.lane_depth + 1)
    return replace(explanation, **changes)


def _line(retrieval, chunk_id: int | None) -> int | None:
    if chunk_id is None:
        return None
    rows = retrieval.store.conn.execute("SELECT start_line FROM chunks WHERE id = ?", (chunk_id,)).fetchone()
    return rows[0] if rows else None


def _failed_filters(retrieval, fplan, parsed: ParsedQuery, chunk_ids: list[int]) -> list[str]:
    """The chips of the filters this note fails."""
    conn = retrieval.store.conn
    if not chunk_ids:
        return []
    failed = []
    for chip, alone in parsed.singles():
        one = plan(alone, fplan.note.collection_ids, retrieval.collection_map()).resolve(conn)
        allowed = facets.chunks_of_documents(conn, one.doc_ids, one.words(), one.excluded(), among=chunk_ids)
        if not allowed:
            failed.append(chip)
    return failed
