"""Long use of the app: ``benchmarks/app_soak.py`` types at it through Pilot in its
own process. The default suite types for under a minute; ``-m slow`` for an hour. Both check
that no error was shown and the app did not end with an exception; the hour also holds memory
growth to 10 %. Keystroke-to-results times are printed beside each other, never asserted.

``benchmarks/ui_soak.py`` clicks, types, resizes and toggles panels at random on Obsidian's help
vault (skipped when the corpus is absent): twenty seconds here, twenty minutes under ``-m slow``
(``PMS_UI_SOAK_MINUTES``); the seed is printed, and ``PMS_UI_SOAK_SEED`` repeats a run
(``PMS_UI_SOAK_FOLDER``: another vault)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.kb_helpers import CORPORA

REPO = Path(__file__).resolve().parents[2]


def app_soak(tmp_path: Path, minutes: float, notes: int) -> dict:
    out = tmp_path / "app-soak.json"
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / "app_soak.py"), "--minutes", str(minutes),
                           "--notes", str(notes), "--json", str(out)],
                          capture_output=True, text=True, timeout=minutes * 60 + 600)
    print(done.stdout)
    assert out.exists(), done.stderr[-3000:]
    result = json.loads(out.read_text())
    assert result["crash"] is None, result["crash"]
    assert result["errors_shown"] == 0, result["errors"]
    assert result["end"]["fds"] <= result["after_warm_up"]["fds"] + 1
    return result


@pytest.mark.slow  # the clicked-and-resized soak below runs in every suite
def test_app_typed_at_for_a_while(tmp_path):
    result = app_soak(tmp_path, 0.4, 20)
    assert result["queries"] >= 3


@pytest.mark.slow
def test_app_typed_at_for_an_hour(tmp_path):
    result = app_soak(tmp_path, 60, 300)
    assert result["queries"] >= 200
    assert result["rss_growth_after_warm_up"] <= 0.10


def ui_soak(tmp_path: Path, minutes: float) -> dict:
    folder = Path(os.environ.get("PMS_UI_SOAK_FOLDER") or CORPORA / "markdown" / "obsidian-help")
    if not folder.is_dir():
        pytest.skip(f"{folder} is absent")
    out = tmp_path / "ui-soak.json"
    seed = os.environ.get("PMS_UI_SOAK_SEED")
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / "ui_soak.py"), "--minutes", str(minutes),
                           "--folder", str(folder), "--json", str(out), *(["--seed", seed] if seed else [])],
                          capture_output=True, text=True, timeout=minutes * 60 + 600)
    print(done.stdout)  # the seed first: PMS_UI_SOAK_SEED repeats the run
    assert out.exists(), done.stdout[-2000:] + done.stderr[-3000:]
    result = json.loads(out.read_text())
    assert result["crash"] is None, f"seed {result['seed']}: {result['crash']}\n{result['last_steps']}"
    assert result["errors_shown"] == 0, f"seed {result['seed']}: {result['errors']}"
    assert result["responsive"], f"seed {result['seed']}: no answer to a query at the end"
    return result


def test_app_clicked_typed_resized_at_random(tmp_path):
    result = ui_soak(tmp_path, float(os.environ.get("PMS_UI_SOAK_SHORT_MINUTES", "0.35")))
    assert sum(result["steps"].values()) >= 1  # each step waits for the app: how many is the machine's load


@pytest.mark.slow
def test_app_clicked_typed_resized_at_random_for_twenty_minutes(tmp_path):
    result = ui_soak(tmp_path, float(os.environ.get("PMS_UI_SOAK_MINUTES", "20")))
    assert result["steps"].get("click", 0) >= 1
