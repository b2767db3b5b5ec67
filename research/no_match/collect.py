"""Signals of "no note matches well" for negative and known-item queries, one JSON line each.

For each collection: its known-item queries (target must stay visible) and its negative
queries (docs/negative-*.jsonl: the answer is in no note), run through the product's hybrid
search. A notes collection is searched on the eval cache's index of its folder (``pms-tui
eval known-item`` builds the same one); a library of documents on a home (``--home``: the R
manuals beside the Obsidian help vault, as ``benchmarks/manuals.py library --home`` builds it),
where a known-item query names its target page (``"page"``: the physical number) and
``--drawn`` adds the page-level queries ``benchmarks/manual_queries.py`` draws from the manuals.

Each line holds the signals ``pms_tui.core.search.match_quality`` reads (the same functions
compute them), the variants tried for documents, whether a passage holds the query as typed
(``exact``: never weak) and the rank of a known-item query's target (its note, or its page):

* ``similarity`` / ``coverage``: the vector lane's and BM25's first passage;
* ``similarity_text`` / ``coverage_text``: their first passage not on a contents or index page;
* ``coverage_page``: the share of the query's words the page of ``coverage_text``'s passage
  holds in any of its passages (a note's passage is its own page);
* ``absent``: the share of the query's words (idf-weighted) that no passage of the index holds.

    PMS_TUI_EVAL_CACHE=... python research/no_match/collect.py \
        til docs/known-item-til.jsonl docs/negative-til.jsonl ../shared/corpora/markdown/jbranchaud-til \
        > signals-til.jsonl
    python research/no_match/collect.py r-manuals docs/known-item-r-manuals.jsonl \
        docs/negative-r-manuals.jsonl --home DIR --drawn > signals-r-manuals.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from pms_tui.core.search import exact_match, lane_trust, match_quality  # noqa: E402
from pms_tui.core.store import chunks as chunk_rows  # noqa: E402
from pms_tui.eval.known_item import TYPED_KIND  # noqa: E402

_PAGE = re.compile(r"PDF page (\d+)\)$|^page (\d+)$")
DRAWN = {"title": 30, "line": 30, "word": 30, "identifier": 30, "quoted": 30}


def read(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _page(heading_path) -> int | None:
    m = _PAGE.search(heading_path[0]) if heading_path else None
    return int(m.group(1) or m.group(2)) if m else None


def drawn() -> list[dict]:
    """A seeded share of the manuals' page-level queries, each kind at most ``DRAWN[kind]``."""
    import manual_queries
    from manuals import MANUALS

    out = []
    rng = random.Random(7)
    every = manual_queries.draw(sorted(MANUALS.glob("*.pdf")))
    for kind, n in DRAWN.items():
        mine = [q for q in every if q["kind"] == kind]
        for i, q in enumerate(rng.sample(mine, min(n, len(mine)))):
            out.append({"qid": f"{kind}-{i:02d}", "query": q["query"], "kind": kind,
                        "targets": [tuple(t) for t in q["targets"]]})
    return out


def variants(kb, parsed, ranked_by) -> dict:
    """The signals measured another way: off the first passage not on a navigation page, and
    over its whole page."""
    conn = kb._store.conn
    sources = kb.retrieval.signal_sources()
    vector = ranked_by.get("vector") or []
    bm25 = ranked_by.get("bm25") or []
    nav = chunk_rows.navigation_ids(conn, list({c for c, _ in vector} | {c for c, _ in bm25}))
    text_vec = next(((c, d) for c, d in vector if c not in nav), None)
    text_bm = next((c for c, _ in bm25 if c not in nav), None)
    out = {"similarity_text": round(1.0 - float(text_vec[1]), 6) if text_vec else None,
           "coverage_text": 0.0 if "bm25" in ranked_by else None, "coverage_page": 0.0 if "bm25" in ranked_by else None}
    if text_bm is not None:
        out["coverage_text"] = lane_trust.coverage(sources, parsed.match_text, text_bm) or 0.0
        page = [r[0] for r in conn.execute(
            "SELECT id FROM chunks WHERE document_id = (SELECT document_id FROM chunks WHERE id = ?) "
            "AND heading = (SELECT heading FROM chunks WHERE id = ?)", (text_bm, text_bm))]
        out["coverage_page"] = lane_trust.coverage_together(sources, parsed.match_text, page) or 0.0
    out["absent"] = lane_trust.absent(sources, parsed.match_text)
    ids = list(dict.fromkeys([c for c, _ in bm25] + [c for c, _ in vector]))
    rows = chunk_rows.hits_by_ids(conn, ids)
    out["exact"] = bool(exact_match.find(parsed, rows, kb.settings.exact_notes).passages)
    return out


def rank(kb, query: str, item: dict, typing: bool) -> int | None:
    if "targets" in item or "page" in item:  # a page of a document
        targets = {tuple(t) for t in item.get("targets") or [(item["target"], item["page"])]}
        seen: list[tuple[str, int | None]] = []
        for hit in kb.search(query, k=30):
            key = (hit.relpath, _page(hit.heading_path))
            if key not in seen:
                seen.append(key)
                if key in targets:
                    return len(seen)
        return None
    notes: list[str] = []
    for hit in kb.search(query, k=30, typing=typing):
        if hit.relpath not in notes:
            notes.append(hit.relpath)
    target = item.get("target", "").lstrip("./")
    return notes.index(target) + 1 if target in notes else None


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("name")
    p.add_argument("known")
    p.add_argument("negative")
    p.add_argument("folder", nargs="?")
    p.add_argument("--home", type=Path)
    p.add_argument("--drawn", action="store_true")
    args = p.parse_args()
    if args.home is not None:
        from pms_tui.core.kb import KnowledgeBase

        kb = KnowledgeBase(home=args.home)
        chunks = kb._store.conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    else:
        from pms_tui.eval import known_item

        kb, build = known_item.open_collection(args.folder, quiet=True)
        chunks = build.chunks
    model = kb.settings.model
    retrieval = kb.retrieval
    known = read(args.known) + (drawn() if args.drawn else [])
    rows = [(q, False) for q in known] + [(q, True) for q in read(args.negative)]
    for item, negative in rows:
        typing = item.get("kind") == TYPED_KIND  # cut mid-word: searched as the app does while typing
        parsed, ranked_by = retrieval.lanes(item["query"], kb.settings.lane_depth, "hybrid", typing=typing)
        similarity, coverage = match_quality.signals(retrieval.signal_sources(), parsed.match_text, ranked_by, None)
        print(json.dumps({
            "collection": args.name, "model": model, "qid": item["qid"], "kind": item.get("kind"),
            "negative": negative, "similarity": similarity, "coverage": coverage,
            **variants(kb, parsed, ranked_by),
            "target_rank": None if negative else rank(kb, item["query"], item, typing), "chunks": chunks,
        }, ensure_ascii=False), flush=True)
    kb.close()


if __name__ == "__main__":
    main()
