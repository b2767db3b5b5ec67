"""Indexing throughput against naive fastembed batching, with every share of the time accounted
for: the throughput part of ``benchmarks/run.py`` (``--skip 10k,100k,ui,sync`` runs it alone).

Both sides embed the same chunk texts of the same real notes with the real model, and the
runner prints what each side embeds, in tokens:

- **the pipeline**: ``kb.sync`` of the folder in a throwaway home, the model loaded first. Each
  ONNX call the embedding queue makes (``Embedder.embed_run``: one length-sorted run, or one
  slice of a long passage's windows) is recorded: its texts, its wall interval and the CPU
  time of the thread that ran it (ONNX Runtime computes on the calling thread, one intra-op
  thread per run), so the model's share is measured, not inferred.
- **naive**: ``TextEmbedding.embed(texts, batch_size=32)`` as fastembed comes (the model file
  as shipped, ONNX Runtime's default threads) over every chunk's embed text in file order.
  It runs in a thread at the drain's nice value (``embed_queue.background_priority``), so the
  two sides compete for the cores on equal terms on a busy machine (the drain is niced; a
  naive run at normal priority gets several times its CPU share under load).

Tokens are counted with the model's own tokenizer at its window: *real* tokens (each text's
own) and *padded* tokens (each ONNX call is padded to its longest text), and the model's
multiply-adds (6 layers: 10.6 M per token for the linear layers plus 4,608 x L per token for
attention at padded length L), which say how much faster any batching could make the model
alone: the pipeline is within 1% of the unpadded ideal, so past the padding saved, the rest
must come from a cheaper run.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

NAIVE_BATCH = 32
# all-MiniLM-L6-v2: multiply-adds per token (Q, K, V, output: 4 x 384^2; feed-forward: 2 x 384 x 1536)
# and, for attention, per token per padded position (QK^T and AV: 2 x 384), over 6 layers
_LINEAR_MACS = 6 * (4 * 384 * 384 + 2 * 384 * 1536)
_ATTENTION_MACS = 6 * 2 * 384


def _macs(lengths_by_call: list[list[int]]) -> float:
    """Multiply-adds of the calls, each padded to its longest text."""
    total = 0.0
    for lengths in lengths_by_call:
        if lengths:
            padded = max(lengths)
            total += len(lengths) * padded * (_LINEAR_MACS + _ATTENTION_MACS * padded)
    return total


def _busy(spans: list[tuple[float, float]]) -> float:
    """Wall time with at least one span in flight (the union of the intervals)."""
    busy, end = 0.0, float("-inf")
    for s, e in sorted(spans):
        s = max(s, end)
        if e > s:
            busy, end = busy + e - s, e
    return busy


def measure(folder: str) -> dict:
    from pms_tui.core.config import DEFAULT_MODEL
    from pms_tui.core.indexing.chunk import parse_note
    from pms_tui.core.indexing.embed import _register_bundled_model, bundled_model_dir
    from pms_tui.core.indexing.embed_queue import background_priority
    from pms_tui.core.indexing.notes import walk_notes
    from pms_tui.core.query_vectors.model import _tokenizer
    from pms_tui.core.kb import KnowledgeBase

    calls: list[tuple[float, float, float, list[str]]] = []  # start, end, thread CPU s, texts
    with tempfile.TemporaryDirectory(prefix="pms-bench-tp-") as tmp:
        kb = KnowledgeBase(Path(tmp) / "home")
        kb._embedder.load()  # model load is not indexing throughput
        kb.collections.create(folder, name="sample")
        real = kb._embedder.embed_run

        def recorded(texts):
            s, c = time.perf_counter(), time.thread_time()
            try:
                return real(texts)
            finally:
                calls.append((s, time.perf_counter(), time.thread_time() - c, list(texts)))

        kb._embedder.embed_run = recorded
        marks: dict[str, float] = {}  # when each phase was first told: the wall-clock split

        def progress(done: int, total: int, phase: str) -> None:
            marks.setdefault(phase, time.perf_counter())

        cpu0, started = time.process_time(), time.perf_counter()
        report = kb.sync(progress=progress)
        ended, cpu = time.perf_counter(), time.process_time() - cpu0
        settings, workers, model_text = kb.settings, kb._embedder.workers, kb._embedder.model_text
        kb.close()
    embedding_from = marks.get("embedding", ended)
    embedding_to = marks.get("done", ended)
    texts = []
    for rel, _ in sorted(walk_notes(Path(folder))):
        note = parse_note((Path(folder) / rel).read_text(encoding="utf-8-sig"), Path(rel).name,
                          settings.chunk_target, settings.chunk_overlap)
        texts.extend(c.embed_text for c in note.chunks)

    def naive() -> tuple[float, float, int]:
        from fastembed import TextEmbedding

        background_priority()  # the drain's nice value; ONNX Runtime's pool threads inherit it
        if settings.model == DEFAULT_MODEL:
            _register_bundled_model()
            model = TextEmbedding(model_name=DEFAULT_MODEL,
                                  specific_model_path=str(bundled_model_dir(settings.max_tokens)))
        else:
            model = TextEmbedding(model_name=settings.model)
        list(model.embed(texts[:8], batch_size=8))  # warm up, as the pipeline's model was
        c, t = time.process_time(), time.perf_counter()
        rows = list(model.embed(texts, batch_size=NAIVE_BATCH))
        return time.process_time() - c, time.perf_counter() - t, len(rows)

    with ThreadPoolExecutor(1) as pool:
        naive_cpu, naive_wall, naive_rows = pool.submit(naive).result()
    assert naive_rows == len(texts)
    result = {
        "notes": len(report.added), "chunks": report.chunks_written, "embedded": report.chunks_embedded,
        "reused": report.chunks_reused, "seconds": ended - started, "cpu_seconds": cpu,
        # the sum of the ONNX calls' own wall times: two run at once, so it can exceed the wall time
        "embed_seconds": sum(e - s for s, e, _, _ in calls),
        "run_cpu_seconds": sum(c for _, _, c, _ in calls),
        "calls": len(calls),
        # wall-clock phases, which add up to the sync's time
        "text_seconds": embedding_from - started,
        "embed_phase_seconds": embedding_to - embedding_from,
        "rest_seconds": ended - embedding_to,
        "runs_in_flight_seconds": _busy([(s, e) for s, e, _, _ in calls]),
        "workers": workers,
        "naive_texts": len(texts), "naive_distinct": len(set(texts)), "naive_seconds": naive_wall,
        "naive_cpu_seconds": naive_cpu, "naive_batch": NAIVE_BATCH,
    }
    if settings.model == DEFAULT_MODEL:  # tokens by the bundled model's own tokenizer
        tokenizer = _tokenizer(bundled_model_dir(settings.max_tokens))
        tokenizer.no_padding()

        def lengths(batch: list[str]) -> list[int]:
            return [len(e.ids) for e in tokenizer.encode_batch(batch)] if batch else []

        naive_calls = [lengths(texts[i: i + NAIVE_BATCH]) for i in range(0, len(texts), NAIVE_BATCH)]
        pipe_calls = [lengths([model_text(t) for t in batch]) for _, _, _, batch in calls]
        flat = [n for call in naive_calls for n in call]
        result.update({
            "naive_tokens": sum(flat), "naive_padded_tokens": sum(len(c) * max(c) for c in naive_calls if c),
            "naive_macs": _macs(naive_calls),
            "pipeline_texts": sum(len(c) for c in pipe_calls),
            "pipeline_tokens": sum(sum(c) for c in pipe_calls),
            "pipeline_padded_tokens": sum(len(c) * max(c) for c in pipe_calls if c),
            "pipeline_macs": _macs(pipe_calls),
            "unpadded_macs": _macs([[n] for c in pipe_calls for n in c]),
            "mean_tokens": statistics.mean(flat) if flat else None,
            "share_at_cap": sum(1 for n in flat if n >= settings.max_tokens) / len(flat) if flat else None,
        })
    return result


def rows(tp: dict, previous: dict | None = None) -> list[tuple[str, str, str, bool | None, str]]:
    """(figure, measured, target, met or None, previous figure) rows for the report."""
    prev = previous or {}
    out = []
    pipe, naive = tp["chunks"] / tp["seconds"], tp["naive_texts"] / tp["naive_seconds"]

    def was(key_fn) -> str:
        try:
            return key_fn(prev) if prev else ""
        except (KeyError, ZeroDivisionError, TypeError):
            return ""

    ratio = lambda d: d["chunks"] / d["seconds"] / (d["naive_texts"] / d["naive_seconds"])  # noqa: E731
    out.append((f"indexing throughput, whole pipeline ({tp['notes']} real notes, {tp['chunks']} chunks), wall",
                f"{pipe:.1f} chunks/s = {pipe / naive:.2f} × naive", "≥ 2 × naive", pipe / naive >= 2,
                was(lambda d: f"{ratio(d):.2f} ×")))
    out.append((f"naive fastembed batching (batch {tp.get('naive_batch', 32)}, file order, default threads, "
                "model as shipped), wall", f"{naive:.1f} chunks/s", "", None, ""))
    if "cpu_seconds" in tp:
        cpu_ratio = (tp["naive_cpu_seconds"] / tp["naive_texts"]) / (tp["cpu_seconds"] / tp["chunks"])
        out.append(("CPU per chunk: pipeline / naive (ratio naive ÷ pipeline)",
                    f"{1000 * tp['cpu_seconds'] / tp['chunks']:.0f} / "
                    f"{1000 * tp['naive_cpu_seconds'] / tp['naive_texts']:.0f} ms ({cpu_ratio:.2f} ×)",
                    "≥ 2 ×", cpu_ratio >= 2, ""))
    if "pipeline_tokens" in tp:
        out.append(("tokens embedded: naive real / padded; pipeline real / padded",
                    f"{tp['naive_tokens']:,} / {tp['naive_padded_tokens']:,}; "
                    f"{tp['pipeline_tokens']:,} / {tp['pipeline_padded_tokens']:,}", "same real tokens",
                    tp["naive_tokens"] == tp["pipeline_tokens"] if tp["naive_texts"] == tp["pipeline_texts"] else None,
                    ""))
        out.append(("model multiply-adds: naive ÷ pipeline (the most any batching saves); pipeline ÷ unpadded",
                    f"{tp['naive_macs'] / tp['pipeline_macs']:.2f} ×; {tp['pipeline_macs'] / tp['unpadded_macs']:.3f}",
                    "", None, ""))
    if "text_seconds" in tp:  # wall-clock phases of the sync, which add up to its time
        total = tp["text_seconds"] + tp["embed_phase_seconds"] + tp["rest_seconds"]
        out.append(("share of the sync's wall time: text (reading, chunking, hashing, DB writes)",
                    f"{100 * tp['text_seconds'] / total:.1f} %", "< 10 %", tp["text_seconds"] / total < 0.10, ""))
        phase = tp["embed_phase_seconds"]
        in_flight = tp.get("runs_in_flight_seconds")
        out.append(("... embedding phase" + (" (a run in flight / none: storing vectors, reading the queue)"
                                             if in_flight is not None else ""),
                    f"{100 * phase / total:.1f} %" + (f" ({100 * in_flight / total:.1f} % / "
                                                      f"{100 * (phase - in_flight) / total:.1f} %)"
                                                      if in_flight is not None else ""), "", None, ""))
        out.append(("... after the embedding (garbage collection, counts)",
                    f"{100 * tp['rest_seconds'] / total:.1f} %", "", None, ""))
        busy = tp["embed_seconds"] / (tp["workers"] * phase) if phase else 0
        out.append((f"run slots busy during the embedding phase (sum of run times / {tp['workers']} slots)",
                    f"{100 * busy:.1f} %", "", None, ""))
    if "run_cpu_seconds" in tp:
        out.append(("share of the sync's CPU time in the model's runs (their threads' CPU)",
                    f"{100 * tp['run_cpu_seconds'] / tp['cpu_seconds']:.1f} % of {tp['cpu_seconds']:.1f} s", "", None,
                    ""))
    return out


def paragraph(tp: dict) -> str:
    text = (f"**Indexing** ({tp['notes']} notes: jbranchaud-til + powershell-docs sample, real model): "
            f"{tp['chunks']} chunks ({tp['embedded']} embedded, {tp['reused']} identical texts reused) in "
            f"{tp['seconds']:.1f} s wall")
    if "cpu_seconds" in tp:
        text += (f", {tp['cpu_seconds']:.1f} s CPU, in {tp['calls']} ONNX calls "
                 f"({tp['embed_seconds']:.1f} s of run time over {tp['workers']} slots)")
    text += (f". Naive: `TextEmbedding.embed(texts, batch_size=32)` over the same {tp['naive_texts']} chunk texts in "
             f"file order ({tp['naive_distinct']} distinct) in {tp['naive_seconds']:.1f} s")
    if "naive_cpu_seconds" in tp:
        text += f" wall, {tp['naive_cpu_seconds']:.1f} s CPU, at the drain's nice value"
    text += (f". Mean length {tp.get('mean_tokens') or 0:.0f} tokens, "
             f"{100 * (tp.get('share_at_cap') or 0):.0f}% at the 256-token cap.")
    return text
