"""Ways for a long document to be judged whole, measured offline on cached lanes, held out.

    python research/whole_docs/compare.py --beir DIR [...] --known-item FILE DIR [...] [--json]

Every collection's lanes come from ``lanes.py`` under both chunkings (``cut``: the product's
sentence windows; ``whole``: a one-line paragraph is one passage). A known-item collection
whose notes chunk the same under both (checked here, note by note) reuses the cut lanes.
Each variant turns the lanes into one ranking of documents per lane, then fuses them with
the product's query-aware RRF (``lane_trust.decide`` with the product's thresholds and the
query's cached signals, ``fusion.fuse``):

* ``a``  today: the cut index, passages fused, each document at its best passage (exactly
  what ``pms-tui eval`` reports);
* ``b``  no sentence cut: the same on the whole index (the model reads the first
  ``max_tokens`` tokens of a long paragraph);
* ``c:L`` the cut index, a document's score in each lane from all its passages before fusion:
  its best passage's score plus L times its second, L^2 times its third, ... (BM25: -bm25;
  vector: the cosine similarity), documents ranked per lane, then fused (``c:0`` is the
  best passage alone, counted per document); ``c:mean L``: the best passage's score plus L
  times the mean of all the document's passages in the lane;
* ``e``  BM25 on whole paragraphs (the whole index) with ONE vector per paragraph, the
  normalised mean of its windows' vectors (the cut index): what can be stored as one vector per
  passage (BEIR sets only: a known-item note's chunks are the same under both chunkings);
* ``d:L`` BM25 on whole paragraphs (the whole index) with the vector lane on sentence windows
  (the cut index, documents scored as in ``c:L``), fused per document; coverage is read off
  the whole index, the gap off the cut one.

Every variant is reported on every collection (BM25, vector, hybrid), then each collection is
held out in turn: the variant is chosen on the others (the most mean hybrid gain over ``a``,
summed over them), and the held-out collection's figure with it is what may be reported,
with a paired-bootstrap 95% interval of its difference from ``a``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import lanes as lanes_mod  # noqa: E402

from pms_tui.core.search import lane_trust  # noqa: E402
from pms_tui.core.search.fusion import fuse  # noqa: E402
from pms_tui.eval import metrics  # noqa: E402

# (form, L): "sum": best + L*second + L^2*third ...; "mean": best + L * the mean of all the
# document's passages in the lane (no reward for a document's length).
AGGREGATES = (("sum", 0.0), ("sum", 0.1), ("sum", 0.25), ("mean", 0.25), ("mean", 0.5), ("mean", 1.0))


def lane_docs(col, qid: str, lane: str, decay: float | None, form: str = "sum") -> list[str]:
    """One lane's documents, best first: at their best passage (``decay`` None), or scored
    from all their passages in the lane (``form``, see AGGREGATES)."""
    ranked = col.lanes[qid][lane]
    if decay is None:
        return col.ranked(qid, [c for c, _ in ranked])
    sign = -1.0 if lane == "bm25" else 1.0  # FTS5 bm25: lower is better; vector: distance
    per_doc: dict[str, list[float]] = {}
    for cid, score in ranked:
        doc = col.docs.get(int(cid))
        if doc is None or (col.kind == "beir" and doc == qid):
            continue
        value = sign * score if lane == "bm25" else 1.0 - score
        per_doc.setdefault(doc, []).append(value)
    if form == "mean":
        total = {d: max(vals) + decay * statistics.fmean(vals) for d, vals in per_doc.items()}
    else:
        total = {d: sum(v * decay**i for i, v in enumerate(sorted(vals, reverse=True))) for d, vals in per_doc.items()}
    return sorted(total, key=lambda d: -total[d])


def fused_docs(bm25: list[str], vector: list[str], coverage, gap) -> list[str]:
    ids = {d: i for i, d in enumerate(dict.fromkeys(bm25 + vector))}
    names = {i: d for d, i in ids.items()}
    lanes = {"bm25": [ids[d] for d in bm25], "vector": [ids[d] for d in vector]}
    fusion = lane_trust.decide(lane_trust.Signals(coverage, gap), lanes, lanes_mod.DEFAULT_K,
                               {"bm25": 1.0, "vector": 1.0}, lanes_mod.DEFAULT_THRESHOLDS)
    return [names[f.chunk_id] for f in fuse(lanes, fusion.k, fusion.weights)]


def product_docs(col, qid: str) -> list[str]:
    import fusion_cv  # noqa: PLC0415

    return col.ranked(qid, fusion_cv.fused_ids(col.lanes[qid], lanes_mod.DEFAULT_THRESHOLDS, lanes_mod.DEFAULT_K))


def variant_runs(name: str, cut, whole) -> dict[str, dict[str, dict[str, list[str]]]]:
    """{variant: {"bm25"|"vector"|"hybrid": {qid: ranked docs}}}."""
    runs: dict[str, dict[str, dict[str, list[str]]]] = {}
    qids = [q for q in cut.lanes if cut.qrels.get(q)]
    for label, col in (("a", cut), ("b", whole)):
        runs[label] = {"bm25": {q: lane_docs(col, q, "bm25", None) for q in qids}}
        if any(col.lanes[q]["vector"] for q in qids):  # a whole index built --bm25-only has none
            runs[label]["vector"] = {q: lane_docs(col, q, "vector", None) for q in qids}
            runs[label]["hybrid"] = {q: product_docs(col, q) for q in qids}
    for form, decay in AGGREGATES:
        tag = f"{decay:g}" if form == "sum" else f"mean {decay:g}"
        bm = {q: lane_docs(cut, q, "bm25", decay, form) for q in qids}
        vec = {q: lane_docs(cut, q, "vector", decay, form) for q in qids}
        runs[f"c:{tag}"] = {"bm25": bm, "vector": vec, "hybrid": {
            q: fused_docs(bm[q], vec[q], cut.lanes[q]["coverage"], cut.lanes[q]["gap"]) for q in qids}}
        wb = {q: lane_docs(whole, q, "bm25", None) for q in qids}
        runs[f"d:{tag}"] = {"bm25": wb, "vector": vec, "hybrid": {
            q: fused_docs(wb[q], vec[q], whole.lanes[q]["coverage"], cut.lanes[q]["gap"]) for q in qids}}
    return runs


def window_mean_runs(folder: str, cut, whole, depth: int = 300) -> dict[str, dict[str, list[str]]]:
    """Variant ``e``: BM25 on whole paragraphs (the whole index), the vector lane over one
    vector per document, the normalised mean of its windows' vectors (the cut index); fused
    per document with coverage off the whole index and the gap off these vectors."""
    import numpy as np  # noqa: PLC0415

    from pms_tui.core.search.query_syntax import parse  # noqa: PLC0415
    from pms_tui.core.search.retrieval import as_text  # noqa: PLC0415

    means, kb = lanes_mod.window_means(folder)
    try:
        docs = list(means)
        matrix = np.stack([means[d] for d in docs])
        qids = [q for q in cut.lanes if cut.qrels.get(q)]
        topics = {}
        from pms_tui.eval import beir  # noqa: PLC0415

        topics = beir.read_topics(beir.discover(folder).topics)
        bm, vec, hyb = {}, {}, {}
        for q in qids:
            parsed = parse(as_text(topics[q]))
            sims = matrix @ kb._embedder.embed_query(parsed.text)  # as search embeds it
            ranked = (docs[i] for i in np.argsort(-sims))
            if parsed.phrases:  # a quoted phrase narrows search to passages holding it: the
                allowed = set(lane_docs(cut, q, "vector", None))  # documents the product let through
                ranked = (d for d in ranked if d in allowed)
            order = [d for d in itertools.islice(ranked, depth + 1) if d != q][:depth]
            bm[q] = lane_docs(whole, q, "bm25", None)
            vec[q] = order
            gap = None
            if bm[q]:
                gap = float(sims.max() - sims[docs.index(bm[q][0])]) if bm[q][0] in means else None
            hyb[q] = fused_docs(bm[q], vec[q], whole.lanes[q]["coverage"], gap)
    finally:
        kb.close()
    return {"bm25": bm, "vector": vec, "hybrid": hyb}


def per_query(col, run: dict[str, list[str]]) -> dict[str, float]:
    if col.kind == "beir":
        return {q: metrics.ndcg_at(r, col.qrels[q], 10) for q, r in run.items()}
    return {q: metrics.mrr_at(r, col.qrels[q], 10) for q, r in run.items()}


def same_chunks(folder: str) -> bool:
    """Whether every note under ``folder`` chunks the same with and without the sentence cut."""
    from pms_tui.core.indexing import chunk  # noqa: PLC0415

    for path in sorted(Path(folder).rglob("*.md")):
        text = path.read_text(encoding="utf-8", errors="replace")
        lanes_mod.use_variant("cut")
        a = [c.text for c in chunk.chunk_markdown(text, path.stem)]
        lanes_mod.use_variant("whole")
        b = [c.text for c in chunk.chunk_markdown(text, path.stem)]
        if a != b:
            return False
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python research/whole_docs/compare.py")
    parser.add_argument("--beir", action="append", default=[], metavar="DIR")
    parser.add_argument("--known-item", action="append", nargs=2, default=[], metavar=("FILE", "DIR"))
    parser.add_argument("--whole-bm25-only", action="append", default=[], metavar="DIR",
                        help="a --beir DIR whose whole index has no vectors (built with lanes.py --bm25-only)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    known = [tuple(k) for k in args.known_item]
    cut = lanes_mod.load("cut", args.beir, [])
    whole = [lanes_mod.load("whole", [d], [], bm25_only=d in args.whole_bm25_only)[0] for d in args.beir]
    for f, d in known:
        if not same_chunks(d):
            cut += lanes_mod.load("cut", [], [(f, d)])
            whole += lanes_mod.load("whole", [], [(f, d)])
        else:
            (col,) = lanes_mod.load("cut", [], [(f, d)])
            cut.append(col)
            whole.append(col)
            print(f"{col.name}: every note chunks the same with and without the cut", file=sys.stderr)
    folders = {Path(d).name: d for d in args.beir}
    scores: dict[str, dict[str, dict[str, dict[str, float]]]] = {}  # coll -> variant -> mode -> qid -> v
    for c, w in zip(cut, whole):
        runs = variant_runs(c.name, c, w)
        if c.kind == "beir":
            runs["e"] = window_mean_runs(folders[c.name], c, w)
        scores[c.name] = {v: {m: per_query(c, r) for m, r in modes.items()} for v, modes in runs.items()}
    names = list(scores)
    variants = list(dict.fromkeys(v for n in names for v in scores[n]))
    mean = {n: {v: {m: statistics.fmean(s.values()) for m, s in scores[n].get(v, {}).items()} for v in variants}
            for n in names}
    gain = {(n, v): mean[n][v]["hybrid"] - mean[n]["a"]["hybrid"] for n in names for v in variants
            if "hybrid" in mean[n][v]}
    held = []
    for n in names:
        others = [o for o in names if o != n]
        choices = [v for v in variants if all((o, v) in gain for o in names)]
        chosen = max(choices, key=lambda v: (sum(gain[(o, v)] for o in others), v == "a"))
        qids = list(scores[n]["a"]["hybrid"])
        diff, low, high = metrics.paired_bootstrap([scores[n][chosen]["hybrid"][q] for q in qids],
                                                   [scores[n]["a"]["hybrid"][q] for q in qids])
        held.append({"held_out": n, "chosen_on_others": chosen, "hybrid": round(mean[n][chosen]["hybrid"], 4),
                     "today": round(mean[n]["a"]["hybrid"], 4), "diff": round(diff, 4),
                     "ci95": [round(low, 4), round(high, 4)]})
    report = {"metric": {n: ("ndcg@10" if c.kind == "beir" else "mrr@10") for n, c in zip(names, cut)},
              "queries": {n: len(scores[n]["a"]["hybrid"]) for n in names},
              "passages": {n: {"cut": len(c.docs), "whole": len(w.docs)} for n, c, w in zip(names, cut, whole)},
              "table": {n: {v: {m: round(x, 4) for m, x in mean[n][v].items()} for v in variants} for n in names},
              "held_out": held,
              "hybrid_minus_today": {n: {v: [round(x, 4) for x in metrics.paired_bootstrap(
                  [scores[n][v]["hybrid"][q] for q in scores[n]["a"]["hybrid"]],
                  [scores[n]["a"]["hybrid"][q] for q in scores[n]["a"]["hybrid"]])]
                  for v in variants if "hybrid" in scores[n].get(v, {})} for n in names},
              "chosen_on_all": max([v for v in variants if all((o, v) in gain for o in names)],
                                    key=lambda v: (sum(gain[(o, v)] for o in names), v == "a"))}
    if args.json:
        json.dump(report, sys.stdout, indent=1)
        print()
        return 0
    print("variant | " + " | ".join(f"{n} BM25 / vector / hybrid" for n in names))
    for v in variants:
        print(f"{v} | " + " | ".join(" / ".join(f"{mean[n][v][m]:.4f}" if m in mean[n][v] else "-"
                                                for m in ("bm25", "vector", "hybrid")) for n in names))
    for h in held:
        print(f"held out {h['held_out']}: chosen {h['chosen_on_others']} -> {h['hybrid']:.4f} "
              f"(today {h['today']:.4f}; {h['diff']:+.4f} [{h['ci95'][0]:+.4f}, {h['ci95'][1]:+.4f}])")
    print(f"chosen on all: {report['chosen_on_all']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
