"""A long paragraph is one passage whose vector is its whole text's when the model can read it
at once, else the mean of its windows' (windows.py), and indexes written with the former cut
re-read the notes it cut (schema 6 -> 7)."""

from __future__ import annotations

import numpy as np

from pms_tui.core.indexing.embed import Embedder
from pms_tui.core.indexing.windows import WINDOW_SEP, embed_windowed
from pms_tui.core.kb import KnowledgeBase
from pms_tui.core.store.schema import MIGRATIONS
from tests.kb_helpers import write

FIRST = "Sourdough starter needs flour and water fed every day to stay active and bubbly. " * 8
SECOND = "The violin concerto was premiered in Vienna with a famous soloist and orchestra. " * 8


def fake_embed(texts: list[str]) -> np.ndarray:
    """A fake for the averaging logic alone: a text's vector is (its length, 1), normalised."""
    rows = np.array([[len(t), 1.0] for t in texts], dtype=np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_windows_go_to_the_model_in_calls_no_larger_than_the_run():
    calls = []

    def counting(texts):
        calls.append(len(texts))
        return fake_embed(texts)

    out = embed_windowed(counting, [WINDOW_SEP.join(["whole"] + ["w"] * 16), "plain"])
    assert max(calls) <= 2 and sum(calls) == 17 and out.shape == (2, 2)


def test_plain_texts_pass_through_and_windowed_ones_are_averaged_in_order():
    plain = ["ab", "abcd"]
    assert np.allclose(embed_windowed(fake_embed, plain), fake_embed(plain))
    out = embed_windowed(fake_embed, ["ab", f"abc abcdef{WINDOW_SEP}abc{WINDOW_SEP}abcdef", "a"])
    mean = fake_embed(["abc", "abcdef"]).mean(axis=0)
    assert np.allclose(out[1], mean / np.linalg.norm(mean))
    assert np.allclose(out[[0, 2]], fake_embed(["ab", "a"]))
    assert np.allclose(np.linalg.norm(out, axis=1), 1.0)


def test_a_passage_that_fits_is_embedded_whole_and_only_wholes_are_measured():
    asked = []

    def fits(wholes):
        asked.extend(wholes)
        return [len(w) < 8 for w in wholes]

    texts = ["ab", f"abc abc{WINDOW_SEP}abc{WINDOW_SEP}abc", f"abcdefghij{WINDOW_SEP}abcde{WINDOW_SEP}fghij"]
    out = embed_windowed(fake_embed, texts, fits)
    assert asked == ["abc abc", "abcdefghij"]
    assert np.allclose(out[1], fake_embed(["abc abc"])[0])  # fits: read whole
    mean = fake_embed(["abcde", "fghij"]).mean(axis=0)
    assert np.allclose(out[2], mean / np.linalg.norm(mean))  # too long: its windows' mean


def test_a_long_paragraph_is_one_passage_and_the_model_reads_all_of_it(tmp_path):
    write(tmp_path / "notes", "mixed.md", f"# Mixed\n\n{FIRST.strip()} {SECOND.strip()}\n")
    write(tmp_path / "notes", "bread.md", "# Bread\n\nKneading dough and baking loaves of bread.\n")
    kb = KnowledgeBase(home=tmp_path / "home")
    try:
        kb.collections.create(tmp_path / "notes", name="notes")
        kb.sync()
        rows = kb._store.conn.execute(
            "SELECT c.id, c.vector_id FROM chunks c JOIN documents d ON d.id = c.document_id "
            "WHERE d.path = 'mixed.md'").fetchall()
        assert len(rows) == 1  # one passage for BM25 and the reader
        kb._vectors.refresh()
        ids, matrix = kb._vectors.snapshot()
        stored = matrix[list(ids).index(rows[0][1])]
        windows = [f"Mixed\n\n# Mixed\n\n{FIRST.strip()}", f"Mixed\n\n{SECOND.strip()}"]
        mean = Embedder().embed_documents(windows).mean(axis=0)
        assert np.allclose(stored, mean / np.linalg.norm(mean), atol=2e-3)
        # the paragraph's second half, past the model's 256 tokens, still finds it by meaning
        hits = kb.search("violin concerto premiere in Vienna", k=2, mode="vector").hits
        assert hits[0].relpath == "mixed.md"
    finally:
        kb.close()


def test_a_paragraph_longer_than_the_target_that_fits_the_window_is_read_whole(tmp_path):
    sentence = "The quick brown fox jumps over the lazy dog near the river bank."
    fits, long = " ".join([sentence] * 17), " ".join([sentence] * 24)  # 1,104 and 1,559 chars
    write(tmp_path / "notes", "fits.md", f"# Fits\n\n{fits}\n")
    write(tmp_path / "notes", "long.md", f"# Long\n\n{long}\n")
    kb = KnowledgeBase(home=tmp_path / "home")
    try:
        kb.collections.create(tmp_path / "notes", name="notes")
        kb.sync()
        embedder = Embedder()
        assert embedder.fits_window([f"Fits\n\n# Fits\n\n{fits}", f"Long\n\n# Long\n\n{long}"]) == [True, False]
        kb._vectors.refresh()
        ids, matrix = kb._vectors.snapshot()
        stored = {}
        for path, vector_id in kb._store.conn.execute(
                "SELECT d.path, c.vector_id FROM chunks c JOIN documents d ON d.id = c.document_id"):
            stored[path] = matrix[list(ids).index(vector_id)]
        whole = embedder.embed_documents([f"Fits\n\n# Fits\n\n{fits}"])[0]
        assert np.allclose(stored["fits.md"], whole, atol=2e-3)  # one run of the model, not two halves
        halves = embedder.embed_documents([f"Long\n\n# Long\n\n{' '.join([sentence] * 12)}",
                                           f"Long\n\n{' '.join([sentence] * 12)}"]).mean(axis=0)
        assert np.allclose(stored["long.md"], halves / np.linalg.norm(halves), atol=2e-3)
    finally:
        kb.close()


def test_schema_7_re_reads_notes_the_former_cut_split_and_no_other(tmp_path):
    kb = KnowledgeBase(home=tmp_path / "home")
    try:
        conn = kb._store.conn
        conn.execute("INSERT INTO collections(id, name, path, created_at) VALUES (1, 'n', '/n', 0)")
        for doc in (1, 2):
            conn.execute("INSERT INTO documents(id, collection_id, path, title, sha256, size, mtime_ns, indexed_at) "
                         "VALUES (?, 1, ?, 't', 'abc', 1, 5, 0)", (doc, f"{doc}.md"))
        conn.execute("INSERT INTO vectors(id, hash) VALUES (1, x'00')")
        spans = {1: [(1, 3), (3, 3), (3, 3)],  # the former cut: windows of line 3
                 2: [(1, 10), (9, 20), (21, 21)]}  # structure cuts with overlap: untouched
        for doc, lines in spans.items():
            for seq, (start, end) in enumerate(lines):
                conn.execute("INSERT INTO chunks(document_id, seq, start_line, end_line, title, heading, body, "
                             "vector_id) VALUES (?, ?, ?, ?, 't', '', 'b', 1)", (doc, seq, start, end))
        conn.executescript(MIGRATIONS[5])
        state = dict(conn.execute("SELECT id, mtime_ns FROM documents").fetchall())
        assert state == {1: -1, 2: 5}
    finally:
        kb.close()


def test_schema_12_re_reads_the_notes_holding_a_long_line_and_no_other(tmp_path):
    kb = KnowledgeBase(home=tmp_path / "home")
    try:
        conn = kb._store.conn
        conn.execute("INSERT INTO collections(id, name, path, created_at) VALUES (1, 'n', '/n', 0)")
        for doc in (1, 2, 3):
            conn.execute("INSERT INTO documents(id, collection_id, path, title, sha256, size, mtime_ns, indexed_at) "
                         "VALUES (?, 1, ?, 't', 'abc', 1, 5, 0)", (doc, f"{doc}.md"))
        conn.execute("INSERT INTO vectors(id, hash) VALUES (1, x'00')")
        bodies = {1: "# T\n\n" + "word " * 300,  # a one-line paragraph read in windows
                  2: "\n".join(["a line of forty characters, give or take"] * 40),  # long, short lines
                  3: "short"}
        for doc, body in bodies.items():
            conn.execute("INSERT INTO chunks(document_id, seq, start_line, end_line, title, heading, body, "
                         "vector_id) VALUES (?, 0, 1, 3, 't', '', ?, 1)", (doc, body))
        MIGRATIONS[10](conn)
        state = dict(conn.execute("SELECT id, mtime_ns FROM documents").fetchall())
        assert state == {1: -1, 2: 5, 3: 5}
    finally:
        kb.close()
