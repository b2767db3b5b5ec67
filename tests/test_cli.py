"""The command line, run as a user would: a real process, a throwaway home."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.kb_helpers import CORPORA, NOTES, write
from pms_tui.core.config import Settings


def run(home, *args, check=True):
    proc = subprocess.run(
        [sys.executable, "-m", "pms_tui", "--home", str(home), *args],
        capture_output=True, text=True, timeout=300,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def test_version(tmp_path):
    from importlib.metadata import version

    assert run(tmp_path / "home", "--version").stdout.strip() == f"pms-tui {version('pms-tui')}"


def test_add_sync_search_status_show(tmp_path, notes_dir):
    home = tmp_path / "home"
    assert "Added collection 'notes'" in run(home, "add", str(notes_dir), "--name", "notes").stdout
    assert "+3 new" in run(home, "status").stdout
    assert "+3 new" in run(home, "sync").stdout
    hits = json.loads(run(home, "search", "undo the last commit", "-k", "3", "--json").stdout)["hits"]
    top = hits[0]
    assert top["path"] == "git/undo-commit.md" and top["collection"] == "notes"
    assert set(top) >= {"path", "collection", "title", "headings", "id", "file", "start_line", "end_line", "score",
                        "rrf", "bm25_rank", "vector_rank", "snippet", "text"}
    assert top["bm25_rank"] and top["vector_rank"]

    (notes_dir / "cooking/bread.md").write_text("# Sourdough bread\n\nNow with rye.\n")
    assert "Sync status: +0 new, ~1 modified, -0 deleted" in run(home, "status").stdout
    report = json.loads(run(home, "sync", "--json").stdout)
    assert report["modified"] == ["notes/cooking/bread.md"] and report["chunks_embedded"] == 1

    shown = run(home, "show", f"notes/git/undo-commit.md:{top['start_line']}").stdout
    assert "git reset --soft HEAD~1" in shown
    listing = json.loads(run(home, "collections", "--json").stdout)
    assert listing[0]["indexed"] == 3


def test_sync_no_embed_writes_text_and_leaves_the_vectors_queued(tmp_path, notes_dir):
    home = tmp_path / "home"
    run(home, "add", str(notes_dir), "--name", "notes")
    report = json.loads(run(home, "sync", "--no-embed", "--json").stdout)
    assert len(report["added"]) == 3 and report["chunks_embedded"] == 0 and report["vectors_pending"] > 0
    hits = json.loads(run(home, "search", "soft reset", "--mode", "bm25", "--json").stdout)["hits"]
    assert hits[0]["path"] == "git/undo-commit.md"
    hybrid = run(home, "search", "soft reset")  # no vectors yet: BM25 answers, and it says why
    assert "1. " in hybrid.stdout and "lanes: bm25; vector lane off while vectors are computed: 0%" in hybrid.stderr
    again = json.loads(run(home, "sync", "--json").stdout)  # the next sync embeds the queue
    assert again["chunks_embedded"] == report["vectors_pending"] and again["vectors_pending"] == 0


def test_reindex_says_it_reindexed_rather_than_calling_every_note_new(tmp_path, notes_dir):
    home = tmp_path / "home"
    run(home, "add", str(notes_dir), "--name", "notes")
    run(home, "sync")
    out = run(home, "reindex").stdout
    assert out.startswith("Reindexed: 3 notes, 0 skipped;") and "new" not in out
    assert json.loads(run(home, "reindex", "--json").stdout)["reindexed"] is True
    assert "+0 new, ~0 modified, -0 deleted, 3 unchanged" in run(home, "sync").stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (("add", "/definitely/not/here"), "is not a folder"),
        (("remove", "ghost"), "no collection named 'ghost'"),
        (("search", "x", "-c", "ghost"), "no collection named 'ghost'"),
        (("show", "nowhere.md"), "No collections yet: run `pms-tui add PATH`"),
        (("clip", "ftp://example.org/x"), ""),
    ],
)
def test_errors_are_one_sentence(tmp_path, args, message):
    proc = run(tmp_path / "home", *args, check=False)
    assert proc.returncode != 0
    assert message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


@pytest.fixture(scope="module")
def notes_synced_by_cli(tmp_path_factory):
    """(home, notes folder): the three NOTES added as ``notes`` and synced with the CLI, once
    for the tests below, which only search and explain (nothing they run writes)."""
    base = tmp_path_factory.mktemp("cli-notes")
    home, notes = base / "home", base / "notes"
    for rel, text in NOTES.items():
        write(notes, rel, text)
    assert "Added collection 'notes'" in run(home, "add", str(notes)).stdout  # named after its folder
    assert "+3 new" in run(home, "sync").stdout
    return home, notes


def test_operator_query_from_the_shell(notes_synced_by_cli):
    home, _notes = notes_synced_by_cli
    out = json.loads(run(home, "search", '"AND * NEAR( -:^', "--json").stdout)
    assert isinstance(out["hits"], list) and out["query"]["raw"] == '"AND * NEAR( -:^'


def test_search_language_json_carries_query_and_evidence(notes_synced_by_cli):
    home, _notes = notes_synced_by_cli
    out = json.loads(run(home, "search", 'reset tag:git -"dutch oven" after:someday', "--json").stdout)
    query = out["query"]
    assert query["terms"] == ["reset"] and query["tags"] == ["git"] and query["exclude"] == ["dutch oven"]
    assert query["ignored"] == [{"text": "after:someday", "reason": query["ignored"][0]["reason"]}]
    assert "not a date" in query["ignored"][0]["reason"]
    assert {h["path"] for h in out["hits"]} == {"git/undo-commit.md"}
    evidence = out["hits"][0]["evidence"]
    assert set(evidence["filters"]) == {"tag:git", '-"dutch oven"'}
    assert "reset" in evidence["matched"]["body"] and evidence["rrf"] == out["hits"][0]["rrf"]
    # the one query word is in BM25's first passage: BM25's ranks count with the confident k
    confident, base = Settings.confident_k, Settings.rrf_k
    assert out["fusion"]["coverage"] == 1.0 and out["fusion"]["k"] == {"bm25": confident, "vector": base}
    text = run(home, "search", "reset tag:git after:someday", "--explain")
    assert f"RRF (k: bm25 {confident}, vector {base})" in text.stdout
    assert "holds 100% of the query's words" in text.stdout
    assert "ignored after:someday" in text.stderr
    assert "filters: tag:git" in text.stderr
    # a query that starts with '-' goes after --
    assert json.loads(run(home, "search", "--json", "--", "-bread reset").stdout)["query"]["exclude"] == ["bread"]


def test_a_query_from_the_shell_is_finished_words_match_whole(notes_synced_by_cli):
    # the app matches the last word as a prefix while it is typed; a command's query is finished
    home, _notes = notes_synced_by_cli

    def notes(query):
        return {h["path"] for h in json.loads(run(home, "search", query, "--mode", "bm25", "--json").stdout)["hits"]}

    assert "git/undo-commit.md" in notes("commit")
    assert "git/undo-commit.md" not in notes("comm")
    assert run(home, "search", "commit", "-k", "1").stderr.startswith("(1 hit in ")


def test_explain_command(notes_synced_by_cli):
    home, notes_dir = notes_synced_by_cli
    out = json.loads(run(home, "explain", "soft reset zebra", "notes/git/undo-commit.md", "--json").stdout)
    assert out["bm25_rank"] == 1 and out["missing"] == ["zebra"] and out["vector_rank"] >= 1
    assert 0 < out["similarity"] <= 1 and out["passes_filters"]
    text = run(home, "explain", "bread tag:git", str(notes_dir / "cooking/bread.md")).stdout
    assert "Filtered out by: tag:git" in text and "BM25: best passage #1" in text
    proc = run(home, "explain", "x", "nowhere.md", check=False)
    assert proc.returncode != 0 and "nowhere.md does not exist" in proc.stderr


def test_corrupt_index_is_one_sentence(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "index.sqlite").write_bytes(b"this is not a database" * 100)
    proc = run(home, "collections", check=False)
    assert proc.returncode == 1 and "damaged or not a pms-tui database" in proc.stderr


def test_empty_home_is_helpful(tmp_path):
    assert "No collections yet" in run(tmp_path / "home", "sync").stdout


@pytest.mark.skipif(not (CORPORA / "markdown/jbranchaud-til").is_dir(), reason="shared corpora absent")
def test_real_vault_subset(tmp_path):
    """A slice of a real personal knowledge base (jbranchaud/til, git folder)."""
    home = tmp_path / "home"
    run(home, "add", str(CORPORA / "markdown/jbranchaud-til/git"), "--name", "git")
    run(home, "sync")
    hits = json.loads(run(home, "search", "undo the last commit", "--json", "-k", "5").stdout)["hits"]
    assert any("commit" in h["path"] or "reset" in h["path"] for h in hits[:3])
