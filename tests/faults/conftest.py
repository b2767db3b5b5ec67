"""The fault-injection suite: the real CLI in a subprocess on a throwaway home, the real app.

Helpers here are shared by the files of tests/faults (fixtures) and imported by name
(``from faults_helpers import ...``) where a plain function is handier.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    folder.mkdir()
    return folder
