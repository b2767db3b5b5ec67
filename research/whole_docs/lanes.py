"""Build (once) and load each collection's two lanes under a chunking variant.

    python research/whole_docs/lanes.py VARIANT [--beir DIR ...] [--known-item FILE DIR ...]

VARIANT is ``cut`` (the product's chunker: a prose line longer than the target is cut at
sentence ends) or ``whole`` (no such cut: a one-line paragraph is one passage, of which the
model reads its first ``max_tokens`` tokens). Each variant's indexes live in their own cache
root, ``~/.cache/pms-tui-eval/index-VARIANT`` (or ``$PMS_TUI_WHOLE_DOCS_CACHE/index-VARIANT``),
built by the product's KnowledgeBase through ``pms-tui eval``'s harness; each query's lanes
(chunk id and the lane's score, at the depth ``pms-tui eval`` fuses) are cached beside the
index by ``research/fusion_cv.py``'s ``collect``. Building embeds every passage once.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pms_tui.core.indexing import chunk  # noqa: E402

VARIANTS = ("cut", "whole")


def cache_base() -> Path:
    env = os.environ.get("PMS_TUI_WHOLE_DOCS_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "pms-tui-eval"


_PRODUCT_HAS_LONG_LINE = chunk._has_long_line


def use_variant(variant: str) -> None:
    """Point the evaluation cache at the variant's root and set the chunker to match."""
    if variant not in VARIANTS:
        raise SystemExit(f"variant must be one of {', '.join(VARIANTS)}")
    os.environ["PMS_TUI_EVAL_CACHE"] = str(cache_base() / f"index-{variant}")
    chunk._has_long_line = _PRODUCT_HAS_LONG_LINE if variant == "cut" else (lambda *_a: False)


def _defaults():
    import fusion_cv  # noqa: PLC0415

    return fusion_cv.DEFAULT.rrf_k, fusion_cv.DEFAULT.thresholds


def __getattr__(name: str):  # DEFAULT_K / DEFAULT_THRESHOLDS: the product's fusion setting
    if name in ("DEFAULT_K", "DEFAULT_THRESHOLDS"):
        return _defaults()[name == "DEFAULT_THRESHOLDS"]
    raise AttributeError(name)


def _bm25_only(fusion_cv) -> None:
    """Build without vectors (``sync(embed=False)``) and collect BM25's lane alone (the vector
    lane empty, the gap None): what an index of whole paragraphs needs for BM25."""
    from pms_tui.core.kb import KnowledgeBase  # noqa: PLC0415
    from pms_tui.core.kb_measure import Measure  # noqa: PLC0415

    sync = KnowledgeBase.sync
    KnowledgeBase.sync = lambda self, *a, **kw: sync(self, *a, **{**kw, "embed": False})

    def collect(kb, queries, depth, key_dir):
        cache = key_dir / f"whole-docs-bm25-lanes-{len(queries)}-{depth}.json"
        if cache.is_file():
            return json.loads(cache.read_text())
        out, measure = {}, Measure(kb)
        for qid, text in queries:
            parsed, lanes = measure.lanes(text, depth, mode="bm25")
            signals = measure.signals(parsed, {"bm25": lanes.get("bm25", []), "vector": []})
            out[qid] = {"bm25": lanes.get("bm25", []), "vector": [], "coverage": signals.coverage, "gap": None}
        cache.write_text(json.dumps(out))
        return out

    fusion_cv.collect = collect


def load(variant: str, beir_dirs: list[str], known_items: list[tuple[str, str]], *,
         bm25_only: bool = False) -> list:
    """fusion_cv Collections (lanes with scores, chunk -> doc) built under ``variant``."""
    use_variant(variant)
    import fusion_cv  # noqa: PLC0415 (after the cache root is set)

    if bm25_only:
        _bm25_only(fusion_cv)

    out = [fusion_cv.load_beir(d) for d in beir_dirs]
    out += [fusion_cv.load_known_item(f, d) for f, d in known_items]
    return out


def window_means(variant_dir: str) -> tuple[dict[str, "object"], object]:
    """For a BEIR folder under the ``cut`` variant: {doc id: the normalised mean of its
    windows' vectors} and the open KnowledgeBase's embedder (for the query vectors). What a
    whole-paragraph passage's one vector would be if the model read it window by window."""
    import numpy as np  # noqa: PLC0415

    from pms_tui.eval import beir  # noqa: PLC0415

    use_variant("cut")
    prep = beir.prepare(variant_dir, quiet=True)
    kb = prep.kb
    kb.vectors.refresh()
    ids, matrix = kb.vectors.snapshot()
    row = {int(v): i for i, v in enumerate(ids)}
    rows = kb.store.conn.execute(
        "SELECT c.vector_id, d.path FROM chunks c JOIN documents d ON d.id = c.document_id").fetchall()
    per_doc: dict[str, list[int]] = {}
    for vector_id, relpath in rows:
        doc = prep.mapping.get(relpath)
        if doc is not None and int(vector_id) in row:
            per_doc.setdefault(doc, []).append(row[int(vector_id)])
    means = {}
    for doc, at in per_doc.items():
        v = matrix[at].mean(axis=0)
        means[doc] = v / (np.linalg.norm(v) or 1.0)
    return means, kb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python research/whole_docs/lanes.py")
    parser.add_argument("variant", choices=VARIANTS)
    parser.add_argument("--beir", action="append", default=[], metavar="DIR")
    parser.add_argument("--known-item", action="append", nargs=2, default=[], metavar=("FILE", "DIR"))
    parser.add_argument("--bm25-only", action="store_true", help="no vectors: BM25's lane alone")
    args = parser.parse_args(argv)
    for c in load(args.variant, args.beir, [tuple(k) for k in args.known_item], bm25_only=args.bm25_only):
        chunks = len(c.docs)
        print(f"{args.variant} {c.name}: {len(c.lanes)} queries, {chunks} passages", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
