"""A reindex killed (SIGKILL-like, no cleanup) after its first note loses nothing: every note
is still found by its words, and the next sync completes it into the index a fresh sync
builds."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.faults.faults_helpers import assert_healthy, cli, cli_env, index_facts, make_corpus, tree_hashes

# the reindex of a separate process, ended by os._exit (as a kill would) once one note is rewritten
KILLED_REINDEX = textwrap.dedent("""
    import os, sys
    from pms_tui.core.kb import KnowledgeBase
    kb = KnowledgeBase(home=sys.argv[1])
    def progress(done, total, phase):
        if phase == "reading" and done >= 1:
            os._exit(9)
    kb.reindex(progress=progress)
    os._exit(0)
""")


def docs_of(facts):
    return facts["docs"]


def test_a_reindex_killed_after_its_first_note_loses_nothing(tmp_path, home, notes):
    make_corpus(notes, 12, paragraphs=2, tag="r")
    before = tree_hashes(notes)
    cli(home, "add", str(notes), "--name", "notes")
    cli(home, "sync")
    proc = subprocess.run([sys.executable, "-c", KILLED_REINDEX, str(home)], env=cli_env(home),
                          capture_output=True, timeout=600)
    assert proc.returncode == 9, proc.stderr.decode("utf-8", "replace")
    facts = index_facts(home)
    assert len(facts["docs"]) == 12  # no note left the index
    for i in (0, 5, 11):  # each note's own title still finds it, by BM25 alone
        out = cli(home, "search", f"Note r{i}", "--mode", "bm25", "--json", "-k", "1").stdout.decode()
        assert f"note-r{i}.md" in out, (i, out)
    cli(home, "sync")  # carries on where the reindex stopped
    done = assert_healthy(home)
    reference = tmp_path / "reference"
    cli(reference, "add", str(notes), "--name", "notes")
    cli(reference, "sync")
    assert docs_of(done) == docs_of(assert_healthy(reference))
    assert tree_hashes(notes) == before
