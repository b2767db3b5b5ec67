"""While a folder's vectors are still computed, hybrid search answers from BM25 alone (the
vector lane would rank the few embedded passages first); it fuses both again once enough
passages have vectors (``vector_min_share``). Real SQLite and the real model."""

from __future__ import annotations

from dataclasses import replace

from pms_tui.core.store import vectors as vector_rows

from tests.kb_helpers import write


def _folder(path, notes: int, word: str):
    for i in range(notes):
        write(path, f"n{i:03d}.md", f"# {word} {i}\n\nParagraph {i} about {word} and lantern item{i}.\n")
    return path


def test_hybrid_leaves_out_the_vector_lane_until_enough_passages_have_vectors(synced_kb, tmp_path):
    kb = synced_kb
    assert kb.search("undo the last commit", k=3).lanes == ("bm25", "vector")
    kb.collections.create(_folder(tmp_path / "big", 40, "kettle"), name="big")
    report = kb.sync(embed=False)  # text now, vectors queued (as the app syncs)
    assert report.vectors_pending >= 40
    share = vector_rows.embedded_share(kb._store.conn)
    assert 0.0 < share < kb.settings.vector_min_share

    during = kb.search("kettle lantern", k=3)
    assert during.lanes == ("bm25",)
    assert len(during.notes) == 1 and during.notes[0].startswith("vector lane off while vectors are computed")
    assert f"{share:.0%} of the passages" in during.notes[0]
    assert during[0].collection == "big"  # found by its words at once
    assert "Vector: pending (this passage is queued for embedding)" in kb.searcher.evidence(during, during[0]).lines()
    embedded = kb.search("undo the last commit", k=3)  # a passage with its vector, the lane off
    lines = kb.searcher.evidence(embedded, embedded[0]).lines()  # the model is ready: the panel says what the search said
    assert f"Vector: not in this search ({embedded.notes[0]})" in lines
    assert not any("model is loading" in line for line in lines)
    assert kb.search("kettle lantern", k=3, mode="vector").lanes == ("vector",)  # asked for: it runs

    kb.settings = replace(kb.settings, vector_min_share=0.0)  # the setting turns it back on
    kb.retrieval.settings = kb.settings
    assert kb.search("kettle lantern", k=3).lanes == ("bm25", "vector")
    kb.settings = kb.retrieval.settings = replace(kb.settings, vector_min_share=0.8)

    kb.index.embed_pending()
    assert vector_rows.embedded_share(kb._store.conn) == 1.0
    after = kb.search("kettle lantern", k=3)
    assert after.lanes == ("bm25", "vector") and after.notes == ()
