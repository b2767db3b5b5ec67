"""Build (once) and load each collection's two lanes under a chunking variant.

    python research/whole_docs/lanes.py VARIANT [--beir DIR ...] [--known-item FILE DIR ...]

VARIANT is how the index was chunked:

* ``cut``: main's chunker before the whole-paragraph change (commit ccbe762): a prose line
  longer than the target is cut at sentence ends into chunks of its own (reproduced here by
  ``_cut_build_chunks``);
* ``whole``: no such cut and no windows: a one-line paragraph is one passage, of which the
  model reads its first ``max_tokens`` tokens;
* ``windows``: the product's chunker now (one passage, its vector the mean of its windows').

Each variant's indexes live in their own cache root, ``~/.cache/pms-tui-eval/index-VARIANT``
(or ``$PMS_TUI_WHOLE_DOCS_CACHE/index-VARIANT``), built by the product's KnowledgeBase through
``pms-tui eval``'s harness; ``cut`` and ``whole`` keep the cache key of main's chunker at
ccbe762 (``PINNED_FINGERPRINT``), under which they were built. Each query's lanes (chunk id
and the lane's score, at the depth ``pms-tui eval`` fuses) are cached beside the index by
``research/fusion_cv.py``'s ``collect``. Building embeds every passage once.
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

VARIANTS = ("cut", "whole", "windows")
# sha256 of main's chunk.py + frontmatter.py at ccbe762 (kb_doctor.indexing_fingerprint then):
# the key the cut and whole indexes were built under
PINNED_FINGERPRINT = "5dab68e8921e"


def _product_fingerprint() -> str:
    from pms_tui.eval import harness  # noqa: PLC0415

    return harness.indexing_fingerprint()


_PRODUCT_FINGERPRINT = _product_fingerprint


def cache_base() -> Path:
    env = os.environ.get("PMS_TUI_WHOLE_DOCS_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "pms-tui-eval"


_PRODUCT = (chunk._has_long_line, chunk._build_chunks)


def _cut_build_chunks(layout, title: str, target: int, overlap: int, line_offset: int) -> list:
    """main's ``_build_chunks`` at ccbe762: a span holding a long prose line becomes one chunk
    per packed window (``_pieces``), each embedded on its own."""
    chunks: list = []
    limit = max(target * chunk.MAX_CHUNK_FACTOR, chunk.MIN_CHUNK_CAP)
    block_limit = max(target * chunk.MAX_BLOCK_FACTOR, chunk.MIN_BLOCK_CAP)
    prev_last, prev_cut = -1, False
    for first, last in chunk._spans(layout, target, overlap):
        cut_here = chunk._has_long_line(layout, first, last, target)
        if first <= prev_last and (cut_here or prev_cut):
            first = prev_last + 1
            while first <= last and layout.blank[first]:
                first += 1
            if first > last:
                continue
        pieces = chunk._pieces(layout, first, last, target) if cut_here else [
            (first, last, "\n".join(layout.lines[first : last + 1]))]
        prev_last, prev_cut = last, cut_here
        for start, end, text in chunk._bounded(pieces, limit, block_limit):
            path = layout.path_at(start)
            header = chunk.embed_header(title, path)
            chunks.append(chunk.Chunk(seq=len(chunks), start_line=start + 1 + line_offset,
                                      end_line=end + 1 + line_offset, heading_path=path, text=text,
                                      embed_text=f"{header}\n\n{text}" if header else text))
    return chunks


def use_variant(variant: str) -> None:
    """Point the evaluation cache at the variant's root and set the chunker to match."""
    if variant not in VARIANTS:
        raise SystemExit(f"variant must be one of {', '.join(VARIANTS)}")
    from pms_tui.eval import harness  # noqa: PLC0415

    os.environ["PMS_TUI_EVAL_CACHE"] = str(cache_base() / f"index-{variant}")
    chunk._has_long_line, chunk._build_chunks = _PRODUCT
    if variant == "windows":
        harness.chunker_fingerprint = _PRODUCT_FINGERPRINT
        return
    harness.chunker_fingerprint = lambda: PINNED_FINGERPRINT
    if variant == "cut":
        chunk._build_chunks = _cut_build_chunks
    else:
        chunk._has_long_line = lambda *_a: False


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
    kb._vectors.refresh()
    ids, matrix = kb._vectors.snapshot()
    row = {int(v): i for i, v in enumerate(ids)}
    rows = kb._store.conn.execute(
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
