"""Point 8: encodings of notes, entities in pages, lone surrogates and undecodable bytes in
queries, and skipped files in ``status``."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.faults.faults_helpers import assert_terminal_safe, cli, cli_env, text

BODY = "# Encoded\n\nquokka island notes with café and 東京\n"


@pytest.mark.parametrize("name, data", [
    ("utf8.md", BODY.encode("utf-8")),
    ("utf8-bom.md", b"\xef\xbb\xbf" + BODY.encode("utf-8")),
    ("utf16-le-bom.md", BODY.encode("utf-16")),  # Python writes the BOM of the machine order
    ("utf16-be-bom.md", b"\xfe\xff" + BODY.encode("utf-16-be")),
    ("utf16-le-explicit.md", b"\xff\xfe" + BODY.encode("utf-16-le")),
])
def test_utf8_with_or_without_bom_and_utf16_with_bom_are_indexed(home, notes, name, data):
    (notes / name).write_bytes(data)
    cli(home, "add", str(notes), "--name", "notes")
    # decoding is the text phase; the search is BM25, so the vectors can stay queued
    report = json.loads(cli(home, "sync", "--no-embed", "--json").stdout)
    assert report["added"] == [f"notes/{name}"], report
    hits = json.loads(cli(home, "search", "quokka café", "--json", "--mode", "bm25").stdout)["hits"]
    assert hits and "東京" in hits[0]["text"] and hits[0]["title"] == "Encoded"
    assert "\ufeff" not in hits[0]["text"]


def test_skipped_files_count_as_skipped_not_new_in_status(home, notes):
    (notes / "good.md").write_text("# Good\n\ntext\n")
    (notes / "binary.md").write_bytes(b"\x00\x01\x02\x03")
    (notes / "latin1.md").write_bytes("# Caf\xe9\n".encode("latin-1"))
    cli(home, "add", str(notes), "--name", "notes")
    cli(home, "sync", "--no-embed")  # skipping is decided in the text phase
    out = text(cli(home, "status").stdout)
    assert "+0 new" in out and "2 skipped" in out, out
    status = json.loads(cli(home, "status", "--json").stdout)
    assert status["to_add"] == [] and len(status.get("skipped", [])) == 2, status
    (notes / "binary.md").write_text("# Now text\n\nfixed\n")  # a skipped file that changes is new again
    assert "+1 new" in text(cli(home, "status").stdout)


def test_undecodable_argv_bytes_in_a_query_become_text(home, notes):
    (notes / "a.md").write_text("# Café\n\nquokka\n")
    cli(home, "add", str(notes), "--name", "notes")
    cli(home, "sync")
    for raw in (b"caf\xe9", b"quokka \xff\xfe", b"\xed\xa0\x80", b"\x1b[2J quokka"):
        proc = subprocess.run([sys.executable, "-m", "pms_tui", "search", raw], capture_output=True,
                              env=cli_env(home), timeout=300)
        err = text(proc.stderr)
        assert proc.returncode == 0 and "Traceback" not in err and "unexpected" not in err, err
        assert_terminal_safe(proc.stdout)


_QUERY = st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=80)


@pytest.fixture(scope="module")
def fuzz_kb(tmp_path_factory):
    from pms_tui.core.kb import KnowledgeBase

    base = tmp_path_factory.mktemp("fuzz")
    notes = base / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# Fuzz\n\nquokka \"quoted\" AND OR NEAR * ^ : - café 東京 \U0001F600\n")
    (notes / "b.md").write_text("# Other\n\nsomething else entirely, with numbers 42 and 3.14\n")
    kb = KnowledgeBase(home=base / "home")
    kb.collections.create(notes, name="notes")
    kb.sync()
    kb.model.load()
    yield kb
    kb.close()


def search_never_fails(kb, query):
    from pms_tui.core import errors

    for mode in ("bm25", "hybrid", "vector"):
        try:
            result = kb.search(query, k=5, mode=mode)
        except errors.PmsError:
            continue  # a sentence for the user is fine; anything else is a bug
        for hit in result:
            json.dumps(hit.snippet)
            hit.snippet.encode("utf-8")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=_QUERY)
def test_fuzzed_queries_with_any_unicode_including_lone_surrogates(fuzz_kb, query):
    search_never_fails(fuzz_kb, query)


@pytest.mark.slow
@settings(max_examples=10_000, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=_QUERY)
def test_fuzzed_queries_slow_ten_thousand(fuzz_kb, query):
    search_never_fails(fuzz_kb, query)


def test_known_bad_queries(fuzz_kb):
    for query in ("\ud800", "a\udcffb", "\udfff quokka", "\x00", "\x1b[2J", "\"", "*", "NEAR(", "^", "-", ""):
        search_never_fails(fuzz_kb, query)
