"""The question rule of research/questions/question_cv.py as pure logic on hand-made signals."""

from __future__ import annotations

import dataclasses

import question_cv  # research/questions/ is on sys.path: pytest puts a test's own folder there

from pms_tui.core.search import lane_trust

LANES = ("bm25", "vector")
WEIGHTS = {"bm25": 1.0, "vector": 1.0}
HELD = lane_trust.Signals(coverage=1.0, gap=0.0)  # BM25's first passage holds every word


def test_the_base_rule_is_the_product_s():
    for asked in (True, False):
        fusion = question_cv.BASE.decide(HELD, asked, LANES, 3, dict(WEIGHTS))
        assert fusion == lane_trust.decide(HELD, LANES, 3, dict(WEIGHTS), question_cv.BASE.product)


def test_an_asked_query_can_have_bm25_never_confident_and_weigh_less():
    rule = dataclasses.replace(question_cv.BASE, asked_coverage=1.01, asked_weight=0.5, asked_vector_k=1)
    asked = rule.decide(HELD, True, LANES, 3, dict(WEIGHTS))
    assert asked.k == {"bm25": 3, "vector": 1} and asked.weights == {"bm25": 0.5, "vector": 1.0}
    typed = rule.decide(HELD, False, LANES, 3, dict(WEIGHTS))
    assert typed.k["bm25"] == question_cv.BASE.product.confident_k and typed.weights == WEIGHTS


def test_the_grid_starts_with_the_product_and_holds_each_setting_once():
    grid = question_cv.grid()
    assert grid[0] == question_cv.BASE and len(set(grid)) == len(grid)
