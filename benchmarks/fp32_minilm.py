"""Would the unquantised model do better? all-MiniLM-L6-v2 in fp32 against the shipped int8.

    python benchmarks/fp32_minilm.py --weights DIR [--beir DIR ...] [--known-item FILE DIR ...]

DIR holds a sentence-transformers copy of all-MiniLM-L6-v2 (``model.safetensors``,
``tokenizer.json``). None ships as ONNX on PyPI, so the fp32 weights run here in NumPy: the
BERT encoder written out (six post-norm layers, exact GELU, mean pooling, normalised), on
the weights read straight from the safetensors file. Nothing of it enters the product; it
answers one question of issue 13: how much does int8 quantisation cost, on our pipeline?

For each collection (indexed, or reused, by ``pms-tui eval``'s own code), every embedded
text is rebuilt by the product's chunker (``parse_note``, the text the int8 vector was made
from), embedded in fp32, and the vector lane and the hybrid are computed again: the same BM25
lanes and coverage, the gap signal from the fp32 vectors, the product's ``fuse``, RRF k and
default thresholds (the fifth round's table in docs/evaluation.md was made at k 60, the
default then). Printed beside the int8 figures, with both models' embedding speed. The fp32
vectors are cached beside the index (``fp32-vectors.npz``). First, both models embed the
same 200 texts and the mean cosine between their vectors is printed: a check that the
NumPy encoder is the model (int8 quantisation alone keeps it near 0.99).
"""

from __future__ import annotations

import argparse
import json
import math
import struct
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from fusion_levers import fmt, fused, load, query_text  # noqa: E402
from pms_tui.core.indexing.chunk import parse_note  # noqa: E402
from pms_tui.core.indexing.embed import embed_hash  # noqa: E402
from pms_tui.core.indexing.notes import read_note, walk_notes  # noqa: E402
from pms_tui.core.store import vectors as vector_rows  # noqa: E402
from pms_tui.eval import beir, harness, known_item  # noqa: E402

MAX_TOKENS = 256
BATCH = 32


class NumpyMiniLM:
    """all-MiniLM-L6-v2 (BertModel, 6 layers, 384 wide, 12 heads) in float32 NumPy."""

    def __init__(self, folder: Path):
        from tokenizers import Tokenizer

        self.w = read_safetensors(folder / "model.safetensors")
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.no_padding()

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), 384), dtype=np.float32)
        encoded = self.tokenizer.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: len(encoded[i].ids))
        for start in range(0, len(order), BATCH):
            rows = order[start : start + BATCH]
            width = max(len(encoded[i].ids) for i in rows)
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.float32)
            for r, i in enumerate(rows):
                ids[r, : len(encoded[i].ids)] = encoded[i].ids
                mask[r, : len(encoded[i].ids)] = 1.0
            out[rows] = self._forward(ids, mask)
        return out

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        w = self.w
        batch, width = ids.shape
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:width]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        bias = ((1.0 - mask) * -1e9)[:, None, None, :]
        for n in range(6):
            p = f"encoder.layer.{n}."

            def dense(h, name):
                return h @ w[p + name + ".weight"].T + w[p + name + ".bias"]

            def heads(h):
                return h.reshape(batch, width, 12, 32).transpose(0, 2, 1, 3)

            q, k, v = (heads(dense(x, f"attention.self.{t}")) for t in ("query", "key", "value"))
            scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(32) + bias
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            ctx = (scores / scores.sum(-1, keepdims=True)) @ v
            ctx = ctx.transpose(0, 2, 1, 3).reshape(batch, width, 384)
            x = layer_norm(x + dense(ctx, "attention.output.dense"),
                           w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"])
            h = gelu(dense(x, "intermediate.dense"))
            x = layer_norm(x + dense(h, "output.dense"), w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
        pooled = (x * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
        return (pooled / np.linalg.norm(pooled, axis=1, keepdims=True)).astype(np.float32)


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """The float32 tensors of a safetensors file (8-byte header length, JSON header, data)."""
    raw = path.read_bytes()
    size = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8 : 8 + size])
    data = memoryview(raw)[8 + size :]
    out = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] != "F32":
            continue
        start, end = info["data_offsets"]
        out[name] = np.frombuffer(data[start:end], dtype="<f4").reshape(info["shape"])
    return out


def layer_norm(x, gain, bias, eps=1e-12):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gain + bias


def gelu(x):
    """BERT's exact GELU, 0.5 x (1 + erf(x / sqrt 2)), with erf by Abramowitz-Stegun 7.1.26
    (absolute error below 1.5e-7)."""
    z = np.abs(x) / math.sqrt(2)
    t = 1.0 / (1.0 + 0.3275911 * z)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    erf = np.sign(x) * (1.0 - poly * np.exp(-z * z))
    return 0.5 * x * (1.0 + erf)


def texts_by_vector(kb, folder: Path) -> dict[int, str]:
    """Vector id -> the embed_text it was made from, rebuilt by the product's chunker."""
    s = kb.settings
    wanted: dict[str, str] = {}
    for rel, _ in walk_notes(folder):
        try:
            note = parse_note(read_note(folder / rel).text, Path(rel).name, s.chunk_target, s.chunk_overlap)
        except Exception:  # noqa: BLE001 - a note the sync skipped has no vectors either
            continue
        for chunk in note.chunks:
            wanted.setdefault(embed_hash(chunk.embed_text), chunk.embed_text)
    ids = vector_rows.lookup(kb.store.conn, list(wanted))
    return {vid: wanted[h] for h, vid in ids.items()}


