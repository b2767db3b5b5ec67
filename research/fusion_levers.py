"""Levers on the lanes and on their fusion, measured offline.

    python research/fusion_levers.py --beir DIR [--beir DIR ...] --known-item FILE DIR [...]

Each collection is indexed (or its cached index reused) by ``pms-tui eval``'s own code. Per
query, its two lanes and the two query-aware signals are taken as ``search`` ranks them
(``Retrieval.lanes``, at ``pms-tui eval``'s depth: BEIR 300, known-item 50), with the query's
vector, every passage's vector (the vector lane's in-memory mirror) and the query coverage of
each BM25 passage (``lane_trust.coverages``). Every lever below is then fused with the
product's ``fuse`` and ``lane_trust.decide`` (the default thresholds), documents at their best passage, and scored
per group (a collection, and each query kind of a known-item set):

* ``prf-vector m b``: Rocchio feedback in the vector lane: the query vector plus ``b`` times
  the mean of the vector lane's first ``m`` passages, scanned again (the first lane replaced).
* ``prf-fused m b``: the same, the feedback taken from the fused ranking's first ``m``.
* ``doc-mean``: a passage scores the better of its own cosine and its note's (the mean of
  the note's passage vectors, normalised).
* ``semantic-floor g``: BM25 passages whose cosine is more than ``g`` below the vector
  lane's first leave the BM25 lane.
* ``coverage-floor f``: BM25 passages holding less than ``f`` of the query's idf leave it.
* ``bm25-cut n``: when BM25 does not hold the query, only its first ``n`` passages are fused.
* ``vector-trust k``: when BM25 does not hold the query and the vector lane's first note is
  not among BM25's first 50 passages, the vector lane's ranks count with k (instead of RRF's).

Aimed at the shape of the losses left at k 3:

* ``vector-margin t k``: when the vector lane's first note is more similar to the query than
  its second note by ``t`` (cosine) or more, the vector lane's ranks count with k.
* ``bm25-weight w``: BM25's weight ``w`` before the rule (the vector lane's is 1).
* ``notes``: each lane ranks notes (at their best passage) and the notes are fused.
* ``note-sum b``: a note scores its best passage's RRF plus ``b`` times its other passages'.
* ``note-inherit b``: a passage missing from one lane adds ``b`` times what its note's best
  passage there earns (a note's evidence split over two passages is counted once).

What is left to choose inside RRF itself:

* ``tie by``: RRF's ties (a passage only one lane found against another lane's passage at the
  same rank, whenever both lanes count with one k) broken by ``by`` instead of by the better
  best rank and then the lower id: ``cosine`` (the passage's similarity to the query),
  ``vector`` or ``bm25`` (that lane's passage first).
* ``depth b v``: only BM25's first ``b`` and the vector lane's first ``v`` passages are fused
  (the signals still measured on the whole lanes).
* ``vector-k k``: the vector lane's ranks always count with ``k``, BM25's with RRF's (``--rrf-k``)
  or the rule's confident k.

``--levers NAME ...`` runs only the levers of those names (``plain`` and ``default`` always).

Prints one line per collection and lever: the headline metric (nDCG@10 or MRR@10) of every
group and, after ``below:``, each group where the fusion is below the better of its lanes.
Takes a few minutes once the indexes exist.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from pms_tui.core.config import Settings  # noqa: E402
from pms_tui.core.search import lane_trust  # noqa: E402
from pms_tui.core.search.fusion import fuse  # noqa: E402
from pms_tui.core.search.query_syntax import parse  # noqa: E402
from pms_tui.core.search.retrieval import as_text  # noqa: E402
from pms_tui.core.store import facets  # noqa: E402
from pms_tui.eval import beir, known_item, metrics  # noqa: E402

import fusion_cv  # noqa: E402  (research/fusion_cv.py)

DEFAULT = lane_trust.Thresholds.of(Settings())
RRF_K = Settings.rrf_k  # ``--rrf-k 60``: the levers at the customary k


class Lanes(fusion_cv.Collection):
    """A collection's cached lanes plus what the levers need: vectors and BM25 coverages."""

    def attach(self, kb, queries: list[tuple[str, str]]) -> "Lanes":
        ids, matrix = kb.retrieval.vectors.snapshot()
        pairs = facets.chunks_of_documents(kb._store.conn, None)
        rows = np.searchsorted(ids, [v for _, v in pairs])
        found = [(c, r) for (c, v), r in zip(pairs, rows) if r < len(ids) and ids[r] == v]
        self.chunk_ids = np.array([c for c, _ in found], dtype=np.int64)
        self.vector_ids = ids[[r for _, r in found]]
        self.matrix = matrix[[r for _, r in found]]
        self.row_of = {c: i for i, c in enumerate(self.chunk_ids.tolist())}
        for qid, query in queries:
            lanes = self.lanes[qid]
            text = query_text(query)
            lanes["qvec"] = (np.asarray(kb.retrieval.embedder.embed_query(text), dtype=np.float32)
                             if text.strip() else None)
            passages = [c for c, _ in lanes["bm25"]]
            lanes["cov"] = lane_trust.coverages(kb.retrieval.signal_sources(), text, passages) or {}
        return self

    def scan(self, qvec, depth: int, scores=None) -> list[int]:
        scores = self.matrix @ qvec if scores is None else scores
        depth = min(depth, len(scores))
        top = np.argpartition(-scores, depth - 1)[:depth]
        top = top[np.lexsort((self.chunk_ids[top], -scores[top]))]
        return self.chunk_ids[top].tolist()

    def note_means(self):
        """Per passage row, the row of its note's mean vector (normalised), and those vectors."""
        if not hasattr(self, "_means"):
            by_note = defaultdict(list)
            for i, c in enumerate(self.chunk_ids.tolist()):
                by_note[self.docs.get(c)].append(i)
            notes = list(by_note)
            means = np.stack([self.matrix[by_note[n]].mean(axis=0) for n in notes])
            means /= np.linalg.norm(means, axis=1, keepdims=True)
            where = {n: j for j, n in enumerate(notes)}
            self._means = (np.array([where[self.docs.get(c)] for c in self.chunk_ids.tolist()]), means)
        return self._means


