"""The KnowledgeBase contract and the public Python API the README documents, on a real index."""

from __future__ import annotations

import errno
import subprocess
import sys
import threading

import pytest

from pms_tui.core import kb as kb_module
from pms_tui.core.errors import (
    ClipError,
    CollectionError,
    ConfigError,
    EmbeddingModelError,
    ModelMismatchError,
    PmsError,
    SkipFile,
    StoreError,
    SyncBusyError,
    UsageError,
    describe,
)
from pms_tui.core.results import MODES, SearchResult
from pms_tui.core.store import OperationalError

from tests.webserver import web  # noqa: F401 - fixture used by name


def test_search_result_is_the_hits_with_lanes(synced_kb):
    result = synced_kb.search("undo the last commit", k=3)
    assert isinstance(result, SearchResult)
    assert result.lanes == ("bm25", "vector") and result.notes == ()
    assert [hit.chunk_id for hit in result] == [hit.chunk_id for hit in result.hits]
    assert result[0].relpath == "git/undo-commit.md" and len(result) == 3
    waiting = synced_kb.search("sourdough", k=2, vector=False)
    assert waiting.lanes == ("bm25",) and waiting.notes == ("vector lane waiting for the model",)
    assert not synced_kb.search("zzzqqq", k=3, mode="bm25")


def test_a_slice_of_a_search_result_keeps_what_it_says(synced_kb):
    """A slice is a SearchResult with the same query, lanes, fusion and match (a list's slice
    lost them); the result cannot be changed after the search."""
    import dataclasses

    result = synced_kb.search("undo the last commit", k=3)
    first = result[:1]
    assert isinstance(first, SearchResult) and len(first) == 1 and first[0] == result[0]
    assert (first.query, first.lanes, first.notes, first.fusion, first.match) == \
        (result.query, result.lanes, result.notes, result.fusion, result.match)
    assert first.query is not None and first.fusion is not None and first.match is not None
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.lanes = ()  # type: ignore[misc]
    with pytest.raises(TypeError):
        result[0] = result[1]  # type: ignore[index]


def test_modes_are_defined_once_and_checked(synced_kb):
    assert MODES == ("hybrid", "bm25", "vector")
    with pytest.raises(UsageError, match="Unknown search mode 'fuzzy'"):
        synced_kb.search("x", mode="fuzzy")


def test_readme_python_api(synced_kb, notes_dir):
    kb = synced_kb
    assert [c.name for c in kb.collections.list()] == ["notes"]
    col = kb.collections.get("notes")
    assert col.exists and len(col.files) == 3 and kb.collections.counts(col)[0] == 3
    to_add, to_delete, to_update = kb.check_sync_status()
    assert (to_add, to_delete, to_update) == ([], [], [])
    calls = []
    (notes_dir / "extra.md").write_text("# Kites\n\nKites fly on a windy beach.\n")
    report = kb.sync(progress=lambda done, total, phase: calls.append(phase))
    assert report.added == ["notes/extra.md"] and calls[0] == "scanning" and calls[-1] == "done"
    for hit in kb.search("kites on the beach", k=2):
        assert hit.score > 0 and hit.path and hit.start_line >= 1 and isinstance(hit.heading_path, list)
    query = "soft reset keeps work staged"
    assert kb.retrieval.bm25_search(query, k=2)[0].bm25_rank == 1
    assert kb.retrieval.vector_search(query, k=2)[0].vector_rank == 1
    assert kb.retrieval.rrf(query, k=2)[0].relpath == "git/undo-commit.md"
    bm25_ids, vector_ids = kb.retrieval.candidates(query, k=5)
    assert bm25_ids and vector_ids
    chunks = kb_module.chunk_markdown(markdown="# T\n\nSome text.\n", title="T", target_chars=1000, overlap_lines=2)
    assert chunks[0].heading_path == ("T",)
    assert callable(kb_module.extract_from_url)
    kb.collections.delete("notes")
    assert kb.collections.list() == [] and kb.stats()["chunks"] == 0


def test_the_contract_exports_the_contract():
    """kb's __all__ names what a front end may use, each name defined; the engine's rooms
    (fusion, the query-aware rule, the chunker's parser, the folder walk) are not re-exported,
    and what only an evaluation needs is kb_measure's, not the KnowledgeBase's."""
    from pms_tui.core import kb_measure

    assert all(hasattr(kb_module, name) for name in kb_module.__all__)
    assert not {"fuse", "lane_trust", "parse_note", "walk_notes"} & set(kb_module.__all__)
    for method in ("clear_query_cache", "lane_signals", "indexed_paths", "chunk_notes"):
        assert not hasattr(kb_module.KnowledgeBase, method)
    assert {"lanes", "signals", "chunk_notes", "indexed_paths", "clear_query_cache"} <= set(vars(kb_measure.Measure))


