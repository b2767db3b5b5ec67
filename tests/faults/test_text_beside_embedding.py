"""A second process's text goes in while the first embeds: `pms-tui add` + `pms-tui sync` in a
shell while another `pms-tui sync` embeds a long queue. The second writer's text is written
between two of the first one's embedding runs, its vectors join the first one's queue, and a
kill -9 of the first leaves a consistent index that the next sync completes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

from tests.faults.faults_helpers import cli, cli_env, index_facts, make_corpus, text


def _embedding(proc: subprocess.Popen, home) -> bool:
    """Until the first sync is embedding: its text is in and its queue is long."""
    from pms_tui.core.kb import KnowledgeBase

    for line in proc.stdout:
        if line.startswith(b"embedding") and int(line.split()[1]) > 0:
            with KnowledgeBase(home=home) as kb:
                return kb.index.vectors_pending > 0
    return False


PROGRESS_SCRIPT = """
import sys
from pms_tui.core.kb import KnowledgeBase
with KnowledgeBase() as kb:
    kb.sync(progress=lambda done, total, phase: print(phase, done, total, flush=True))
"""


def test_a_second_process_adds_and_syncs_a_folder_while_the_first_embeds(home, notes, tmp_path):
    make_corpus(notes, 120, tag="big")  # ~700 chunk texts: minutes of embedding on a busy machine
    cli(home, "add", str(notes), "--name", "notes")
    first = subprocess.Popen([sys.executable, "-c", PROGRESS_SCRIPT], env=cli_env(home),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert _embedding(first, home), "the first sync never started embedding"
        journal = tmp_path / "journal"
        journal.mkdir()
        (journal / "trip.md").write_text("# Trip to Lisbon\n\nPasteis de nata by the river.\n")
        cli(home, "add", str(journal), "--name", "journal")
        second = cli(home, "sync")  # returns with its text in: it does not wait for the embedding
        assert first.poll() is None, "the first sync ended before the second one's text was in"
        out = text(second.stdout)
        assert "+1 new" in out and f"pid {first.pid} is running" in out, out
        found = cli(home, "search", "pasteis", "--mode", "bm25", "--json")
        assert '"path": "trip.md"' in text(found.stdout)
        from pms_tui.core.kb import KnowledgeBase

        with KnowledgeBase(home=home) as kb:
            assert kb.index.vectors_pending > 0  # the first folder's vectors are still being embedded
    finally:
        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=60)
    facts = index_facts(home)  # killed mid-embedding: consistent, nothing orphaned
    assert facts["quick_check"] == "ok" and facts["fts"] == "ok"
    assert facts["orphan_vectors"] == 0 and facts["missing_vectors"] == 0
    assert ("journal", "trip.md") in facts["docs"]
