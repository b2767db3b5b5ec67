"""Query-aware RRF (core/search/lane_trust.py): the rule as pure logic, and its two signals and
its effect measured on a real index with the real model."""

from __future__ import annotations

import numpy as np
import pytest

from tests.kb_helpers import write
from pms_tui.core.config import Settings
from pms_tui.core.kb import KnowledgeBase
from pms_tui.core.kb_measure import Measure
from pms_tui.core.search import lane_trust
from pms_tui.core.search.fusion import fuse

LANES = ("bm25", "vector")
WEIGHTS = {"bm25": 1.0, "vector": 1.0}
DEFAULTS = Settings()  # the rule's four numbers are settings (core/config.py)
RULE = lane_trust.Thresholds.of(DEFAULTS)


# -- the rule (pure logic) -------------------------------------------------------------------
def test_bm25_holding_the_query_counts_its_ranks_with_a_smaller_k():
    fusion = lane_trust.decide(lane_trust.Signals(coverage=1.0, gap=0.5), LANES, 60, WEIGHTS, RULE)
    assert fusion.k == {"bm25": DEFAULTS.confident_k, "vector": 60}
    assert fusion.weights == WEIGHTS  # holding the query wins over a large gap
    assert "holds 100%" in fusion.reasons[0]


def test_a_contradicted_bm25_lane_loses_its_weight():
    signals = lane_trust.Signals(coverage=0.3, gap=0.25)
    fusion = lane_trust.decide(signals, LANES, 60, {"bm25": 1.5, "vector": 1.0}, RULE)
    assert fusion.k == {"bm25": 60, "vector": 60}
    assert fusion.weights == {"bm25": 1.5 * DEFAULTS.contradicted_weight, "vector": 1.0}
    assert "far from the query's meaning" in fusion.reasons[0]


@pytest.mark.parametrize("signals", [
    lane_trust.Signals(coverage=0.5, gap=0.05),  # neither rule
    lane_trust.Signals(coverage=0.5, gap=None),  # BM25's note has no vector yet
    lane_trust.Signals(coverage=None, gap=None),  # BM25 found nothing
])
def test_otherwise_plain_rrf(signals):
    fusion = lane_trust.decide(signals, LANES, 60, WEIGHTS, RULE)
    assert fusion.k == {"bm25": 60, "vector": 60} and fusion.weights == WEIGHTS and not fusion.reasons


def test_one_lane_alone_is_never_adjusted():
    fusion = lane_trust.decide(lane_trust.Signals(1.0, 0.0), ("bm25",), 60, WEIGHTS, RULE)
    assert fusion.k == {"bm25": 60} and not fusion.reasons


def test_a_user_k_below_the_confident_k_is_kept():
    user_k = DEFAULTS.confident_k - 1
    fusion = lane_trust.decide(lane_trust.Signals(1.0, 0.0), LANES, user_k, WEIGHTS, RULE)
    assert fusion.k["bm25"] == user_k


def test_fuse_with_one_k_per_lane():
    fused = fuse({"bm25": [1, 2], "vector": [2, 1]}, {"bm25": 10, "vector": 60})
    by_id = {f.chunk_id: f for f in fused}
    assert by_id[1].rrf == pytest.approx(1 / 11 + 1 / 62)
    assert by_id[2].rrf == pytest.approx(1 / 12 + 1 / 61)
    assert [f.chunk_id for f in fused] == [1, 2]  # the lane with the small k decides
    # the score is rrf over the most it can be (first in both lanes): in the ranking's order
    assert by_id[1].score == pytest.approx((1 / 11 + 1 / 62) / (1 / 11 + 1 / 61))
    assert by_id[1].score > by_id[2].score


# -- on a real index -----------------------------------------------------------------------------
NOTES = {
    "garden.md": "# Raised garden bed\n\nBuild a raised bed from cedar boards and fill it with compost and "
                 "topsoil. Water the seedlings in the morning.\n",
    "insomnia.md": "# Insomnia\n\nFalling asleep is easier in a dark, cool bedroom. Skip caffeine after noon, "
                   "keep the same wake-up time every day and put the phone away an hour before sleeping.\n",
    "espresso.md": "# Espresso\n\nGrind 18 grams of coffee fine, tamp evenly and pull the shot for about 28 "
                   "seconds.\n",
    "rsync.md": "# Copy a folder with rsync\n\n`rsync -av src/ dest/` copies a folder and keeps permissions.\n",
    "naps.md": "# Napping\n\nA short nap of twenty minutes after lunch refreshes you without spoiling the "
               "evening's sleep.\n",
}
PARAPHRASE = "lying awake in bed all night"  # shares only "bed" with the garden note