def test_the_contract_holds_what_the_front_ends_use():
    """kb's __all__ is narrow: each name is imported by a front end (the app, the CLI, the MCP
    server, pms-tui eval), or is one of the documented functions of the first version; data
    types, errors and settings come from their own contract modules."""
    import ast
    from pathlib import Path

    package = Path(kb_module.__file__).resolve().parents[1]
    used: set[str] = set()
    for folder in ("tui", "cli", "mcp_server", "eval"):
        for path in (package / folder).rglob("*.py"):
            parts = ["pms_tui", *path.relative_to(package).with_suffix("").parts]
            here = parts if path.name == "__init__.py" else parts[:-1]
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.ImportFrom):
                    continue
                base = here[: len(here) - node.level + 1] if node.level else []
                module = ".".join([*base, *(node.module.split(".") if node.module else [])])
                if module == "pms_tui.core.kb":
                    used |= {alias.name for alias in node.names}
    exported = set(kb_module.__all__)
    assert len(exported) <= 25, sorted(exported)
    assert exported - used == {"chunk_markdown", "extract_from_url"}
    assert used <= exported, sorted(used - exported)


def test_measure_reads_the_lanes_search_fuses(synced_kb):
    from pms_tui.core.kb_measure import Measure

    measure = Measure(synced_kb)
    parsed, lanes = measure.lanes("soft reset keeps work staged", 10)
    assert set(lanes) == {"bm25", "vector"} and parsed.text == "soft reset keeps work staged"
    notes = measure.chunk_notes()
    top = synced_kb.search("soft reset keeps work staged", k=1)[0]
    assert notes[lanes["bm25"][0][0]] == top.relpath == "git/undo-commit.md"
    assert top.relpath in measure.indexed_paths()
    assert measure.signals(parsed, lanes).coverage == 1.0


def test_recent_note_and_chunks_of(synced_kb, notes_dir):
    recent = synced_kb.recent(limit=2)
    assert len(recent) == 2 and all(hit.snippet for hit in recent)
    note = synced_kb.notes.note("notes/git/undo-commit.md")
    collection, rel = note.collection, note.relpath
    assert collection.name == "notes" and rel == "git/undo-commit.md"
    assert synced_kb.notes.note(str(notes_dir / "git/undo-commit.md")).relpath == rel
    with pytest.raises(UsageError, match="does not exist"):
        synced_kb.notes.note("elsewhere/x.md")
    by_name = synced_kb.chunks_of("notes", rel)
    assert by_name and by_name == synced_kb.chunks_of(collection, rel)


def test_cancel_stops_between_documents_and_the_next_sync_completes(kb, notes_dir):
    kb.collections.create(notes_dir, name="notes")
    cancel = threading.Event()

    def progress(done, total, phase):
        if phase == "reading" and done == 1:
            cancel.set()

    first = kb.sync(progress=progress, cancel=cancel)
    assert first.cancelled and len(first.added) == 1
    assert "cancelled" in first.summary
    assert kb.stats()["documents"] == 1
    assert kb.collections.get("notes").last_sync is None  # not a finished sync
    assert len(kb.check_sync_status().to_add) == 2
    second = kb.sync(cancel=threading.Event())
    assert not second.cancelled and len(second.added) == 2
    assert kb.stats()["documents"] == 3 and kb.collections.get("notes").last_sync
    assert kb.check_sync_status().summary == "Sync status: +0 new, ~0 modified, -0 deleted"


def test_a_cancel_set_before_the_sync_writes_nothing(kb, notes_dir):
    kb.collections.create(notes_dir, name="notes")
    cancel = threading.Event()
    cancel.set()
    report = kb.sync(cancel=cancel)
    assert report.cancelled and not report.added and kb.stats()["documents"] == 0


def test_model_state_and_loading(synced_kb):
    kb = synced_kb
    kb.model.load()
    assert kb.model.state == "ready" and kb.model.ready and kb.model.mismatch is None
    kb._embedder.clear_query_cache()
    assert kb.search("sourdough", k=1)


