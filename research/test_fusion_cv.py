"""The cross-validation of query-aware fusion (research/fusion_cv.py) as pure logic: hand-made lanes
(fake collections, no index) where the right choice is known."""

from __future__ import annotations

import dataclasses

import fusion_cv  # research/ is on sys.path: pytest puts a test's own folder there


def fake_collection(name: str, n: int = 6) -> fusion_cv.Collection:
    """Known-item queries where BM25's first hit is wrong and far in meaning (gap 0.4): the
    vector lane's first hit is the target. Chunk 100+i is the target of query i."""
    lanes, qrels, kinds, docs = {}, {}, {}, {}
    for i in range(n):
        target, decoys = 100 + i, [200 + 10 * i + j for j in range(3)]
        lanes[f"q{i}"] = {
            "bm25": [[decoys[0], -9.0], [decoys[1], -8.0], [target, -1.0]],
            "vector": [[target, 0.3], [decoys[0], 0.7], [decoys[2], 0.75]],
            "coverage": 0.3, "gap": 0.4,
        }
        qrels[f"q{i}"] = {f"note{target}": 1}
        kinds[f"q{i}"] = "paraphrase"
        docs.update({c: f"note{c}" for c in [target, *decoys]})
    return fusion_cv.Collection(name, "known-item", lanes, qrels, kinds, docs)


def test_each_collection_is_reported_with_a_setting_chosen_on_the_others():
    collections = [fake_collection("a"), fake_collection("b"), fake_collection("c")]
    report = fusion_cv.cross_validate(collections)
    assert [h["collection"] for h in report["held_out"]] == ["a", "b", "c"]
    for held in report["held_out"]:
        assert held["collection"] not in held["chosen_on"] and len(held["chosen_on"]) == 2
        # plain RRF puts the decoy first (BM25 #1 + vector #2); the vector lane has the target first
        assert held["plain"]["paraphrase"] == 0.5 and held["vector"]["paraphrase"] == 1.0
        rule = held["chosen"]["rule"]
        assert rule["gap"] < 0.4 and rule["contradicted_weight"] == 0.0
        assert held["query_aware"]["paraphrase"] == 1.0


def test_the_grid_holds_rrf_k_with_and_without_the_rule():
    grid = fusion_cv.settings_grid()
    assert grid[0] == fusion_cv.Setting(fusion_cv.REFERENCE_K, None)  # the reference comes first
    assert {g.rrf_k for g in grid if g.thresholds is None} == set(fusion_cv.RRF_K)
    # a confident k at or above the setting's own k would change nothing: not on the grid
    assert all(g.thresholds.confident_k < g.rrf_k for g in grid if g.thresholds is not None)
    assert fusion_cv.DEFAULT in grid  # the product's setting is among those tried


def test_fused_ids_follow_the_thresholds():
    lanes = fake_collection("a").lanes["q0"]
    assert fusion_cv.fused_ids(lanes, None)[0] == 200  # plain RRF
    off = dataclasses.replace(fusion_cv.DEFAULT.thresholds, gap=0.5)  # the gap of 0.4 is below it: no rule
    assert fusion_cv.fused_ids(lanes, off)[0] == 200
    assert fusion_cv.fused_ids(lanes, fusion_cv.DEFAULT.thresholds)[0] == 100
    product_k = fusion_cv.DEFAULT.rrf_k  # the same at the product's k, with and without the rule
    assert fusion_cv.fused_ids(lanes, None, product_k)[0] == 200
    assert fusion_cv.fused_ids(lanes, fusion_cv.DEFAULT.thresholds, product_k)[0] == 100


def test_the_ceiling_says_which_groups_no_setting_lifts():
    collections = [fake_collection("a"), fake_collection("b")]
    # in "b", query 0's decoy is BM25's only hit and the vector lane's second, close in meaning
    # (gap 0, so the rule never weighs BM25 down): at any k it outscores the target, which only
    # the vector lane holds (first). The vector lane is perfect on "b"; no fusion is.
    target, decoy = 100, 200
    collections[1].lanes["q0"] = {"bm25": [[decoy, -9.0]], "vector": [[target, 0.3], [decoy, 0.32]],
                                  "coverage": 0.3, "gap": 0.0}
    report = fusion_cv.cross_validate(collections)["ceiling"]
    assert report["settings"] == len(fusion_cv.settings_grid())
    a, b = report["a"]["paraphrase"], report["b"]["paraphrase"]
    assert a["best_minus_better_lane"] == 0.0  # level with the perfect vector lane at best
    assert a["best_setting"]["rule"] != "plain RRF"  # plain RRF puts a's decoys first
    assert 0 < a["settings_not_below"] < report["settings"]
    assert b["best_minus_better_lane"] == round((0.5 - 1.0) / 6, 4) and b["settings_not_below"] == 0
    assert report["settings_with_no_group_below"] == 0
