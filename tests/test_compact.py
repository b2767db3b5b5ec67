"""`pms-tui compact`: the index file rewritten without its free pages, in 8 KB pages, every
answer the same; refused, the file untouched, while another program has the index open."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import sqlean

from tests.kb_helpers import home_with_4_kb_pages, write

QUERIES = ["tarball archive extract", "sourdough starter", "kubernetes pod restart", "note 17"]
TOPICS = ["extract a tarball archive with tar", "feed the sourdough starter twice a day",
          "restart a kubernetes pod that crashed", "rename a git branch locally and remotely"]


def _old_home(tmp_path: Path) -> Path:
    return home_with_4_kb_pages(tmp_path / "home")


def _answers(kb) -> tuple:
    import numpy as np

    ids, matrix = kb._vectors.snapshot()
    found = []
    for q in QUERIES:
        for mode in ("bm25", "vector", "hybrid"):
            found.append([(h.path, h.start_line, h.score) for h in kb.search(q, k=8, mode=mode)])
    q = kb._embedder.embed_query(QUERIES[0])
    knn = kb._store.conn.execute(
        "SELECT rowid, distance FROM vec_vectors WHERE embedding MATCH ? AND k = 10",
        (np.asarray(q, dtype=np.float32).tobytes(),)).fetchall()
    return found, ids.tolist(), matrix.tobytes(), knn


def _shape(home: Path) -> tuple[int, int]:
    conn = sqlean.connect(str(home / "index.sqlite"))
    try:
        return tuple(conn.execute(f"PRAGMA {p}").fetchone()[0] for p in ("page_size", "freelist_count"))
    finally:
        conn.close()


def test_compact_returns_free_pages_and_moves_to_8_kb_pages_with_every_answer_the_same(tmp_path: Path):
    from pms_tui.core.kb import KnowledgeBase, compact_home

    folder = tmp_path / "notes"
    for i in range(60):
        write(folder, f"n{i:02d}.md", f"# Note {i}\n\n{TOPICS[i % 4]}, note {i}.\n\n" + "filler words here. " * 300)
    home = _old_home(tmp_path)
    with KnowledgeBase(home=home) as kb:
        kb.collections.create(folder, name="notes")
        kb.sync()
        for i in range(0, 60, 2):  # deleted notes leave free pages behind
            (folder / f"n{i:02d}.md").unlink()
        kb.sync()
        before = _answers(kb)
    page_size, free = _shape(home)
    assert page_size == 4096 and free > 0
    size = (home / "index.sqlite").stat().st_size

    shape_before, shape_after = compact_home(home)

    assert (shape_before.page_size, shape_after.page_size) == (4096, 8192)
    assert shape_before.free_pages == free and shape_after.free_pages == 0
    assert shape_after.bytes < size == shape_before.bytes
    assert _shape(home) == (8192, 0)
    with KnowledgeBase(home=home) as kb:
        assert kb._store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert all(check.ok for check in kb.doctor.checks() if check.label in ("file", "full-text", "vectors"))
        assert _answers(kb) == before


def test_compact_is_refused_while_another_program_has_the_index_open(tmp_path: Path):
    from pms_tui.core.errors import StoreError
    from pms_tui.core.kb import KnowledgeBase, compact_home

    write(tmp_path / "notes", "a.md", "# Alpha\n\nsome words about tarballs\n")
    home = _old_home(tmp_path)
    with KnowledgeBase(home=home) as kb:
        kb.collections.create(tmp_path / "notes", name="n")
        kb.sync(embed=False)
    other = KnowledgeBase(home=home)  # the app, say, in another process
    try:
        other.search("tarballs", mode="bm25")
        with pytest.raises(StoreError, match="Another program has the index open"):
            compact_home(home)
        assert [Path(h.path).name for h in other.search("tarballs", mode="bm25")] == ["a.md"]
    finally:
        other.close()
    assert _shape(home)[0] == 4096  # nothing was changed
    compact_home(home)
    assert _shape(home)[0] == 8192


def test_doctor_suggests_compact_and_the_command_says_what_it_did(tmp_path: Path):
    write(tmp_path / "notes", "a.md", "# Alpha\n\nsome words about tarballs\n")
    home = _old_home(tmp_path)

    def run(*args):
        proc = subprocess.run([sys.executable, "-m", "pms_tui", "--home", str(home), *args],
                              capture_output=True, text=True, timeout=300)
        assert "Traceback" not in proc.stderr, proc.stderr
        return proc

    run("add", str(tmp_path / "notes"), "--name", "n")
    run("sync", "--no-embed")
    space = [line for line in run("doctor").stdout.splitlines() if " space " in line]
    assert len(space) == 1 and "4 KB pages" in space[0] and "`pms-tui compact` can make it smaller" in space[0]
    done = run("compact")
    assert done.returncode == 0, done.stderr
    assert "4 KB pages" in done.stdout and "-> " in done.stdout and "8 KB pages, 0.0 MB free" in done.stdout
    space = [line for line in run("doctor").stdout.splitlines() if " space " in line]
    assert "8 KB pages" in space[0] and "compact" not in space[0]
    missing = subprocess.run([sys.executable, "-m", "pms_tui", "--home", str(tmp_path / "none"), "compact"],
                             capture_output=True, text=True, timeout=300)
    assert missing.returncode != 0 and "nothing to compact" in missing.stderr
    assert "Traceback" not in missing.stderr and not (tmp_path / "none" / "index.sqlite").exists()


def test_worth_compacting_by_page_size_and_free_share():
    from pms_tui.core.store.compact import FileShape

    assert FileShape(100_000_000, 4096, 0).worth_compacting
    assert not FileShape(100_000_000, 8192, 100).worth_compacting
    assert FileShape(100_000_000, 8192, 2_000).worth_compacting  # 16 MB of 100 free
    assert FileShape(900_000_000, 8192, 7_000).worth_compacting  # 57 MB free, however large
    assert not FileShape(200_000, 8192, 20).worth_compacting  # a tiny index: 160 KB are nothing
