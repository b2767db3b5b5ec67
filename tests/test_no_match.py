""""No note matches well": the calibrated flag on a search result (search.match_quality), in
the API, the CLI's JSON and --min-score."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from pms_tui.core.search import match_quality
from tests.kb_helpers import CORPORA


def test_an_unanswered_question_is_weak_and_a_known_one_is_not(synced_kb):
    weak = synced_kb.search("symptoms of vitamin d deficiency in adults", k=3)
    assert weak.weak and weak.match.weak is True
    assert weak.hits  # the nearest notes are still returned, to be shown dimmed
    assert weak.match.similarity < match_quality.RULES[synced_kb.settings.model].similarity
    good = synced_kb.search("undo the last commit", k=3)
    assert not good.weak and good.match.weak is False
    assert good.match.coverage == 1.0


def test_a_lane_alone_or_an_unknown_model_says_unknown(synced_kb):
    assert synced_kb.search("vitamin deficiency", mode="bm25").match.weak is None
    assert not synced_kb.search("vitamin deficiency", mode="bm25").weak
    assert match_quality.judge(0.1, 0.0, "some/uncalibrated-model") is None
    assert match_quality.judge(0.1, 0.0, "pms-tui/all-MiniLM-L6-v2-int8") is True
    assert match_quality.judge(0.9, 0.0, "pms-tui/all-MiniLM-L6-v2-int8") is False
    assert match_quality.judge(0.1, 1.0, "pms-tui/all-MiniLM-L6-v2-int8") is False


def _cli(home, *args) -> dict:
    out = subprocess.run([sys.executable, "-m", "pms_tui.cli", "--home", str(home), "search", *args, "--json"],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    return json.loads(out)


def test_the_cli_json_carries_the_flag_and_min_score_filters(synced_kb):
    home = synced_kb.home
    synced_kb.close()
    weak = _cli(home, "how to train a puppy to stop biting")
    assert weak["weak"] is True and weak["match"]["weak"] is True and weak["hits"]
    good = _cli(home, "sourdough bread overnight")
    assert good["weak"] is False and good["hits"][0]["path"] == "cooking/bread.md"
    kept = _cli(home, "sourdough bread overnight", "--min-score", "0.9")
    assert kept["hits"] and all(h["score"] >= 0.9 for h in kept["hits"])
    assert len(kept["hits"]) < len(good["hits"])


def test_words_no_passage_holds_make_a_query_weak_whatever_its_neighbours_meaning():
    rule = match_quality.RULES["pms-tui/all-MiniLM-L6-v2-int8"]
    assert rule.absent is not None
    near = rule.similarity + 0.2  # near in meaning, as any R question is to an R manual's page
    assert match_quality.judge(near, 0.3, "pms-tui/all-MiniLM-L6-v2-int8", absent=rule.absent) is True
    assert match_quality.judge(near, 0.3, "pms-tui/all-MiniLM-L6-v2-int8", absent=0.0) is False
    assert match_quality.judge(near, 0.3, "pms-tui/all-MiniLM-L6-v2-int8", absent=None) is False
    # a model calibrated without that clause is judged by the other two alone
    assert match_quality.judge(near, 0.3, "m", rule=match_quality.Rule(0.4, 0.5), absent=1.0) is False


R_DATA = CORPORA / "documents" / "r-manuals" / "R-data.pdf"


@pytest.mark.skipif(not R_DATA.is_file(), reason="../shared/corpora/documents/r-manuals is absent")
def test_a_manual_answers_its_own_question_and_not_a_neighbouring_packages(tmp_path):
    """A library of documents: every page of the R manual speaks of R, so a question about a
    package it never names sits near them in meaning; the words no page holds tell."""
    from pms_tui.core.kb import KnowledgeBase

    folder = tmp_path / "manuals"
    folder.mkdir()
    shutil.copy(R_DATA, folder / R_DATA.name)
    with KnowledgeBase(home=tmp_path / "home") as kb:
        kb.collections.create(folder, name="manuals")
        kb.sync()
        asked = kb.search("how do I read an Excel spreadsheet into R", k=5)
        assert asked.weak is False
        assert "page 32 (PDF page 36)" in [h.heading_path[0] for h in asked.hits[:3]]  # its chapter's page
        other = kb.search("use R in a Jupyter notebook", k=5)
        assert other.hits and other.weak is True and other.match.absent >= match_quality.RULES[kb.settings.model].absent
        assert other.match.similarity >= match_quality.RULES[kb.settings.model].similarity  # near, yet weak
        exact = kb.search("read.DIF", k=5)  # a name a page holds as typed is never weak
        assert exact.weak is False