def query_text(query: str) -> str:
    """The words ``search`` ranks by (the search language parsed, as ``Retrieval`` does)."""
    return parse(as_text(query)).text


def fusion_of(lanes: dict, ids: dict[str, list[int]], bm25_weight: float = 1.0, *,
              plain: bool = False) -> lane_trust.Fusion:
    """The product's per-query k and weights: from the default thresholds (``lanes`` gives
    coverage and gap), or plain."""
    weights = {"bm25": bm25_weight, "vector": 1.0}
    return (lane_trust.plain(ids, RRF_K, weights) if plain else
            lane_trust.decide(lane_trust.Signals(lanes["coverage"], lanes["gap"]), ids, RRF_K, weights, DEFAULT))


def fused(lanes: dict, bm25: list[int], vector: list[int], vector_k: int | None = None, *,
          plain: bool = False, bm25_weight: float = 1.0) -> list[int]:
    """The product's RRF of the two rankings (``fusion_of``), the vector lane's k replaced
    when ``vector_k`` is given."""
    ids = {"bm25": bm25, "vector": vector}
    fusion = fusion_of(lanes, ids, bm25_weight, plain=plain)
    k = dict(fusion.k)
    if vector_k is not None:
        k["vector"] = vector_k
    return [f.chunk_id for f in fuse(ids, k, fusion.weights)]


def first_per_note(col: Lanes, ranked: list) -> dict:
    """{note: (its rank among notes, its best passage's entry)} in one lane's order."""
    out: dict = {}
    for entry in ranked:
        note = col.docs.get(entry if isinstance(entry, int) else entry[0])
        if note not in out:
            out[note] = (len(out) + 1, entry)
    return out


