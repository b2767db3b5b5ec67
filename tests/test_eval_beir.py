"""``pms-tui eval beir`` / ``eval known-item`` end to end, with the real offline model.

A tiny BEIR-style collection is written into tmp_path; the evaluation cache goes to tmp_path
too (PMS_TUI_EVAL_CACHE), so the user's cache is never touched. A second test runs the first
20 SciFact queries over a small slice of the real corpus when ../shared/corpora is present.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from pms_tui.cli import main
from pms_tui.eval import beir, harness

DOCS = [
    ("d1", "Sourdough bread", "Wild yeast starter ferments flour and water for a tangy sourdough loaf."),
    ("d2", "Espresso extraction", "Fine ground coffee beans brewed under nine bars of pressure give espresso."),
    ("d3", "Tide pools", "Starfish, anemones and crabs live in rocky tide pools along the coast."),
    ("a/b:c.d", "Glacier retreat", "Mountain glaciers are shrinking as summer temperatures rise."),
    ("q3", "A document with the id of a query", "Volcanic eruptions throw ash and lava; magma rises."),
    ("d6", "", "A note without a title about volcanoes: magma chambers feed eruptions of lava."),
    ("d7", "Chess openings", "The Sicilian defence answers e4 with c5 and leads to sharp games."),
]
TOPICS = [
    ("q1", "how do I bake bread with a wild yeast starter"),
    ("q2", "coffee brewed under high pressure"),
    ("q3", "volcano lava and magma eruptions"),
    ("q4", "melting ice in the mountains"),
    ("q5", "a query nobody judged"),
]
QRELS = [("q1", "d1", 1), ("q2", "d2", 1), ("q3", "d6", 1), ("q4", "a/b:c.d", 2), ("q4", "d3", 0)]


def write_collection(folder: Path, docs=DOCS, topics=TOPICS, qrels=QRELS) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    with gzip.open(folder / "corpus.jsonl.gz", "wt", encoding="utf-8") as handle:
        for doc_id, title, text in docs:
            handle.write(json.dumps({"_id": doc_id, "title": title, "text": text, "metadata": {}}) + "\n")
    with gzip.open(folder / "topics.test.tsv.gz", "wt", encoding="utf-8") as handle:
        for qid, text in topics:
            handle.write(f"{qid}\t{text}\n")
    (folder / "qrels.test.txt").write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in qrels))
    return folder


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    root = tmp_path / "cache"
    monkeypatch.setenv("PMS_TUI_EVAL_CACHE", str(root))
    return root


def test_note_names_are_safe_and_distinct():
    names = {beir.note_name(i) for i in ("a/b:c.d", "a_b_c_d", ".hidden", "MED-10", "ü", "x" * 400)}
    assert len(names) == 6
    for name in names:
        assert "/" not in name and not name.startswith(".") and name.endswith(".md") and len(name) < 200
    assert beir.note_name("MED-10") == "MED-10.md"
    assert beir.note_text("  A  title\n", "body") == "# A title\n\nbody\n"
    assert beir.note_text("", "body") == "body\n"


def test_discover_and_read(tmp_path):
    folder = write_collection(tmp_path / "c")
    files = beir.discover(folder)
    assert files.corpus.name == "corpus.jsonl.gz" and files.topics.name == "topics.test.tsv.gz"
    assert beir.read_qrels(files.qrels)["q4"] == {"a/b:c.d": 2, "d3": 0}
    assert list(beir.read_topics(files.topics)) == ["q1", "q2", "q3", "q4", "q5"]
    (folder / "topics.dev.tsv").write_text("x\ty\n")
    assert beir.discover(folder).topics.name == "topics.test.tsv.gz"  # 'test' wins
    with pytest.raises(beir.BeirError):
        beir.discover(tmp_path / "missing")


def test_beir_eval_end_to_end_and_cached(tmp_path, cache, capsys):
    folder = write_collection(tmp_path / "c")
    report = beir.evaluate(folder, ["bm25", "vector", "hybrid"], quiet=True)
    assert report["documents"] == len(DOCS)
    assert report["queries"] == 4  # q5 has no judgment: skipped, as trec_eval does
    assert report["index"]["chunks_embedded"] == len(DOCS) and not report["index"]["cached"]
    for mode, m in report["modes"].items():
        for name in ("ndcg@10", "recall@100", "mrr@10"):
            assert 0.0 <= m[name] <= 1.0, (mode, name)
        assert m["median_ms"] > 0
        assert m["recall@100"] == 1.0  # every judged doc is somewhere in a 7-doc corpus
    assert report["modes"]["bm25"]["mrr@10"] >= 0.75
    assert report["modes"]["hybrid"]["ndcg@10"] >= 0.75
    row = report["against_better_lane"]["all"]
    best = max(report["modes"]["bm25"]["ndcg@10"], report["modes"]["vector"]["ndcg@10"])
    assert row["n"] == 4 and row["diff"] == pytest.approx(report["modes"]["hybrid"]["ndcg@10"] - best, abs=2e-4)

    # the second run reuses the index: nothing embedded, the build time is remembered
    again = beir.evaluate(folder, ["bm25"], quiet=True)
    assert again["index"]["cached"] and again["index"]["chunks_embedded"] == len(DOCS)
    for name in ("ndcg@10", "recall@100", "mrr@10"):
        assert again["modes"]["bm25"][name] == report["modes"]["bm25"][name]
    assert len([p for p in cache.iterdir() if p.is_dir()]) == 1

    # a changed chunk setting builds a new index
    settings = harness.eval_settings()
    settings.chunk_target = 400
    beir.evaluate(folder, ["bm25"], settings=settings, quiet=True)
    assert len([p for p in cache.iterdir() if p.is_dir()]) == 2


def test_chunks_per_second_is_by_the_build_s_wall_clock():
    # two embedding threads: their model seconds add up past the build's own seconds
    info = harness.BuildInfo(key="k", path="p", build_seconds=2.0, embed_seconds=3.5, chunks_embedded=10)
    assert info.chunks_per_second == 5.0 and info.to_json()["chunks_per_second"] == 5.0
    assert harness.BuildInfo(key="k", path="p").chunks_per_second == 0.0


def test_query_id_equal_to_doc_id_is_ignored(tmp_path, cache):
    folder = write_collection(tmp_path / "c")
    prep = beir.prepare(folder, quiet=True)
    try:
        queries = [("q3", "volcanic eruptions ash lava magma")]
        doc_of = lambda h: prep.mapping.get(h.relpath)  # noqa: E731
        kept = harness.run_mode(prep.kb, queries, "bm25", doc_of, exclude_self=False).run["q3"]
        dropped = harness.run_mode(prep.kb, queries, "bm25", doc_of, exclude_self=True).run["q3"]
    finally:
        prep.kb.close()
    assert kept[0] == "q3"  # the doc named like the query matches best...
    assert "q3" not in dropped and dropped[0] == "d6"  # ...and is ignored, as BEIR does


def test_cli_json_and_table(tmp_path, cache, capsys):
    folder = write_collection(tmp_path / "c")
    assert main(["eval", "beir", str(folder), "--mode", "bm25", "--json", "--limit", "2"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["queries"] == 2 and list(data["modes"]) == ["bm25"]
    assert main(["eval", "beir", str(folder), "--mode", "all"]) == 0
    out = capsys.readouterr().out
    for word in ("nDCG@10", "Recall@100", "MRR@10", "bm25", "vector", "hybrid", "median ms"):
        assert word in out


def test_several_collections_and_their_references(tmp_path, cache, capsys):
    first = write_collection(tmp_path / "scifact-mini")
    second = write_collection(tmp_path / "other", docs=DOCS[:5], topics=TOPICS[:2], qrels=QRELS[:2])
    assert main(["eval", "beir", str(first), str(second), "--mode", "all"]) == 0
    out = capsys.readouterr().out
    summary = out[out.index("collection "):].splitlines()[1:]
    assert [line.split()[:2] for line in summary] == [
        ["scifact-mini", "bm25"], ["scifact-mini", "vector"], ["scifact-mini", "hybrid"],
        ["other", "bm25"], ["other", "vector"], ["other", "hybrid"],
    ]
    assert "RRF(BM25 flat + bge-base-en-v1.5), k=60 0.742" in out  # matched by folder name
    assert main(["eval", "beir", str(first), str(second), "--mode", "bm25", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["queries"] for r in data["collections"]] == [4, 2]


def test_known_item(tmp_path, cache, capsys):
    notes = tmp_path / "notes"
    (notes / "cooking").mkdir(parents=True)
    (notes / "cooking" / "bread.md").write_text("# Sourdough\n\nFeed the starter flour and water daily.\n")
    (notes / "coffee.md").write_text("# Espresso\n\nNine bars of pressure through finely ground beans.\n")
    (notes / "sea.md").write_text("# Tide pools\n\nStarfish and anemones at low tide.\n")
    queries = tmp_path / "q.jsonl"
    rows = [
        {"qid": "1", "query": "keeping a wild yeast culture alive", "target": "cooking/bread.md", "kind": "paraphrase"},
        {"qid": "2", "query": "espresso", "target": "coffee.md", "kind": "keyword"},
        {"qid": "3", "query": "anemones", "target": "sea.md", "kind": "keyword"},
        # cut mid-word, as typed: searched as the app does then ("anemo" is no word of any note)
        {"qid": "4", "query": "anemo", "target": "sea.md", "kind": "prefix"},
    ]
    queries.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["eval", "known-item", str(queries), "--collection", str(notes), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["queries"] == 4 and data["missing_targets"] == []
    assert data["modes"]["bm25"]["by_kind"]["prefix"]["recall@1"] == 1.0
    for mode in ("bm25", "vector", "hybrid"):
        m = data["modes"][mode]
        assert set(m["by_kind"]) == {"keyword", "paraphrase", "prefix"}
        assert m["by_kind"]["keyword"]["recall@1"] == 1.0
        assert 0.0 <= m["overall"]["mrr@10"] <= 1.0
    assert data["modes"]["hybrid"]["overall"]["recall@5"] == 1.0
    against = data["against_better_lane"]  # the hybrid beside its better lane, per kind
    assert set(against) == {"all", "keyword", "paraphrase", "prefix"} and against["keyword"]["n"] == 2
    for row in against.values():
        low, high = row["ci95"]
        assert row["better_lane"] in ("bm25", "vector") and low <= row["diff"] <= high
    assert main(["eval", "known-item", str(queries), "--collection", str(notes)]) == 0
    assert "hybrid minus the better lane" in capsys.readouterr().out
    assert main(["eval", "known-item", str(queries), "--collection", str(notes), "--mode", "bm25"]) == 0
    out = capsys.readouterr().out
    assert "R@1" in out and "better lane" not in out  # one mode: nothing to set beside it


SCIFACT = Path(__file__).resolve().parents[1].parent / "shared" / "corpora" / "beir" / "scifact"


@pytest.mark.skipif(not SCIFACT.is_dir(), reason=f"SciFact is not staged at {SCIFACT}")
def test_scifact_first_20_queries_sane(tmp_path, cache):
    """The first 20 SciFact queries over their judged documents plus every 40th document
    (about 150 notes, so the test embeds for well under a minute). Bounds, not exact numbers."""
    files = beir.discover(SCIFACT)
    topics = list(beir.read_topics(files.topics).items())[:20]
    qrels = beir.read_qrels(files.qrels)
    wanted = {d for q, _ in topics for d in qrels.get(q, {})}
    docs = [(i, t, x) for n, (i, t, x) in enumerate(beir.read_corpus(files.corpus)) if i in wanted or n % 40 == 0]
    judged = [(q, d, r) for q, _ in topics for d, r in qrels.get(q, {}).items()]
    folder = write_collection(tmp_path / "scifact20", docs, topics, judged)
    report = beir.evaluate(folder, ["bm25", "vector", "hybrid"], quiet=True)
    assert report["queries"] == 20
    m = report["modes"]
    assert m["bm25"]["ndcg@10"] > 0.5 and m["vector"]["ndcg@10"] > 0.5
    assert m["hybrid"]["ndcg@10"] > 0.6
    assert min(x["recall@100"] for x in m.values()) > 0.85
