"""The metric code against hand-computed cases (trec_eval ndcg_cut / recall / recip_rank semantics)."""

import math

import pytest

from pms_tui.eval import metrics
from pms_tui.eval.known_item import score, summarize

L2 = math.log2


def test_ndcg_two_relevant_at_ranks_1_and_3():
    judged = {"a": 1, "c": 1}
    got = metrics.ndcg_at(["a", "b", "c", "d"], judged, 10)
    dcg = 1 / L2(2) + 1 / L2(4)  # 1 + 0.5
    ideal = 1 / L2(2) + 1 / L2(3)  # 1 + 0.6309
    assert got == pytest.approx(dcg / ideal)
    assert got == pytest.approx(1.5 / 1.6309297535714575)


def test_ndcg_perfect_and_empty():
    assert metrics.ndcg_at(["a", "c", "x"], {"a": 1, "c": 1}, 10) == pytest.approx(1.0)
    assert metrics.ndcg_at([], {"a": 1}, 10) == 0.0
    assert metrics.ndcg_at(["x", "y"], {"a": 1}, 10) == 0.0


def test_ndcg_graded_gains_and_ideal_from_all_judged():
    # grades are the gains; the ideal ranking uses every relevant judged doc, retrieved or not
    judged = {"a": 2, "b": 1, "z": 3, "n": 0}
    got = metrics.ndcg_at(["b", "a", "n"], judged, 10)
    dcg = 1 / L2(2) + 2 / L2(3)
    ideal = 3 / L2(2) + 2 / L2(3) + 1 / L2(4)
    assert got == pytest.approx(dcg / ideal)


def test_ndcg_cutoff_counts_only_top_k_and_ideal_is_cut_too():
    judged = {f"r{i}": 1 for i in range(12)}
    ranked = [f"r{i}" for i in range(12)]
    assert metrics.ndcg_at(ranked, judged, 10) == pytest.approx(1.0)
    # one relevant doc at rank 11: outside the cut
    assert metrics.ndcg_at([f"x{i}" for i in range(10)] + ["r0"], {"r0": 1}, 10) == 0.0


def test_negative_grades_are_not_relevant():
    judged = {"a": -1, "b": 1}
    assert metrics.ndcg_at(["a", "b"], judged, 10) == pytest.approx((1 / L2(3)) / 1.0)
    assert metrics.recall_at(["a"], judged, 100) == 0.0
    assert metrics.mrr_at(["a", "b"], judged, 10) == 0.5


def test_recall_at_100():
    judged = {"a": 1, "b": 1, "c": 1}
    ranked = ["a"] + [f"x{i}" for i in range(98)] + ["b", "c"]  # b at 100, c at 101
    assert metrics.recall_at(ranked, judged, 100) == pytest.approx(2 / 3)
    assert metrics.recall_at([], judged, 100) == 0.0


def test_mrr_at_10():
    judged = {"c": 1, "e": 1}
    assert metrics.mrr_at(["a", "b", "c", "e"], judged, 10) == pytest.approx(1 / 3)
    assert metrics.mrr_at(["x"] * 10 + ["c"], judged, 10) == 0.0
    assert metrics.mrr_at(["e"], judged, 10) == 1.0


def test_unique_keeps_best_chunk_rank():
    assert metrics.unique(["d1", "d2", "d1", None, "d3", "d2"]) == ["d1", "d2", "d3"]


def test_evaluate_skips_unjudged_queries_and_counts_missing_runs_as_zero():
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 0}}  # q3 has no relevant doc: skipped
    run = {"q1": ["a"], "q3": ["c"]}  # q2 retrieved nothing
    assert metrics.judged_queries(qrels) == ["q1", "q2"]
    scores = metrics.evaluate(run, qrels)
    assert scores["ndcg@10"] == pytest.approx(0.5)
    assert scores["recall@100"] == pytest.approx(0.5)
    assert scores["mrr@10"] == pytest.approx(0.5)
    only = metrics.evaluate(run, qrels, ["q1", "q3"])
    assert only["ndcg@10"] == pytest.approx(1.0)


def test_known_item_scores():
    assert score(["a.md", "b.md"], "a.md") == {"recall@1": 1.0, "recall@5": 1.0, "mrr@10": 1.0}
    s = score(["x", "y", "a.md"], "a.md")
    assert s["recall@1"] == 0.0 and s["recall@5"] == 1.0 and s["mrr@10"] == pytest.approx(1 / 3)
    s = score([f"x{i}" for i in range(5)] + ["a.md"], "a.md")
    assert s == {"recall@1": 0.0, "recall@5": 0.0, "mrr@10": pytest.approx(1 / 6)}
    agg = summarize([score(["a"], "a"), score(["b", "a"], "a")])
    assert agg == {"n": 2, "recall@1": 0.5, "recall@5": 1.0, "mrr@10": 0.75}


def test_paired_bootstrap_interval():
    # a constant difference has no spread; the interval is that difference
    assert metrics.paired_bootstrap([1.0, 0.5, 0.25], [0.5, 0.0, -0.25]) == (0.5, 0.5, 0.5)
    # one query of ten lost by 1.0: mean -0.1; resampling can drop it (0) or repeat it
    a, b = [1.0] * 9 + [0.0], [1.0] * 10
    diff, low, high = metrics.paired_bootstrap(a, b)
    assert diff == pytest.approx(-0.1)
    assert low < -0.1 < high <= 0.0
    assert metrics.paired_bootstrap(a, b) == (diff, low, high)  # seeded
    with pytest.raises(ValueError):
        metrics.paired_bootstrap([1.0], [])


def test_against_better_lane_picks_the_better_lane_per_group():
    per_query = {
        "bm25": {"q1": 1.0, "q2": 0.0, "q3": 1.0},
        "vector": {"q1": 0.0, "q2": 1.0, "q3": 0.5},
        "hybrid": {"q1": 1.0, "q2": 0.5, "q3": 1.0},
    }
    got = metrics.against_better_lane(per_query, {"all": ["q1", "q2", "q3"], "meaning": ["q2"]})
    assert got["all"]["better_lane"] == "bm25" and got["all"]["diff"] == pytest.approx(0.5 / 3, abs=1e-4)
    assert got["meaning"] == {"n": 1, "better_lane": "vector", "diff": -0.5, "ci95": [-0.5, -0.5]}
    assert metrics.against_better_lane({"bm25": {}, "hybrid": {}}, {"all": ["q1"]}) == {}


def test_published_references_only_where_they_compare():
    from pms_tui.eval.references import published_for

    assert [name for name, _, _ in published_for("/data/beir/nfcorpus")][0] == "BM25 flat, Anserini"
    assert published_for("/cache/nfcorpus-orig-preprocessed") == []  # another text: not comparable
    assert published_for("/cache/cranfield") == []


def test_a_known_item_with_several_targets_counts_the_first_found(tmp_path):
    from pms_tui.eval.known_item import read_queries

    path = tmp_path / "q.jsonl"
    path.write_text('{"qid": "1", "query": "fixup", "targets": ["b.md", "c.md"], "kind": "word"}\n'
                    '{"qid": "2", "query": "x", "target": "a.md"}\n')
    first, second = read_queries(path)
    assert first.target == "b.md" and first.targets == ("b.md", "c.md")
    assert second.targets == ("a.md",)
    assert score(["z.md", "c.md", "b.md"], first.targets) == {"recall@1": 0.0, "recall@5": 1.0, "mrr@10": 0.5}
