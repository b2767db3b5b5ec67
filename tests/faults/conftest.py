"""The fault-injection suite: the real CLI in a subprocess on a throwaway home, the real app.

Helpers here are shared by the files of tests/faults (fixtures) and imported from the tests
package (``from tests.faults.faults_helpers import ...``) where a plain function is handier.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.faults.faults_helpers import cli, make_corpus


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    folder.mkdir()
    return folder


@pytest.fixture(scope="session")
def five_notes_synced_once(tmp_path_factory) -> tuple[Path, Path]:
    """(home, notes): ``make_corpus(notes, 5, tag="d")`` added as the collection ``notes`` and
    synced by the CLI, its WAL checkpointed into the index file. Built once (embedding is
    the slow part); a test that changes the home takes a copy (``five_notes_home``)."""
    base = tmp_path_factory.mktemp("five-notes")
    home, notes = base / "home", base / "notes"
    notes.mkdir()
    make_corpus(notes, 5, tag="d")
    cli(home, "add", str(notes), "--name", "notes")
    cli(home, "sync")
    cli(home, "collections")  # checkpoints the WAL into the main file on close
    return home, notes


@pytest.fixture
def five_notes_home(home: Path, five_notes_synced_once) -> Path:
    """This test's own copy of the home of ``five_notes_synced_once`` (its index file and
    lock file), at ``home``; the notes stay in the shared folder, which no test changes."""
    shutil.copytree(five_notes_synced_once[0], home)
    return home
