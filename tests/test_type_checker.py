"""The type checker that .ci/run runs (mypy, configured in pyproject.toml) is live: with the
project's own settings it reports an attribute that a result type does not have, inside a
function without annotations too (check_untyped_defs), before a user meets it as a crash. It
shares the project's mypy cache (.mypy_cache), which .ci/run's own run has just filled."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SNIPPET = '''\
from pms_tui.core.results import Link, PendingFile


def first(links: list[Link]) -> Link:
    return links[0]


def follow(links):  # no annotations: checked all the same
    return first(links).no_such_field


def pending_folder():
    return PendingFile("notes", "a.md").folder
'''


def test_mypy_reports_an_attribute_that_does_not_exist(tmp_path: Path) -> None:
    snippet = tmp_path / "snippet.py"
    snippet.write_text(SNIPPET, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
         "--no-error-summary", str(snippet)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    errors = sorted(line.split(": error: ", 1)[1] for line in done.stdout.splitlines() if ": error: " in line)
    assert errors == [
        '"Link" has no attribute "no_such_field"  [attr-defined]',
        '"PendingFile" has no attribute "folder"  [attr-defined]',
    ], done.stdout + done.stderr
    assert done.returncode == 1
