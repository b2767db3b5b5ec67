"""What the CLI says is true: a note named as a wikilink is found, a whole note is printed
once, the counts of ``collections`` mean one thing each, ``sync`` says the skips that stand,
and a note's links to its own headings are not its backlinks (in the engine, so the app and
MCP agree). Real SQLite and a real ``python -m pms_tui`` process for every printed line."""

from __future__ import annotations

import json

import pytest

from pms_tui.core.kb import KnowledgeBase
from tests.kb_helpers import write
from tests.test_cli import run

LONG_PARAGRAPH = "\n".join(f"Sentence {j} of a paragraph that runs on for many lines, each ending in a break."
                           for j in range(120))


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    base = tmp_path_factory.mktemp("cli-counts")
    folder = base / "vault"
    write(folder, "Internal links.md", "# Internal links\n\nSee [[#Heading two]] and [[Internal links#^blk]], "
                                       "and [[Long note#Part two|the second part]].\n\n## Heading two\n\n"
                                       "Text under it. ^blk\n")
    write(folder, "Long note.md", "# Long note\n\n" + LONG_PARAGRAPH + "\n\n## Part two\n\nThe end of it.\n")
    write(folder, "other.md", "# Other\n\nA link to [[Internal links#Heading two]].\n")
    (folder / "broken.pdf").write_bytes(b"not a pdf at all\n")
    home = base / "home"
    added = run(home, "add", str(folder), "--name", "vault").stdout
    assert "3 notes, 1 document)" in added  # a PDF counted as what it is, not as a note or nothing
    run(home, "sync", "--no-embed")
    return home


@pytest.mark.parametrize("ref", ["[[Internal links]]", "[[Internal links|an alias shown]]",
                                 "![[Internal links]]", "[[Internal links#Heading two]]"])
def test_show_finds_a_note_named_as_a_wikilink(home, ref):
    out = run(home, "show", ref).stdout
    assert out.startswith("── vault/Internal links.md:1-7") and "Text under it." in out


def test_a_wikilink_to_a_heading_shows_its_passage(home):
    out = run(home, "show", "[[Long note#Part two|the second part]]").stdout
    assert out.startswith("── vault/Long note.md:") and "The end of it." in out and "Sentence 3 " not in out


def test_a_wikilink_to_a_heading_alone_is_one_sentence(home):
    proc = run(home, "show", "[[#Heading two]]", check=False)
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1 and "name the note too" in proc.stderr


def test_show_prints_each_line_of_a_whole_note_once(home):
    with KnowledgeBase(home=home) as kb:
        chunks = kb.chunks_of("vault", "Long note.md")
    assert any(b.start_line <= a.end_line for a, b in zip(chunks, chunks[1:]))  # passages overlap
    out = run(home, "show", "Long note").stdout
    for j in range(120):
        assert out.count(f"Sentence {j} of a paragraph") == 1, j
    assert out.count("The end of it.") == 1


def test_collections_counts_files_of_the_kinds_it_indexes(home):
    [row] = json.loads(run(home, "collections", "--json").stdout)
    assert (row["files"], row["notes"], row["documents"], row["indexed"]) == (4, 3, 1, 3)
    out = run(home, "collections").stdout
    assert "4 files (3 notes, 1 documents), 3 indexed," in out


def test_sync_says_the_skips_that_stand(home):
    status = run(home, "status").stdout
    assert "1 skipped" in status and "broken.pdf" in status
    again = run(home, "sync", "--no-embed").stdout
    assert ", 1 skipped (as before);" in again


def test_links_to_the_notes_own_headings_are_not_backlinks(home):
    out = run(home, "backlinks", "Internal links").stdout
    assert out.splitlines() == ["other.md:3  A link to [[Internal links#Heading two]]."]
    with KnowledgeBase(home) as kb:
        assert [b.source for b in kb.graph.backlinks("vault/Internal links.md")] == ["other.md"]
        assert {link.anchor for link in kb.graph.links("vault/Internal links.md")} >= {"Heading two", "^blk"}


def test_status_says_who_embeds_the_waiting_texts_while_another_process_does(home):
    """While another process holds the embedding (a sync, watch or the app), status does not
    tell the person to run a sync for what is being done already."""
    import subprocess
    import sys

    idle = json.loads(run(home, "status", "--json").stdout)
    assert idle["vectors_pending"] > 0 and idle["embedding_by_pid"] is None
    holder = subprocess.Popen(
        [sys.executable, "-I", "-c",
         "import sys, time; from pathlib import Path\n"
         "from pms_tui.core.store.writer_lock import EMBED_LOCK_FILE, WriterLock\n"
         "WriterLock(Path(sys.argv[1]), EMBED_LOCK_FILE).acquire(wait=False); print('held', flush=True); time.sleep(60)",
         str(home)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        busy = json.loads(run(home, "status", "--json").stdout)
        assert busy["embedding_by_pid"] == holder.pid
        out = run(home, "status").stdout
        assert f"pms-tui (pid {holder.pid}) is embedding them now" in out and "`pms-tui sync` embeds them" not in out
    finally:
        holder.kill()
        holder.wait()
