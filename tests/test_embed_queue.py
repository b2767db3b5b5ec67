"""Text first, vectors behind: the embedding queue in the database, resume after a kill,
query priority over document runs, and two processes syncing one home."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from tests.kb_helpers import CORPORA, REPO, write

TIL = CORPORA / "markdown" / "jbranchaud-til"


def index_state(kb) -> dict:
    """What an index holds, independent of row ids: every chunk with its vector's hash."""
    conn = kb._store.conn
    rows = conn.execute(
        "SELECT col.name, d.path, c.seq, c.body, hex(v.hash), v.pending_text IS NULL "
        "FROM chunks c JOIN documents d ON d.id = c.document_id "
        "JOIN collections col ON col.id = d.collection_id JOIN vectors v ON v.id = c.vector_id"
    ).fetchall()
    vectors = {
        bytes(h).hex(): np.frombuffer(e, dtype=np.float32)
        for h, e in conn.execute("SELECT v.hash, x.embedding FROM vectors v JOIN vec_vectors x ON x.rowid = v.id")
    }
    return {
        "chunks": sorted(rows),
        "vectors": vectors,
        "vector_rows": conn.execute("SELECT count(*) FROM vectors").fetchone()[0],
        "pending": kb.index.vectors_pending,
    }


def test_text_is_searchable_before_vectors_and_the_queue_drains(kb, notes_dir):
    kb.collections.create(notes_dir, name="notes")
    report = kb.sync(embed=False)
    assert report.chunks_queued > 0 and report.vectors_pending == report.chunks_queued
    assert report.chunks_embedded == 0
    stats = kb.stats()
    assert stats["vectors"] == 0 and stats["vectors_pending"] == report.chunks_queued

    hits = kb.search("soft reset", k=3)
    assert hits and hits[0].relpath == "git/undo-commit.md"
    assert hits[0].bm25_rank == 1 and hits[0].vector_rank is None and hits[0].vector_pending
    evidence = kb.searcher.evidence(hits, hits[0])  # the model is ready: the passage itself waits
    assert evidence.vector_queued and "Vector: pending (this passage is queued for embedding)" in evidence.lines()

    assert kb.index.embed_pending() == report.chunks_queued
    assert kb.index.vectors_pending == 0
    hits = kb.search("soft reset", k=3)
    assert hits[0].vector_rank is not None and not hits[0].vector_pending


def test_identical_text_is_queued_and_embedded_once(kb, tmp_path):
    folder = tmp_path / "twins"
    for name in ("a.md", "b.md", "c/d.md"):
        write(folder, name, "# Same\n\nThe very same paragraph in three notes.\n")
    kb.collections.create(folder, name="twins")
    report = kb.sync()
    assert report.chunks_written == 3 and report.chunks_queued == 1 and report.chunks_embedded == 1
    assert kb.stats()["vectors"] == 1 and kb.index.vectors_pending == 0


def test_progress_phases_come_in_order_with_totals(kb, notes_dir):
    kb.collections.create(notes_dir, name="notes")
    seen: list[tuple[int, int, str]] = []
    kb.sync(progress=lambda done, total, phase: seen.append((done, total, phase)))
    phases = [p for _, _, p in seen]
    order = [p for i, p in enumerate(phases) if i == 0 or phases[i - 1] != p]
    assert order == ["scanning", "reading", "embedding", "done"]
    reading = [(d, t) for d, t, p in seen if p == "reading"]
    assert reading[0] == (0, 3) and reading[-1] == (3, 3)
    embedding = [(d, t) for d, t, p in seen if p == "embedding"]
    assert embedding[-1][0] == embedding[-1][1] > 0


class FakeSlowLoadingEmbedder:
    """A fake for the drain's pure logic: its model takes 1.6 s to load, its vectors are zeros."""

    def __init__(self) -> None:
        self.loaded_at: float | None = None

    def load(self) -> None:
        time.sleep(1.6)
        self.loaded_at = time.monotonic()

    def embed_documents(self, texts):
        return np.zeros((len(texts), 384), dtype=np.float32)