def note_levers(col: Lanes, name: str, arg: float, lanes: dict, bm25: list[int], vector: list[int]) -> list[int]:
    """The levers that count a note's evidence over its passages."""
    ids = {"bm25": bm25, "vector": vector}
    fusion = fusion_of(lanes, ids)
    k, w = fusion.k, fusion.weights
    per_note = {lane: first_per_note(col, ids[lane]) for lane in ids}
    if name == "notes":  # fused over notes, each shown at the first lane's best passage of it
        notes = list(dict.fromkeys([*per_note["vector"], *per_note["bm25"]]))
        number = {note: i for i, note in enumerate(notes)}
        order = fuse({lane: [number[n] for n in per_note[lane]] for lane in ids}, k, w)
        shown = {n: (per_note["vector"].get(n) or per_note["bm25"][n])[1] for n in notes}
        return [shown[notes[f.chunk_id]] for f in order]
    scores: dict[int, float] = {}
    best_of_note: dict = {}
    for f in fuse(ids, k, w):
        note = col.docs.get(f.chunk_id)
        if name == "note-sum":
            if note in best_of_note:
                scores[best_of_note[note]] += arg * f.rrf
                continue
            best_of_note[note] = f.chunk_id
            scores[f.chunk_id] = f.rrf
        else:  # note-inherit
            extra = sum(arg * w[lane] / (k[lane] + per_note[lane][note][0])
                        for lane in ids if lane not in f.ranks and note in per_note[lane])
            scores[f.chunk_id] = f.rrf + extra
    return sorted(scores, key=lambda c: (-scores[c], c))


def tie_broken(col: Lanes, by: str, lanes: dict, bm25: list[int], vector: list[int]) -> list[int]:
    """The product's fusion with RRF's ties broken by ``by`` (the ``tie`` lever)."""
    ids = {"bm25": bm25, "vector": vector}
    fusion = fusion_of(lanes, ids)
    q = lanes["qvec"]

    def first(f) -> float:
        if by == "cosine":
            row = col.row_of.get(f.chunk_id)
            return 1.0 if row is None else -float(col.matrix[row] @ q)
        return 0.0 if by in f.ranks else 1.0

    entries = fuse(ids, fusion.k, fusion.weights)
    return [f.chunk_id for f in sorted(entries, key=lambda f: (
        round(-f.rrf, 12), first(f), min(f.ranks.values()), f.chunk_id))]


def lever(col: Lanes, name: str, *args):
    depth = 300 if col.kind == "beir" else 50

    def run(lanes: dict) -> list[int]:
        bm25 = [c for c, _ in lanes["bm25"]]
        vector = [c for c, _ in lanes["vector"]]
        q = lanes["qvec"]
        if name == "plain":
            return fused(lanes, bm25, vector, plain=True) if bm25 else vector
        if not bm25 or not vector or q is None:
            return fused(lanes, bm25, vector) if bm25 else vector
        if name in ("prf-vector", "prf-fused"):
            m, beta = args
            first = vector if name == "prf-vector" else fused(lanes, bm25, vector)
            rows = [col.row_of[c] for c in first[:m] if c in col.row_of]
            q2 = q + beta * col.matrix[rows].mean(axis=0)
            return fused(lanes, bm25, col.scan(q2 / np.linalg.norm(q2), depth))
        if name == "doc-mean":
            note_row, means = col.note_means()
            return fused(lanes, bm25, col.scan(q, depth, np.maximum(col.matrix @ q, (means @ q)[note_row])))
        if name == "semantic-floor":
            floor = 1.0 - lanes["vector"][0][1] - args[0]
            kept = [c for c in bm25 if c in col.row_of and float(col.matrix[col.row_of[c]] @ q) >= floor]
            return fused(lanes, kept, vector) if kept else vector
        if name == "coverage-floor":
            kept = [c for c in bm25 if lanes["cov"].get(c, 0.0) >= args[0]]
            return fused(lanes, kept, vector) if kept else vector
        if name == "bm25-cut":
            holds = lanes["coverage"] is not None and lanes["coverage"] >= DEFAULT.coverage
            return fused(lanes, bm25 if holds else bm25[: args[0]], vector)
        if name == "vector-trust":
            holds = lanes["coverage"] is not None and lanes["coverage"] >= DEFAULT.coverage
            bm25_notes = {col.docs.get(c) for c in bm25[:50]}
            first_note = col.docs.get(vector[0])
            return fused(lanes, bm25, vector, None if holds or first_note in bm25_notes else args[0])
        if name == "vector-margin":
            notes = list(first_per_note(col, lanes["vector"]).values())
            margin = notes[1][1][1] - notes[0][1][1] if len(notes) > 1 else 0.0  # distances
            return fused(lanes, bm25, vector, args[1] if margin >= args[0] else None)
        if name == "bm25-weight":
            return fused(lanes, bm25, vector, bm25_weight=args[0])
        if name in ("notes", "note-sum", "note-inherit"):
            return note_levers(col, name, args[0] if args else 0.0, lanes, bm25, vector)
        if name == "tie":
            return tie_broken(col, args[0], lanes, bm25, vector)
        if name == "depth":
            return fused(lanes, bm25[: args[0]], vector[: args[1]])
        if name == "vector-k":
            return fused(lanes, bm25, vector, args[0])
        return fused(lanes, bm25, vector)  # "default"

    return run


