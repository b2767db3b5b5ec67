"""Every sync's text at once: a sync started while another one embeds writes its text between
two embedding runs, and its texts join the running embedding (the engine's side; the app's is
tests/tui/test_tui_text_first.py, two processes tests/faults/test_text_beside_embedding.py)."""

from __future__ import annotations

import threading
import time

import numpy as np

from tests.kb_helpers import write


class FakeSlowEmbedder:
    """A fake for the queue's pure logic: each run takes 0.1 s and gives zero vectors."""

    model_name = "fake"
    dim = 384
    workers = 1
    batch_size = 2  # runs of 4 texts: many runs, so many points where another writer can get in

    def __init__(self) -> None:
        self.runs = 0

    def load(self) -> None:
        pass

    @property
    def ready(self) -> bool:
        return True

    def embed_documents(self, texts):
        time.sleep(0.1)
        self.runs += 1
        return np.zeros((len(texts), self.dim), dtype=np.float32)


def _folder(path, notes: int, word: str):
    for i in range(notes):
        write(path, f"n{i:03d}.md", f"# {word} {i}\n\nParagraph {i} about {word} and item{i}.\n")
    return path


def test_a_sync_during_an_embedding_is_searchable_at_once_and_its_vectors_join_the_queue(kb, tmp_path):
    kb.collections.create(_folder(tmp_path / "big", 120, "lantern"), name="big")
    kb._embedder = fake = FakeSlowEmbedder()  # the queue's drain embeds with it; BM25 needs no model
    phases: list[str] = []
    first: dict = {}
    runner = threading.Thread(target=lambda: first.update(report=kb.sync(
        progress=lambda done, total, phase: phases.append(phase))))
    runner.start()
    try:
        while "embedding" not in phases or fake.runs < 2:
            time.sleep(0.01)
        kb.collections.create(_folder(tmp_path / "journal", 1, "pasteis"), name="journal")
        second = kb.sync(collections=["journal"])  # the text goes in; the running drain embeds it
        assert runner.is_alive() and second.chunks_embedded == 0 and second.vectors_pending > 1
        hits = kb.search("pasteis", k=1, mode="bm25")
        assert hits and hits[0].collection == "journal"
    finally:
        runner.join(120)
    assert first["report"].chunks_embedded == 121 and kb.index.vectors_pending == 0


def test_a_sync_while_another_writes_text_waits_its_turn_when_asked(kb, tmp_path):
    from pms_tui.core.errors import SyncBusyError

    kb.collections.create(_folder(tmp_path / "a", 3, "copper"), name="a")
    kb.index._sync_lock.acquire()  # as a running sync's text phase holds it
    try:
        try:
            kb.sync(embed=False)
            raise AssertionError("a second sync did not say a sync is running")
        except SyncBusyError:
            pass
        cancel = threading.Event()
        cancel.set()
        assert kb.sync(embed=False, wait=True, cancel=cancel).cancelled
    finally:
        threading.Timer(0.3, kb.index._sync_lock.release).start()
    report = kb.sync(embed=False, wait=True)  # waits for the release, then syncs
    assert len(report.added) == 3