def test_the_embedding_phase_reports_progress_while_the_model_loads(kb, notes_dir):
    from pms_tui.core.indexing.embed_queue import drain

    kb.collections.create(notes_dir, name="notes")
    kb.sync(embed=False)
    fake = FakeSlowLoadingEmbedder()
    calls: list[float] = []
    drain(kb._store, fake, kb.index.writing, lambda done, total, phase: calls.append(time.monotonic()))
    during_load = [t for t in calls if t < fake.loaded_at]
    assert len(during_load) >= 3  # at once, then every HEARTBEAT (0.5 s) of the 1.6 s load
    assert max(b - a for a, b in zip(during_load, during_load[1:])) < 1.0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice values are Linux's")
def test_document_runs_run_at_a_lower_cpu_priority_than_the_caller():
    from pms_tui.core.indexing.embed_queue import BACKGROUND_NICE, background_priority

    seen: list[int] = []
    mine = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    def run() -> None:
        background_priority()
        seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert seen[0] >= BACKGROUND_NICE
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == mine  # the caller's thread untouched


def test_cancel_during_embedding_keeps_text_and_the_next_sync_carries_on(kb, notes_dir):
    kb.collections.create(notes_dir, name="notes")
    cancel = threading.Event()

    def progress(done, total, phase):
        if phase == "embedding":
            cancel.set()

    first = kb.sync(progress=progress, cancel=cancel)
    assert first.cancelled and len(first.added) == 3 and first.vectors_pending > 0
    assert kb.search("sourdough", k=1, mode="bm25")[0].relpath == "cooking/bread.md"
    second = kb.sync()
    assert not second.cancelled and second.chunks_embedded == first.vectors_pending
    assert kb.index.vectors_pending == 0


def test_a_query_embedding_never_waits_for_document_runs(kb):
    """Both document slots taken (as by two long runs): the query still gets its vector."""
    kb.model.load()
    embedder = kb._embedder
    for _ in range(embedder.workers):
        embedder._run_slots.acquire()
    try:
        got: list = []
        worker = threading.Thread(target=lambda: got.append(embedder.embed_query("undo a commit")))
        worker.start()
        worker.join(timeout=120)
        assert got and got[0].shape == (embedder.dim,)
    finally:
        for _ in range(embedder.workers):
            embedder._run_slots.release()


def test_an_old_index_is_migrated_and_its_vectors_count_as_embedded(tmp_path, notes_dir):
    from pms_tui.core.kb import KnowledgeBase

    home = tmp_path / "home"
    with KnowledgeBase(home=home) as kb:
        kb.collections.create(notes_dir, name="notes")
        kb.sync()
        before = index_state(kb)
        conn = kb._store.conn  # make it look like a version-1 file: no queue column
        conn.execute("DROP INDEX vectors_pending")
        conn.execute("ALTER TABLE vectors DROP COLUMN pending_text")
        conn.execute("DROP TABLE note_tags")  # nor the facets of schema 3
        conn.execute("ALTER TABLE documents DROP COLUMN note_date")
        conn.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    with KnowledgeBase(home=home) as kb:
        assert kb.index.vectors_pending == 0
        after = index_state(kb)
        assert after["chunks"] == before["chunks"] and after["vectors"].keys() == before["vectors"].keys()
        assert kb.search("soft reset", k=1)[0].vector_rank is not None


# -- processes: kill -9 mid-embedding, two writers -----------------------------------------------

SYNC_SCRIPT = """
import sys
from pms_tui.core.kb import KnowledgeBase
kb = KnowledgeBase(home=sys.argv[1])
def progress(done, total, phase):
    print(phase, done, total, flush=True)
kb.sync(progress=progress)
print("finished", flush=True)
"""


def _copy_notes(src: Path, dest: Path, count: int) -> None:
    from pms_tui.core.indexing.notes import walk_notes

    notes = sorted(rel for rel, _ in walk_notes(src) if "/" in rel)  # not the huge README
    for rel in notes[:count]:
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((src / rel).read_bytes())


def _til_folder(tmp_path: Path, count: int) -> Path:
    if not TIL.is_dir():
        pytest.skip("the shared corpora are not here")
    folder = tmp_path / "til"
    _copy_notes(TIL, folder, count)
    return folder


def _start_sync(home: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", SYNC_SCRIPT, str(home)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, cwd=str(REPO),
    )


def _reference(tmp_path: Path, folder: Path) -> dict:
    from pms_tui.core.kb import KnowledgeBase

    with KnowledgeBase(home=tmp_path / "reference") as kb:
        kb.collections.create(folder, name="til")
        kb.sync()
        return index_state(kb)