LEVERS = [("plain",), ("default",)] + [
    ("prf-vector", m, b) for m in (1, 2, 3) for b in (0.25, 0.5)] + [
    ("prf-fused", m, b) for m in (1, 2, 3) for b in (0.25, 0.5)] + [
    ("doc-mean",)] + [("semantic-floor", g) for g in (0.15, 0.25, 0.3)] + [
    ("coverage-floor", f) for f in (0.2, 0.3, 0.4, 0.5)] + [("bm25-cut", n) for n in (3, 5, 10, 20)] + [
    ("vector-trust", k) for k in (5, 10, 20)] + [
    ("vector-margin", t, k) for t in (0.04, 0.06, 0.08, 0.1) for k in (1, 2)] + [
    ("bm25-weight", w) for w in (0.8, 0.9, 1.1)] + [("notes",)] + [
    ("note-sum", b) for b in (0.05, 0.1, 0.25)] + [("note-inherit", b) for b in (0.5, 1.0)] + [
    ("tie", by) for by in ("cosine", "vector", "bm25")] + [
    ("depth", b, v) for b, v in ((50, 50), (20, 20), (10, 10), (50, 10), (10, 50), (50, 20), (20, 50))] + [
    ("vector-k", k) for k in (1, 2, 3, 5)]


def load(kind: str, *paths: str) -> Lanes:
    if kind == "beir":
        col = fusion_cv.load_beir(paths[0])
        prep = beir.prepare(paths[0], quiet=True)
        judged = set(metrics.judged_queries(prep.qrels))
        kb, queries = prep.kb, [(q, t) for q, t in prep.topics.items() if q in judged]
    else:
        col = fusion_cv.load_known_item(*paths)
        kb, _ = known_item.open_collection(paths[1], quiet=True)
        queries = [(i.qid, i.query) for i in known_item.read_queries(paths[0])]
    lanes = Lanes(col.name, col.kind, col.lanes, col.qrels, col.kinds, col.docs)
    try:
        return lanes.attach(kb, queries)
    finally:
        kb.close()


def main(argv: list[str] | None = None) -> int:
    global RRF_K
    parser = argparse.ArgumentParser(prog="python research/fusion_levers.py")
    parser.add_argument("--beir", action="append", default=[], metavar="DIR")
    parser.add_argument("--known-item", action="append", nargs=2, default=[], metavar=("FILE", "DIR"))
    parser.add_argument("--rrf-k", type=int, default=RRF_K, help="RRF's k (default: the product's)")
    parser.add_argument("--levers", nargs="+", metavar="NAME", help="only these levers (and plain, default)")
    args = parser.parse_args(argv)
    chosen = [spec for spec in LEVERS if not args.levers or spec[0] in {"plain", "default", *args.levers}]
    RRF_K = args.rrf_k
    cols = [load("beir", d) for d in args.beir] + [load("known-item", f, d) for f, d in args.known_item]
    for col in cols:
        lanes = {lane: col.score(lambda L, lane=lane: [c for c, _ in L[lane]]) for lane in ("bm25", "vector")}
        print(f"{col.name} ({col.metric}) bm25 {fmt(lanes['bm25'])} | vector {fmt(lanes['vector'])}")
        for spec in chosen:
            got = col.score(lever(col, *spec))
            below = {g: m for g, m in fusion_cv.over_better_lane(got, lanes).items() if m < -1e-9}
            print(f"  {' '.join(map(str, spec)):<22} {fmt(got)}"
                  + (f"  below: {fmt(below, sign=True)}" if below else ""), flush=True)
    return 0


def fmt(groups: dict[str, float], sign: bool = False) -> str:
    order = sorted(groups, key=lambda g: (g != "all", g))
    return " ".join(f"{g} {groups[g]:{'+' if sign else ''}.4f}" for g in order)


if __name__ == "__main__":
    sys.exit(main())