def fp32_matrix(model: NumpyMiniLM, kb, folder: Path, key_dir: Path, vector_ids: np.ndarray) -> tuple[np.ndarray, float]:
    """fp32 rows in the order of ``vector_ids``, and texts/s (cached in key_dir)."""
    cache = key_dir / "fp32-vectors.npz"
    if cache.is_file():
        saved = np.load(cache)
        if np.array_equal(saved["ids"], vector_ids):
            return saved["matrix"], float(saved["rate"])
    texts = texts_by_vector(kb, folder)
    missing = [int(v) for v in vector_ids if int(v) not in texts]
    if missing:
        raise SystemExit(f"{len(missing)} vectors have no rebuilt text (the chunker changed since the index?)")
    started = time.perf_counter()
    matrix = model.embed([texts[int(v)] for v in vector_ids])
    rate = len(vector_ids) / (time.perf_counter() - started)
    np.savez(cache, ids=vector_ids, matrix=matrix, rate=rate)
    return matrix, rate


def open_collection(kind: str, paths: tuple[str, ...]):
    """(kb, notes folder, cache dir, queries) as ``pms-tui eval`` opens them."""
    if kind == "beir":
        prep = beir.prepare(paths[0], quiet=True)
        return prep.kb, harness.cache_root() / prep.build.key / "notes", harness.cache_root() / prep.build.key, [
            (q, t) for q, t in prep.topics.items() if q in prep.qrels]
    kb, build = known_item.open_collection(paths[1], quiet=True)
    items = known_item.read_queries(paths[0])
    return kb, Path(paths[1]).expanduser().resolve(), harness.cache_root() / build.key, [(i.qid, i.query) for i in items]


def measure(model: NumpyMiniLM, kind: str, *paths: str) -> None:
    col = load(kind, *paths)
    kb, folder, key_dir, queries = open_collection(kind, paths)
    try:
        ids, _ = kb.retrieval.vectors.snapshot()
        fp32, rate = fp32_matrix(model, kb, folder, key_dir, ids)
        build = json.loads((key_dir / harness.BUILD_FILE).read_text())
        int8_rate = build["chunks_embedded"] / build["build_seconds"] if build.get("build_seconds") else float("nan")
        rows = np.searchsorted(ids, [int(v) for v in col.vector_ids])
        col.matrix = fp32[rows]  # one row per passage, as Lanes keeps them
        parsed = [query_text(t) or t for _, t in queries]
        for (qid, _), vec in zip(queries, model.embed(parsed)):
            if qid in col.lanes:
                col.lanes[qid]["qvec32"] = vec
    finally:
        kb.close()
    depth = 300 if col.kind == "beir" else 50
    note_rows: dict[str, list[int]] = {}
    for i, c in enumerate(col.chunk_ids.tolist()):
        note_rows.setdefault(col.docs.get(c), []).append(i)

    def run(lanes: dict, plain: bool = False) -> list[int]:
        q = lanes["qvec32"]
        scores = col.matrix @ q
        vector = col.scan(q, depth, scores)
        gap = None
        if lanes["bm25"] and vector:
            first_note = col.docs.get(int(lanes["bm25"][0][0]))
            gap = max(0.0, float(scores[col.row_of[vector[0]]] - scores[note_rows[first_note]].max()))
        bm25 = [c for c, _ in lanes["bm25"]]
        return fused({**lanes, "gap": gap}, bm25, vector, plain=plain) if bm25 else vector

    int8_groups = {name: col.score(lambda L, name=name: [c for c, _ in L[name]]) for name in ("bm25", "vector")}
    fp32_vector = col.score(lambda L: col.scan(L["qvec32"], depth))
    print(f"{col.name} ({col.metric}); embedding: fp32 NumPy {rate:.1f} texts/s, int8 ONNX (the build) {int8_rate:.1f} chunks/s")
    print(f"  bm25                {fmt(int8_groups['bm25'])}")
    print(f"  vector, int8        {fmt(int8_groups['vector'])}")
    print(f"  vector, fp32        {fmt(fp32_vector)}")
    print(f"  hybrid plain, fp32  {fmt(col.score(lambda L: run(L, plain=True)))}")
    print(f"  hybrid, fp32        {fmt(col.score(run))}", flush=True)


def agreement(model: NumpyMiniLM, kind: str, *paths: str, n: int = 200) -> float:
    """Mean cosine between the fp32 and the shipped int8 vectors of the same n texts."""
    kb, folder, _, _ = open_collection(kind, paths)
    try:
        texts = list(texts_by_vector(kb, folder).values())[:n]
        int8 = kb.retrieval.embedder.embed_documents(texts)
    finally:
        kb.close()
    return float(np.mean(np.sum(model.embed(texts) * np.asarray(int8), axis=1)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python benchmarks/fp32_minilm.py")
    parser.add_argument("--weights", required=True, type=Path, metavar="DIR")
    parser.add_argument("--beir", action="append", default=[], metavar="DIR")
    parser.add_argument("--known-item", action="append", nargs=2, default=[], metavar=("FILE", "DIR"))
    args = parser.parse_args(argv)
    model = NumpyMiniLM(args.weights)
    specs = [("beir", d) for d in args.beir] + [("known-item", f, d) for f, d in args.known_item]
    if not specs:
        parser.error("name at least one collection")
    print(f"fp32 against int8 on the same 200 texts: mean cosine {agreement(model, *specs[0]):.4f}", flush=True)
    for spec in specs:
        measure(model, *spec)
    return 0


if __name__ == "__main__":
    sys.exit(main())