def _assert_same_index(state: dict, reference: dict) -> None:
    assert state["pending"] == 0
    assert state["chunks"] == reference["chunks"]
    assert state["vector_rows"] == len(state["vectors"]) == len(reference["vectors"])  # nothing twice
    assert state["vectors"].keys() == reference["vectors"].keys()
    for key, vector in reference["vectors"].items():
        assert float(np.dot(vector, state["vectors"][key])) > 0.999


def _kill_when(proc: subprocess.Popen, ready) -> None:
    for line in proc.stdout:
        parts = line.split()
        if parts and ready(parts):
            os.kill(proc.pid, signal.SIGKILL)
            break
    proc.wait(timeout=120)


def test_a_sync_killed_mid_embedding_resumes_and_converges(tmp_path):
    from pms_tui.core.kb import KnowledgeBase

    folder = _til_folder(tmp_path, 8)
    home = tmp_path / "home"
    with KnowledgeBase(home=home) as kb:
        kb.collections.create(folder, name="til")
    proc = _start_sync(home)
    _kill_when(proc, lambda p: p[0] == "embedding" and int(p[1]) > 0)
    assert proc.returncode == -signal.SIGKILL
    with KnowledgeBase(home=home) as kb:
        assert kb.index.vectors_pending > 0  # the queue survived the kill
        assert kb.stats()["documents"] == 8  # and the text was all there
        report = kb.sync()
        assert report.chunks_embedded > 0 and not report.added
        _assert_same_index(index_state(kb), _reference(tmp_path, folder))


def test_two_processes_syncing_one_home_index_everything_once(tmp_path):
    from pms_tui.core.kb import KnowledgeBase

    folder = _til_folder(tmp_path, 6)
    home = tmp_path / "home"
    with KnowledgeBase(home=home) as kb:
        kb.collections.create(folder, name="til")
    procs = [_start_sync(home) for _ in range(2)]
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err[-2000:]
        assert "finished" in out
    with KnowledgeBase(home=home) as kb:
        _assert_same_index(index_state(kb), _reference(tmp_path, folder))


@pytest.mark.slow
def test_kill_9_at_ten_random_moments_converges_every_time(tmp_path):
    """`python -m pytest -m slow tests/test_embed_queue.py`: 10 kills at random moments of a
    first sync (reading or embedding), each followed by a sync that must converge."""
    import random

    from pms_tui.core.kb import KnowledgeBase

    folder = _til_folder(tmp_path, 25)
    reference = _reference(tmp_path, folder)
    rng = random.Random(10)
    for round_ in range(10):
        home = tmp_path / f"home{round_}"
        with KnowledgeBase(home=home) as kb:
            kb.collections.create(folder, name="til")
        proc = _start_sync(home)
        time.sleep(rng.uniform(0.5, 6.0))
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=120)
        with KnowledgeBase(home=home) as kb:
            kb.sync()
            _assert_same_index(index_state(kb), reference)


def test_the_drained_queue_gives_its_pages_back(kb, tmp_path):
    """A text leaves the queue without leaving its pages behind: once every vector is stored,
    the ``vectors`` table holds hashes only, densely (it once kept every page the queued texts
    had filled, 0.8 KB per chunk of a 100,000-chunk index)."""
    folder = tmp_path / "long"
    for i in range(80):
        words = " ".join(f"word{i}x{j}" for j in range(110))
        write(folder, f"note{i:03d}.md", f"# Note {i}\n\n{words}\n")
    kb.collections.create(folder, name="long")
    report = kb.sync(embed=False)
    conn = kb._store.conn
    rows = conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
    page = conn.execute("PRAGMA page_size").fetchone()[0]

    def table_bytes() -> int:
        return page * conn.execute("SELECT count(*) FROM dbstat WHERE name = 'vectors'").fetchone()[0]

    assert rows == report.chunks_queued >= 80
    assert table_bytes() / rows > 500  # the queued texts fill the table's pages
    assert kb.index.embed_pending() == rows
    assert kb.index.vectors_pending == 0 and kb.stats()["vectors"] == rows
    assert table_bytes() / rows < 200  # 16-byte hashes and ids, densely packed
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    joined = conn.execute("SELECT count(*) FROM chunks c JOIN vectors v ON v.id = c.vector_id "
                          "JOIN vec_vectors x ON x.rowid = v.id").fetchone()[0]
    assert joined == conn.execute("SELECT count(*) FROM chunks").fetchone()[0]  # every chunk keeps its vector
