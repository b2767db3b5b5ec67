"""Connections and threads made explicit (real SQLite with FTS5 and sqlite-vec, the real model):
a closed index says so instead of opening a new connection; a thread's connection is never
handed to another thread; a sync overtaken by ``close()`` writes nothing after it and ends
without a traceback; a vector-lane request typed over before its turn never embeds."""

from __future__ import annotations

import threading
import time

import pytest
import sqlean as sqlite3
from tests.kb_helpers import NOTES, text_only_kb, write

from pms_tui.core.errors import SearchStopped, describe
from pms_tui.core.kb import KnowledgeBase
from pms_tui.core.store import IndexClosed

CLOSED = "The index is closed."


@pytest.fixture
def folder(tmp_path):
    notes = tmp_path / "notes"
    for rel, text in NOTES.items():
        write(notes, rel, text)
    return notes


@pytest.fixture
def text_kb(tmp_path, folder):
    kb = text_only_kb(tmp_path / "home", folder)
    yield kb
    kb.close()


def _documents(home) -> int:
    with KnowledgeBase(home, embedder=None) as fresh:
        return fresh._store.conn.execute("SELECT count(*) FROM documents").fetchone()[0]


def _on_a_thread(fn):
    """``fn()`` run on a thread of its own, to the end: (its value, the exception it raised)."""
    out: dict = {}

    def run() -> None:
        try:
            out["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - returned to the test
            out["error"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    return out.get("value"), out.get("error")


# -- the closed state ---------------------------------------------------------------------------
def test_every_use_after_close_says_the_index_is_closed(text_kb):
    kb = text_kb
    store = kb._store
    _, error = _on_a_thread(lambda: kb.search("commit", k=3, mode="bm25"))  # a reader on another thread
    assert error is None
    kb.close()
    uses = {
        "conn": lambda: store.conn,
        "a read": lambda: kb.search("commit", k=3, mode="bm25"),
        "a read on another thread": lambda: _raise(_on_a_thread(lambda: store.conn)[1]),
        "a write": lambda: store.transaction().__enter__(),
        "a sync": lambda: kb.sync(embed=False),
    }
    for name, use in uses.items():
        with pytest.raises(IndexClosed) as closed:
            use()
        assert describe(closed.value) == CLOSED, name
    assert store.connection_count() == 0


def _raise(error: BaseException | None) -> None:
    if error is not None:
        raise error


def test_a_finished_threads_connection_is_closed_never_handed_to_another_thread(text_kb):
    store = text_kb._store
    first, _ = _on_a_thread(lambda: store.conn)
    second, _ = _on_a_thread(lambda: store.conn)
    assert second is not first
    with pytest.raises(sqlite3.ProgrammingError):  # closed when the next thread opened its own
        first.execute("SELECT 1")
    # a transaction runs on the one writer connection, whichever thread writes; inside it the
    # thread's reads go to the writer too (they see the transaction's own writes)
    mine = store.conn
    with store.transaction() as writer:
        assert writer is not mine and store.conn is writer
    other, _ = _on_a_thread(lambda: _writer_of(store))
    assert other is writer
    assert store.conn is mine


def test_a_reader_borrowed_for_a_search_is_lent_to_one_thread_at_a_time(text_kb):
    """``reading()``: a search on a thread of its own borrows a reader for its length; two at
    once never share one, and one given back is the thread's no more."""
    store = text_kb._store
    inside, leave = threading.Event(), threading.Event()
    lent: dict[str, object] = {}

    def hold() -> None:
        with store.reading() as conn:
            lent["first"] = conn
            assert store.conn is conn
            inside.set()
            leave.wait(10)
        lent["after"] = store.conn  # given back: this thread now opens its own

    holder = threading.Thread(target=hold)
    holder.start()
    assert inside.wait(10)
    second, _ = _on_a_thread(lambda: _borrowed(store))
    leave.set()
    holder.join(10)
    assert second is not lent["first"]
    assert lent["after"] is not lent["first"] and lent["after"] is not second


def _borrowed(store):
    with store.reading() as conn:
        return conn


def _writer_of(store):
    with store.transaction() as conn:
        return conn


# -- a sync overtaken by close ------------------------------------------------------------------
def test_a_sync_running_when_the_index_closes_writes_nothing_after_and_raises_nothing(tmp_path, text_kb, folder):
    """The sync is held at its first note (a progress report) while the app closes the index;
    it then stops at its next step, its report says cancelled, and nothing more is written."""
    kb = text_kb
    for i in range(40):
        write(folder, f"more/note-{i}.md", f"# Note {i}\n\nA paragraph about topic {i} and its details.\n")
    before = _documents(tmp_path / "home")
    at_first_note, closed = threading.Event(), threading.Event()

    def progress(done: int, total: int, phase: str) -> None:
        if phase == "reading" and done >= 1 and not at_first_note.is_set():
            at_first_note.set()
            closed.wait(10)

    uncaught: list = []
    saved_hook = threading.excepthook
    threading.excepthook = lambda args: uncaught.append(args.exc_value)
    try:
        result: dict = {}

        def sync() -> None:
            result["report"] = kb.sync(progress, embed=False)

        thread = threading.Thread(target=sync)
        thread.start()
        assert at_first_note.wait(10)
        kb.close()
        closed.set()
        thread.join(10)
    finally:
        threading.excepthook = saved_hook
    assert not thread.is_alive()
    assert uncaught == []
    assert result["report"].cancelled
    assert _documents(tmp_path / "home") == before  # the 40 notes read after the close were not written


# -- the vector lane typed over -----------------------------------------------------------------
class CountingEmbedder:
    """The real embedder, counting the queries it embeds; the first one waits for ``release``
    (the lane is busy with it while newer queries arrive)."""

    def __init__(self, inner, first: str):
        self._inner = inner
        self._first = first
        self.embedded: list[str] = []
        self.busy = threading.Event()
        self.release = threading.Event()

    def embed_query(self, text: str):
        self.embedded.append(text)
        if text == self._first:
            self.busy.set()
            self.release.wait(30)
        return self._inner.embed_query(text)

    def __getattr__(self, name):
        return getattr(self._inner, name)


def test_queries_typed_over_before_their_turn_are_never_embedded(synced_kb):
    """Five queries typed in a row while the vector lane embeds the first: the stale ones wait
    for no embedding (each ends with SearchStopped), the newest answers."""
    kb = synced_kb
    queries = ["undo the last commit", "undo the last", "keep my changes", "sourdough starter", "bread recipe"]
    counting = CountingEmbedder(kb._embedder, queries[0])
    kb._embedder = counting  # the model's: the vector lane embeds with it
    newest = [0]
    bm25 = kb.retrieval.bm25
    ranked = bm25.ranked
    ranked_by = {f"search-{i}": threading.Event() for i in range(len(queries))}

    def ranked_and_told(*args, **kwargs):  # BM25 has ranked: the search now waits for its vector lane
        try:
            return ranked(*args, **kwargs)
        finally:
            ranked_by[threading.current_thread().name].set()

    bm25.ranked = ranked_and_told
    outcomes: dict[int, object] = {}

    def search(i: int) -> None:
        try:
            outcomes[i] = kb.search(queries[i], k=5, stop=lambda: newest[0] != i)
        except SearchStopped as exc:
            outcomes[i] = exc

    threads = [threading.Thread(target=search, args=(0,), name="search-0")]
    threads[0].start()
    assert counting.busy.wait(30)
    for i in range(1, len(queries)):
        newest[0] = i
        threads.append(threading.Thread(target=search, args=(i,), name=f"search-{i}"))
        threads[-1].start()
        assert ranked_by[f"search-{i}"].wait(10)
        time.sleep(0.2)  # past BM25's side: the search is waiting for its vector lane
    counting.release.set()
    for t in threads:
        t.join(30)
    assert set(counting.embedded) == {queries[0], queries[-1]}  # the running one and the newest
    assert all(isinstance(outcomes[i], SearchStopped) for i in range(len(queries) - 1))
    assert not isinstance(outcomes[len(queries) - 1], SearchStopped)
    assert list(outcomes[len(queries) - 1])  # the newest query has its hits
