"""The word you typed comes first: in a home of several collections and languages, the note
holding a short query's words as typed is the first hit, and an exact match is never called
weak ("No note matches well"). Real notes from the shared corpora (skipped when absent),
copied into a temporary home at test time, real model, real index."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pms_tui.core.search import exact_match
from pms_tui.core.search.query_syntax import parse_for
from pms_tui.core.store.chunks import HitRow
from tests.kb_helpers import CORPORA, write

TIL = CORPORA / "markdown/jbranchaud-til"
I18N = CORPORA / "markdown/tldr-pages-i18n"
HELP = CORPORA / "markdown/obsidian-help/en"

needs_corpora = pytest.mark.skipif(not (TIL.is_dir() and I18N.is_dir() and HELP.is_dir()),
                                   reason="shared corpora absent")

# The notes holding the words, and notes beside them that the lanes confused them with
TIL_NOTES = [
    "vim/check-for-an-executable.md", "python/start-the-debugger-when-a-test-errors.md",
    "git/quicker-commit-fixes-with-the-fixup-flag.md", "git/auto-squash-those-fixup-commits.md",
    "git/list-most-git-commands.md", "git/resetting-a-reset.md", "git/move-the-latest-commit-to-a-new-branch.md",
    "git/list-all-git-aliases-from-gitconfig.md", "vim/list-autocmds-configured-for-the-current-buffer.md",
]
HELP_NOTES = ["Obsidian/Credits.md", "Obsidian Web Clipper/Variables.md", "Getting started/Glossary.md",
              "Editing and formatting/Basic formatting syntax.md"]
I18N_PAGES = ["pages.de/common/aws-codecommit.md", "pages.de/common/tar.md", "pages.de/common/ls.md",
              *[f"pages.es/common/adb-{name}.md" for name in ("shell", "install", "logcat", "reboot", "devices")],
              "pages.es/common/adb.md", "pages.es/common/tar.md"]


def _copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)


@pytest.fixture(scope="module")
def mixed_home(tmp_path_factory):
    from pms_tui.core.kb import KnowledgeBase

    root = tmp_path_factory.mktemp("exact")
    vault, pages = root / "vault", root / "pages"
    for rel in TIL_NOTES:
        _copy(TIL / rel, vault / "til" / rel)
    for rel in sorted(p.relative_to(TIL).as_posix() for p in (TIL / "git").glob("*.md"))[:15]:
        _copy(TIL / rel, vault / "til" / rel)
    for rel in HELP_NOTES:
        _copy(HELP / rel, vault / rel)
    write(vault, "garden/winter.md", """
        # Winter garden

        The zorblax went under the fleece in November; the beds are mulched and the pots moved
        against the south wall.
        """)
    for rel in I18N_PAGES:
        _copy(I18N / rel, pages / rel.replace("pages.", "", 1))
    kb = KnowledgeBase(home=root / "home")
    kb.collections.create(vault, name="vault")
    kb.collections.create(pages, name="pages")
    kb.sync()
    yield kb
    kb.close()


def _first(kb, query: str):
    result = kb.search(query, k=10)
    assert result.hits, query
    return result


@needs_corpora
@pytest.mark.parametrize(("query", "note"), [
    ("prettier", "til/vim/check-for-an-executable.md"),
    ("pdb", "til/python/start-the-debugger-when-a-test-errors.md"),
    ("zorblax", "garden/winter.md"),
    ("resetting a reset", "til/git/resetting-a-reset.md"),
])
def test_the_note_holding_the_words_is_first_and_not_weak(mixed_home, query, note):
    result = _first(mixed_home, query)
    assert result.hits[0].relpath == note, [h.relpath for h in result.hits[:5]]
    assert result.match.weak is False
    # the passage holds every word: its German and Spanish stems are the same words, not more
    assert result.match.coverage == 1.0


@needs_corpora
@pytest.mark.parametrize("query", ["fixup", '"reset --hard"'])
def test_a_word_several_notes_hold_puts_one_of_them_first_and_is_not_weak(mixed_home, query):
    result = _first(mixed_home, query)
    runs = exact_match.pieces(parse_for(query, False))
    top = result.hits[0]
    assert exact_match.held(HitRow(top.chunk_id, 0, 0, top.title, " > ".join(top.heading_path), top.text,
                                   top.relpath, top.collection, ""), runs) == frozenset(runs)
    assert result.match.weak is False


@needs_corpora
def test_an_english_word_puts_english_notes_above_other_languages_pages(mixed_home):
    result = _first(mixed_home, "git")
    assert result.hits[0].collection == "vault", [h.relpath for h in result.hits[:5]]
    bm25 = mixed_home.search("resetting a reset", k=5, mode="bm25")
    assert bm25.hits[0].relpath == "til/git/resetting-a-reset.md", [h.relpath for h in bm25.hits]


def test_a_word_held_as_typed_outranks_its_stem(tmp_path):
    """Pure ranking on a real index without vectors: the one note saying "processes" comes
    before notes that say "process" many times (porter makes both "process")."""
    from tests.kb_helpers import text_only_kb

    folder = tmp_path / "notes"
    for i in range(4):
        write(folder, f"process-{i}.md", f"# Process {i}\n\nThe process starts; each process step is a process.\n")
    write(folder, "jobs.md", "# Jobs\n\nA long list of notes on many things, and background processes once.\n"
          + "Other words about scheduling, queues and workers fill this note. " * 20)
    kb = text_only_kb(tmp_path / "home", folder)
    try:
        assert kb.search("processes", k=5, mode="bm25").hits[0].relpath == "jobs.md"
        assert kb.search("process", k=5, mode="bm25").hits[0].relpath != "jobs.md"  # many hold it: BM25 decides
    finally:
        kb.close()


def test_pieces_of_a_query():
    assert exact_match.pieces(parse_for("resetting a reset", False)) == [" resetting ", " reset "]
    assert exact_match.pieces(parse_for('"reset --hard"', False)) == [" reset hard "]
    assert exact_match.pieces(parse_for("md.obsidian.Obsidian", False)) == [" md obsidian obsidian "]
    assert exact_match.pieces(parse_for("how do I undo the last commit in git", False)) is None  # a question
    assert exact_match.pieces(parse_for("数据库", False)) is None
    assert exact_match.fold("Lösche") == "losche"


def test_a_stem_that_is_the_english_stem_is_not_looked_for_twice():
    from pms_tui.core.store import language

    # a query whose words do not say its language: every note's porter column finds "git"
    assert language.query_stems("git", ["de", "es"], said=False) == []
    assert language.query_stems("git", ["de"], said=True) == [language.MARK + "git"]  # a German query's
    assert language.query_stems("löschen", ["de"], said=False) == [language.MARK + "losch"]
    assert not language.languages_said(["git"], ["de", "es"])
    assert language.languages_said(["dateien", "mit", "tar"], ["de"])


def test_a_query_in_a_language_the_model_reads_poorly_is_left_to_bm25(synced_kb):
    from pms_tui.core.results import VectorOut

    german = synced_kb.search("wie man den letzten Commit rückgängig macht", k=5)
    assert german.vector_out is VectorOut.UNREAD_LANGUAGE
    assert german.match.weak is None  # the lane that cannot read it does not call it weak either
    assert "this query is in German" in " ".join(german.notes)
    for english in ("how do I undo the last commit", "why does my process die", "löschen"):
        assert synced_kb.search(english, k=5).vector_out is None, english


def test_the_language_a_query_is_in():
    from pms_tui.core.search.query import words
    from pms_tui.core.store.language import query_language

    assert query_language(words("moderne Alternative zum Auflisten von Verzeichnisinhalten")) == "de"
    assert query_language(words("cómo comprimir un archivo")) == "other"  # Spanish or French
    assert query_language(words("how to undo the last commit")) == "en"
    assert query_language(words("prettier")) == ""


def test_a_repeated_word_says_no_language_twice():
    from pms_tui.core.search.query import words
    from pms_tui.core.store.language import query_language

    claim = "PKG-la plays an essential role in expression of pain hypersensitivity in PGK-la knockout mice."
    assert query_language(words(claim)) in ("", "en")


def test_the_vector_lane_alone_is_left_as_it_ranks(synced_kb):
    """The rule is fusion's: a search asked of the vector lane by name keeps that lane's order."""
    query = "asyncio"
    vector = synced_kb.search(query, k=5, mode="vector")
    assert [h.vector_rank for h in vector.hits] == sorted(h.vector_rank for h in vector.hits)
    assert not any("as typed" in reason for reason in vector.fusion.reasons)


def test_the_one_note_holding_a_word_as_typed_comes_first_when_bm25_ranks_it_past_the_lane_depth(tmp_path):
    """Sixty notes hold the stem of ``existed`` (``exists``, ``existing``) several times; the one
    note that holds ``existed`` itself holds it once in a long text, so BM25 ranks it past the
    lane depth of 50: the rule asks BM25 again, deeper, and puts that note first."""
    from tests.kb_helpers import text_only_kb, write

    folder = tmp_path / "notes"
    for n in range(60):
        write(folder, f"stem{n:02}.md", f"# Check {n}\n\nThe file exists. It exists if existing code exists. exists\n")
    filler = " ".join(f"word{i} alpha beta gamma delta" for i in range(300))
    write(folder, "past.md", f"# An old system\n\n{filler} The old system existed once. {filler}\n")
    kb = text_only_kb(tmp_path / "home", folder)
    try:
        from pms_tui.core.kb_measure import Measure

        _, lanes = Measure(kb).lanes("existed", 50, mode="bm25")
        notes = Measure(kb).chunk_notes()
        assert len(lanes["bm25"]) == 50 and not any(notes[c].endswith("past.md") for c, _ in lanes["bm25"])
        for query in ("existed", "Existed"):
            top = kb.search(query, k=5, mode="bm25")
            assert top[0].relpath == "past.md", [h.relpath for h in top]
            assert top[0].bm25_rank is not None and top[0].bm25_rank > 50
        assert kb.search("exists", k=3, mode="bm25")[0].relpath != "past.md"  # many hold it: fusion decides
    finally:
        kb.close()