def test_diagnose_reports_every_check(synced_kb):
    checks = synced_kb.doctor.checks()
    labels = [c.label for c in checks]
    assert labels == ["python", "sqlite", "sqlite-vec", "home", "index", "space", "versions", "queue", "file",
                      "full-text", "vectors", "model", "model load", "packages", "documents", "ocr"]
    assert all(c.ok for c in checks), checks


def test_a_second_sync_at_once_is_refused(synced_kb):
    assert synced_kb.index._sync_lock.acquire(blocking=False)
    try:
        with pytest.raises(SyncBusyError, match="already running") as caught:
            synced_kb.sync()
        assert isinstance(caught.value, PmsError)
    finally:
        synced_kb.index._sync_lock.release()


@pytest.mark.parametrize("kind", [ConfigError, CollectionError, StoreError, ClipError, EmbeddingModelError,
                                  ModelMismatchError, SyncBusyError, SkipFile, UsageError])
def test_every_expected_failure_is_a_pms_error_that_says_itself(kind):
    error = kind("The thing could not be done")
    assert isinstance(error, PmsError)
    assert describe(error) == "The thing could not be done."
    assert describe(kind("Already a sentence!")) == "Already a sentence!"


def test_old_base_classes_still_catch():
    assert issubclass(ConfigError, ValueError) and issubclass(CollectionError, ValueError)
    assert issubclass(EmbeddingModelError, RuntimeError) and issubclass(SyncBusyError, RuntimeError)


@pytest.mark.parametrize(("error", "expected"), [
    (OperationalError("database is locked"), "is locked by another program"),
    (OperationalError("file is not a database"), "damaged or not a pms-tui database"),
    (FileNotFoundError(errno.ENOENT, "No such file or directory", "/tmp/x.md"), "No such file or directory: /tmp/x.md."),
    (PermissionError(errno.EACCES, "Permission denied"), "Permission denied."),
    (KeyError("chunk"), "Unexpected error (KeyError): 'chunk'."),
    (RuntimeError(), "Unexpected error (RuntimeError)."),
    (ValueError("bad\nvalue\n  spread"), "Unexpected error (ValueError): bad value spread."),
])
def test_describe_turns_any_exception_into_one_sentence(error, expected):
    text = describe(error)
    assert expected in text
    assert "\n" not in text and "Traceback" not in text and text.endswith(".")


def test_collections_do_not_hold_the_knowledge_base(synced_kb):
    col = synced_kb.collections.get("notes")
    assert not any(value is synced_kb for value in vars(col).values())
    assert not any(value is synced_kb for value in vars(synced_kb.retrieval).values())


def test_front_ends_only_import_the_contract():
    """The engine's rooms stay private: importing the CLI loads no room module by itself."""
    code = ("import sys, pms_tui.cli; "
            "rooms = [m for m in sys.modules if m.startswith(('pms_tui.core.store', 'pms_tui.core.search', "
            "'pms_tui.core.indexing', 'pms_tui.core.clip'))]; "
            "assert not rooms, rooms")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_clip_into_a_collection_by_name(kb, tmp_path, web):  # noqa: F811
    folder = tmp_path / "clips"
    folder.mkdir()
    kb.collections.create(folder, name="web")
    result = kb.clipper.clip(web.url("/docs/config.html"), "web")
    assert result.status == "created" and result.path.parent == folder
    assert kb.search(result.title, k=1)[0].path == str(result.path)
    assert kb.clipper.clip(web.url("/docs/config.html"), "web").status == "duplicate"
    folder.rename(tmp_path / "moved")
    with pytest.raises(CollectionError, match="does not exist"):
        kb.clipper.clip(web.url("/docs/config.html"), "web")


def test_every_subpackage_is_installed():
    """pyproject lists packages by hand (themes/ lives outside pms_tui): a new subpackage must be
    listed, or a clean install (what CI does) lacks it."""
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    listed = set(tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(root).parts) for p in (root / "pms_tui").rglob("__init__.py")}
    assert found <= listed, sorted(found - listed)


def test_diagnose_does_not_call_queued_vectors_a_fault(kb, notes_dir):
    """Text synced with its vectors still queued (``sync --no-embed``) is a healthy index:
    the vectors check says how many wait, it does not count them as missing rows."""
    kb.collections.create(notes_dir, name="notes")
    kb.sync(embed=False)
    [vectors] = [c for c in kb.doctor.checks() if c.label == "vectors"]
    assert vectors.ok, vectors
    assert "waiting to be embedded" in vectors.detail
