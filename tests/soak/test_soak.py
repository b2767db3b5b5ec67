"""Long use of one knowledge base: ``benchmarks/soak.py`` run in its own process.

The default suite runs a short soak (hundreds of queries, a few dozen edits, clips, a watch
process and a second reader); ``-m slow`` runs the whole one (20,000 queries). Both check what
must hold however fast the machine is: no exception, descriptors and threads back where they
were after warm-up, the last edits found and deleted notes gone, the second reader without
errors. The slow one also holds memory growth to 10 %. Times are printed, never asserted.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def soak(tmp_path: Path, *args: str) -> dict:
    out = tmp_path / "soak.json"
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / "soak.py"), *args, "--json", str(out)],
                          capture_output=True, text=True, timeout=3600)
    print(done.stdout)
    assert out.exists(), done.stderr[-3000:]
    return json.loads(out.read_text())


def check(result: dict) -> None:
    warm, end = result["after_warm_up"], result["end"]
    assert result["exceptions"] == 0, result["errors"]
    assert end["other_fds"] == warm["other_fds"]  # descriptors besides the store's connection pool
    assert end["py_threads"] == warm["py_threads"]
    assert end["connections"] <= 4 + 2  # the pool's idle cap, the main thread's, one sync's
    assert result["edits"] > 0 and result["edits_not_found"] == 0
    assert result["deleted_still_found"] == 0
    assert result["clips"] > 0 and result["clips_found"]
    assert result["second_reader"]["queries"] > 0 and result["second_reader"]["error_count"] == 0


def test_short_soak(tmp_path):
    result = soak(tmp_path, "--queries", "500", "--notes", "30", "--edit-interval", "0.3")
    assert result["queries"] == 500 and set(result["kinds"]) >= {"short", "typed", "hostile", "filter"}
    check(result)


@pytest.mark.slow
def test_full_soak(tmp_path):
    result = soak(tmp_path, "--queries", "20000")
    check(result)
    assert result["end"]["threads"] == result["after_warm_up"]["threads"]  # native ones too
    assert result["rss_growth_after_warm_up"] <= 0.10
