""""No note matches well": the calibrated flag on a search result (search.match_quality), in
the API, the CLI's JSON and --min-score."""

from __future__ import annotations

import json
import subprocess
import sys

from pms_tui.core.search import match_quality


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
