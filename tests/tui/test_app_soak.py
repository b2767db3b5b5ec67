"""Long use of the app (issue 22): ``benchmarks/app_soak.py`` types at it through Pilot in its
own process. The default suite types for under a minute; ``-m slow`` for an hour. Both check
that no error was shown and the app did not end with an exception; the hour also holds memory
growth to 10 %. Keystroke-to-results times are printed beside each other, never asserted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

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


def test_app_typed_at_for_a_while(tmp_path):
    result = app_soak(tmp_path, 0.4, 20)
    assert result["queries"] >= 3


@pytest.mark.slow
def test_app_typed_at_for_an_hour(tmp_path):
    result = app_soak(tmp_path, 60, 300)
    assert result["queries"] >= 200
    assert result["rss_growth_after_warm_up"] <= 0.10