@pytest.fixture(scope="module")
def small_kb(tmp_path_factory):
    root = tmp_path_factory.mktemp("lane-trust")
    for rel, text in NOTES.items():
        write(root / "notes", rel, text)
    kb = KnowledgeBase(home=root / "home")
    kb.collections.create(root / "notes", name="n")
    kb.sync()
    yield kb
    kb.close()


def _signals(kb, query):
    bm25 = kb.retrieval.bm25_ranked(query, 50)
    vector = kb.retrieval.vector_ranked(query, 50)
    return bm25, vector, Measure(kb).signals(query, {"bm25": bm25, "vector": vector})


def test_coverage_is_the_share_of_query_words_the_first_passage_holds(small_kb):
    assert _signals(small_kb, "raised bed cedar")[2].coverage == 1.0
    partly = _signals(small_kb, "raised bed zebra")[2].coverage
    less = _signals(small_kb, "raised zebra quokka")[2].coverage
    assert 0 < less < partly < 1
    assert _signals(small_kb, "zebra quokka")[2].coverage is None  # BM25 found nothing


def test_coverage_counts_a_word_being_typed_as_a_prefix(small_kb):
    assert _signals(small_kb, "raised bed ced")[2].coverage == 1.0  # "ced" -> cedar
    assert _signals(small_kb, "raised bed ced ")[2].coverage < 1.0  # typed out: the word "ced"


def test_gap_is_measured_against_the_note_at_its_most_similar_passage(small_kb):
    bm25, vector, signals = _signals(small_kb, PARAPHRASE)
    conn = small_kb._store.conn
    top_note = conn.execute("SELECT d.path FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.id = ?",
                            (bm25[0][0],)).fetchone()[0]
    assert top_note == "garden.md"
    vids = np.array(sorted(r[0] for r in conn.execute(
        "SELECT c.vector_id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.path = ?", (top_note,))))
    qvec = small_kb.retrieval.embedder.embed_query(PARAPHRASE)
    _, similarity, _ = small_kb.retrieval.vectors.rank_of(qvec, vids)  # an independent path
    assert signals.gap == pytest.approx((1 - vector[0][1]) - similarity, abs=1e-5)
    assert signals.gap > DEFAULTS.contradiction_gap


def test_a_paraphrase_follows_the_meaning_lane(small_kb):
    aware = small_kb.search(PARAPHRASE, k=4)
    assert aware[0].relpath == "insomnia.md" and aware[0].vector_rank == 1
    assert aware.fusion.weights["bm25"] == DEFAULTS.contradicted_weight
    garden = next(h for h in aware if h.relpath == "garden.md")
    # still shown with its BM25 rank (the evidence is kept); the meaning lane ranks it below
    # the two sleep notes, so BM25's first place at a quarter of its weight no longer leads
    assert garden.bm25_rank == 1 and garden.vector_rank == 3
    small_kb.settings.query_aware_fusion = False
    try:
        plain = small_kb.search(PARAPHRASE, k=4)
    finally:
        small_kb.settings.query_aware_fusion = True
    assert plain[0].relpath == "garden.md"  # plain RRF: BM25's #1 (on one common word) wins
    assert plain.fusion.weights == WEIGHTS and not plain.fusion.reasons


def test_the_evidence_shows_the_query_s_own_k(small_kb):
    result = small_kb.search("espresso shot", k=4)
    hit = result[0]
    k, base = DEFAULTS.confident_k, small_kb.settings.rrf_k
    assert k < base  # else the rule would leave BM25's k as it is
    assert hit.relpath == "espresso.md" and result.fusion.k == {"bm25": k, "vector": base}
    assert hit.vector_rank == 1 and hit.rrf == pytest.approx(1 / (k + 1) + 1 / (base + 1), abs=1e-7)
    lines = small_kb.searcher.evidence(result, hit).lines()
    assert any(line.startswith(f"RRF (k: bm25 {k}, vector {base})") for line in lines)
    assert any("holds 100% of the query's words" in line for line in lines)


def test_the_rule_reads_its_numbers_from_the_settings(small_kb):
    """One home: changing a setting changes the fusion; no second default stands in for it."""
    before = small_kb.search("espresso shot", k=4).fusion.k["bm25"]
    small_kb.settings.confident_k = 1
    try:
        assert small_kb.search("espresso shot", k=4).fusion.k["bm25"] == 1 != before
    finally:
        small_kb.settings.confident_k = DEFAULTS.confident_k
