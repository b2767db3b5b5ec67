"""The embedding queue: chunk texts that are indexed for BM25 but have no vector yet.

Sync writes a note's text first (documents, chunks, full-text rows) and leaves its vectors
to this queue, so every note is searchable by its words within seconds of a sync starting,
however long the model takes. The queue is the ``vectors`` rows whose ``pending_text`` is
set: it lives in the database, so it survives quitting, a crash or kill -9, and whoever
syncs or starts next carries on. Vectors stay content-addressed (one row per distinct
embed_text), so identical text is embedded once, queued or not.

Draining reads a group of queued texts, embeds them in length-sorted ONNX runs
(``Embedder.embed_run``, two at once), and stores each run's vectors in its own transaction
as it finishes: a kill loses at most the runs in flight. The writer lock is held only while
a group is read and while a run's vectors are stored (milliseconds), never while the model
computes, so the text of any other sync, in this process or another (a folder added in the
app, `pms-tui add` + `sync` in a shell, a saved note, a clip), is written between two runs
and its texts join the queue this drain is working through. A run whose rows were deleted
or re-used meanwhile is not stored (``vectors.fill`` checks each row still waits for the
very text that was embedded). Between runs it stops for ``cancel``.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from contextlib import AbstractContextManager
from dataclasses import dataclass

from ..store import Store
from ..store import vectors as vector_rows
from .embed import length_batches
from .windows import embed_windowed

# Texts taken from the queue per hold of the writer lock: enough for length sorting to
# pad little, few enough that another writer waits seconds, not minutes.
GROUP_TEXTS = 256
# Progress is reported at least this often (seconds) while runs are in flight.
HEARTBEAT = 0.5
# Nice value of the threads that run document embeddings (Linux: per thread).
BACKGROUND_NICE = 10


@dataclass
class DrainResult:
    embedded: int = 0
    seconds: float = 0.0
    embed_seconds: float = 0.0
    cancelled: bool = False
    left: int = 0
    elsewhere: int | None = None  # pid of another process draining this queue (it embeds them)


def drain(
    store: Store,
    embedder,
    hold_writer: Callable[[], AbstractContextManager],
    progress: Callable[[int, int, str], None] | None = None,
    cancel: threading.Event | None = None,
    group_texts: int = GROUP_TEXTS,
) -> DrainResult:
    """Embed queued texts until the queue is empty or ``cancel`` is set. ``hold_writer()``
    is entered briefly: around reading each group and around storing each run."""
    result = DrainResult()
    started = time.perf_counter()
    progress = progress or (lambda done, total, phase: None)
    conn = store.conn
    total = vector_rows.pending_count(conn)
    if not total:
        return result
    progress(0, total, "embedding")  # before the model loads: the phase starts now
    _load_with_heartbeat(embedder, lambda: progress(0, total, "embedding"))
    # a stand-in embedder (benchmarks, tests) may offer embed_documents alone
    run_texts = getattr(embedder, "embed_run", None) or embedder.embed_documents
    workers = max(1, getattr(embedder, "workers", 1))
    budget = getattr(embedder, "run_budget", 1024)
    batch = max(getattr(embedder, "batch_size", 32) * 2, 1)
    token_lengths = getattr(embedder, "token_lengths", lambda texts: None)
    fits = getattr(embedder, "fits_window", None)  # a long paragraph the model can read whole
    done = 0
    stop = lambda: cancel is not None and cancel.is_set()  # noqa: E731
    with ThreadPoolExecutor(workers, thread_name_prefix="pms-embed", initializer=background_priority) as pool:
        while not stop():
            with hold_writer():  # no other writer of this connection is mid-transaction
                rows = vector_rows.pending_batch(conn, group_texts)
                left_now = vector_rows.pending_count(conn)
            if not rows:
                break
            total = max(total, done + left_now)  # a sync may have queued more meanwhile
            texts = [text for _, text in rows]
            runs = length_batches(texts, batch, budget, token_lengths(texts))
            in_flight: dict = {}
            queue = list(runs)
            while queue or in_flight:
                while queue and len(in_flight) < workers and not stop():
                    run = queue.pop(0)
                    in_flight[pool.submit(_timed, run_texts, [texts[i] for i in run], fits)] = run
                if not in_flight:
                    break
                finished, _ = wait(in_flight, timeout=HEARTBEAT, return_when=FIRST_COMPLETED)
                if not finished:  # a slow run (a busy machine): say so at least once a second
                    progress(done, total, "embedding")
                for future in finished:
                    run = in_flight.pop(future)
                    seconds, vectors = future.result()
                    result.embed_seconds += seconds
                    with hold_writer(), store.transaction() as tx:
                        vector_rows.fill(tx, [rows[i][0] for i in run], vectors, [texts[i] for i in run])
                    done += len(run)
                    result.embedded += len(run)
                    progress(done, total, "embedding")
    result.cancelled = stop()
    result.left = vector_rows.pending_count(conn)
    result.seconds = time.perf_counter() - started
    return result


def background_priority() -> None:
    """Lower the calling thread's CPU priority, so the document runs of a drain yield the
    cores to a search, the app's screen and the user's editor, and take what is left.

    Each ONNX run computes on the thread that calls it (one intra-op thread, see
    ``Embedder._create``), so lowering the drain's own pool threads is enough; they end with
    the drain (a nice value cannot be raised back without privileges). Linux only: there
    the nice value belongs to the thread; elsewhere it would slow the whole process."""
    if not sys.platform.startswith("linux"):
        return
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, max(os.getpriority(os.PRIO_PROCESS, tid), BACKGROUND_NICE))
    except OSError:  # a sandbox without setpriority: runs at the normal priority
        pass


def _load_with_heartbeat(embedder, beat: Callable[[], None]) -> None:
    """Load the model (seconds on a cold start) while still reporting progress every HEARTBEAT."""
    with ThreadPoolExecutor(1, thread_name_prefix="pms-load") as pool:
        loading = pool.submit(embedder.load)
        while True:
            try:
                loading.result(timeout=HEARTBEAT)
                return
            except TimeoutError:
                beat()


def _timed(fn, texts, fits=None):
    started = time.perf_counter()
    vectors = embed_windowed(fn, texts, fits)  # a long paragraph: whole if it fits, else its windows' mean
    return time.perf_counter() - started, vectors
