"""The search language through the real engine: filters on both lanes, phrases, exclusions,
browsing by filter alone, evidence and explanations, and bad input (hypothesis)."""

from __future__ import annotations

import datetime as dt
import os
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.kb_helpers import write
from pms_tui.core.errors import UsageError

VAULT = {
    "git/undo.md": """
        ---
        title: Undo the last commit
        tags: [git, howto]
        date: 2024-05-17
        ---
        # Undo the last commit

        Use a soft reset to move HEAD back one commit while keeping your work staged.
        A force push rewrites the remote branch. #shell
        """,
    "git/rebase.md": """
        ---
        tags: git/advanced
        created: 2023-01-10
        ---
        # Rebase interactively

        An interactive rebase rewrites the last commits: squash, reorder, edit.
        """,
    "git/stash.md": """
        # Stash changes

        Stash your work in progress and restore it later; no commit needed.
        """,
    "cooking/bread.md": """
        ---
        tags: "baking, food"
        updated: 2025-02-01
        ---
        # Sourdough bread

        Mix flour, water and starter; let the dough rise overnight. Commit to the recipe.
        ```python
        #notatag = 1
        ```
        """,
}


@pytest.fixture
def vault_kb(kb, tmp_path):
    folder = tmp_path / "vault"
    for rel, text in VAULT.items():
        write(folder, rel, text)
    # the file dates: stash is old, the others new (their frontmatter dates win where present)
    old = time.mktime(dt.date(2020, 6, 1).timetuple())
    os.utime(folder / "git/stash.md", (old, old))
    kb.collections.create(folder, name="vault")
    kb.sync()
    return kb


def notes(result) -> list[str]:
    return sorted({h.relpath for h in result})


@pytest.mark.parametrize("mode", ["hybrid", "bm25", "vector"])
@pytest.mark.parametrize("query, expected", [
    ("commit tag:git", ["git/rebase.md", "git/undo.md"]),
    ("commit tag:git/advanced", ["git/rebase.md"]),
    ("commit tag:#GIT -tag:git/advanced", ["git/undo.md"]),
    ("commit tag:shell", ["git/undo.md"]),
    ("commit tag:baking", ["cooking/bread.md"]),
    ("commit tag:notatag", []),
    ("commit path:git/", ["git/rebase.md", "git/stash.md", "git/undo.md"]),
    ("commit path:vault/cooking", ["cooking/bread.md"]),
    ("commit -path:git/", ["cooking/bread.md"]),
    ("commit in:vault path:git/s", ["git/stash.md"]),
    ("commit after:2024", ["cooking/bread.md", "git/undo.md"]),
    ("commit after:2024-05-18", ["cooking/bread.md"]),
    ("commit before:2024 path:git/", ["git/rebase.md", "git/stash.md"]),
    ("commit before:2021", ["git/stash.md"]),
    ("commit title:rebasing", ["git/rebase.md"]),
    ('"last commit"', ["git/rebase.md", "git/undo.md"]),  # "the last commits" too: stems match
    ('commit -"force push" path:git/', ["git/rebase.md", "git/stash.md"]),
    ("commit -rewrites", ["cooking/bread.md", "git/stash.md"]),
])
def test_filters_apply_to_every_lane(vault_kb, query, expected, mode):
    result = vault_kb.search(query, k=10, mode=mode)
    if mode == "vector" and not result.query.text.strip():
        pytest.skip("nothing to embed")
    assert notes(result) == expected
    assert result.query.raw == query


def test_narrow_filter_still_fills_k(kb, tmp_path):
    """The filtered notes are far down an unfiltered ranking: each lane ranks inside the filter."""
    folder = tmp_path / "many"
    for i in range(60):
        write(folder, f"common/n{i:02}.md", f"# Commit note {i}\n\ncommit commit commit {i}\n")
    for i in range(3):
        write(folder, f"rare/r{i}.md", f"# Other {i}\n\nA note that mentions a commit once, among words {i}.\n")
    kb.settings.lane_depth = 10
    kb.collections.create(folder, name="many")
    kb.sync()
    for mode in ("hybrid", "bm25", "vector"):
        result = kb.search("commit path:rare/", k=3, mode=mode)
        assert notes(result) == ["rare/r0.md", "rare/r1.md", "rare/r2.md"], mode


def test_filters_alone_list_the_newest_matching_notes(vault_kb):
    result = vault_kb.search("tag:git")
    assert [h.relpath for h in result] == ["git/undo.md", "git/rebase.md"]  # 2024-05-17, 2023-01-10
    assert result.lanes == () and result.notes
    assert notes(vault_kb.search("path:git/ -stash")) == ["git/rebase.md", "git/undo.md"]


def test_phrase_scores_and_is_required(vault_kb):
    result = vault_kb.search('"interactive rebase" squash', mode="bm25")
    assert notes(result) == ["git/rebase.md"]


def test_ignored_parts_are_reported(vault_kb):
    result = vault_kb.search("commit after:yesterdayish in:nowhere foo:bar tag:")
    reasons = {i.text: i.reason for i in result.query.ignored}
    assert set(reasons) == {"after:yesterdayish", "in:nowhere", "foo:bar", "tag:"}
    assert "no collection named" in reasons["in:nowhere"]
    assert len(result) > 0  # the rest of the query still searches


def test_search_result_carries_parsed_query_and_groups_by_note(vault_kb):
    result = vault_kb.search("commit tag:git", k=10)
    assert result.query.values("tag") == ["git"]
    groups = result.by_note()
    assert len(groups) == len({h.relpath for h in result})
    assert all(h.modified for h in result)


def test_evidence_of_a_hit(vault_kb):
    result = vault_kb.search("soft reset commit tag:git", k=5)
    hit = next(h for h in result if h.relpath == "git/undo.md")
    ev = vault_kb.retrieval.evidence(result, hit)
    assert "soft" in ev.matched["body"] and "commit" in ev.matched["title"]
    assert ev.bm25_rank == hit.bm25_rank and ev.vector_rank == hit.vector_rank
    k, w = result.fusion.k, result.fusion.weights  # this query's RRF parameters (lane_trust)
    expected = w["bm25"] / (k["bm25"] + hit.bm25_rank) + w["vector"] / (k["vector"] + hit.vector_rank)
    assert ev.rrf == pytest.approx(expected, abs=1e-6) == pytest.approx(hit.rrf, abs=1e-6)
    assert ev.lane_k == k and ev.fusion == list(result.fusion.reasons)
    assert ev.filters == ["tag:git"] and not ev.vector_pending
    assert ev.similarity == pytest.approx(1 - hit.distance, abs=1e-5)
    assert any(line.startswith("RRF") for line in ev.lines())


def test_a_finished_last_word_is_not_a_prefix(vault_kb):
    def bm25_notes(query, typing=True):
        return {h.relpath for h in vault_kb.search(query, k=10, mode="bm25", typing=typing)}

    assert "git/undo.md" in bm25_notes("comm")  # still being typed: "comm" finds "commit"
    for finished in ("comm ", "comm tag:git", "comm -draft"):
        assert "git/undo.md" not in bm25_notes(finished), finished
    # a query that is not being typed (a script's, the CLI's, an agent's) is finished as it is
    assert "git/undo.md" not in bm25_notes("comm", typing=False)
    assert "git/undo.md" in bm25_notes("commit", typing=False)


def test_evidence_matches_the_last_word_as_the_search_did(vault_kb):
    # while typing, the last word matches as a prefix ("comm" finds "commit"): the evidence
    # must not call a word missing that the search matched
    result = vault_kb.search("soft comm", k=5, typing=True)
    hit = next(h for h in result if h.relpath == "git/undo.md")
    ev = vault_kb.retrieval.evidence(result, hit)
    assert "comm" in ev.matched["title"] and "comm" not in ev.missing
    done = vault_kb.search("soft comm?", k=5, typing=True)  # the word is finished: matched as typed only
    hit = next(h for h in done if h.relpath == "git/undo.md")
    assert "comm" in vault_kb.retrieval.evidence(done, hit).missing


def test_evidence_says_vector_pending(vault_kb):
    result = vault_kb.search("commit", k=5, vector=False)
    ev = vault_kb.retrieval.evidence(result, result[0])
    assert ev.vector_pending and ev.vector_rank is None and not ev.vector_queued
    assert "Vector: not in this search (vector lane waiting for the model)" in ev.lines()


def test_explain_a_note(vault_kb):
    ex = vault_kb.searcher.explain("sourdough starter commit", "vault/cooking/bread.md")
    assert ex.bm25_rank == 1 and ex.vector_rank is not None and 0 < ex.similarity <= 1
    assert ex.missing == [] and ex.passes_filters
    ex = vault_kb.searcher.explain("sourdough squash tag:git", "vault/git/rebase.md")
    assert ex.missing == ["sourdough"] and ex.bm25_rank is not None and ex.passes_filters
    ex = vault_kb.searcher.explain("bread tag:git", "vault/cooking/bread.md")
    assert not ex.passes_filters and ex.failed_filters == ["tag:git"]
    ex = vault_kb.searcher.explain("zebra", "vault/cooking/bread.md")
    assert ex.bm25_rank is None and ex.missing == ["zebra"]


def test_facets_follow_edits(vault_kb, tmp_path):
    path = tmp_path / "vault/git/stash.md"
    path.write_text("---\ntags: [stashing]\n---\n# Stash changes\n\nStash your commit work.\n")
    vault_kb.sync()
    assert notes(vault_kb.search("commit tag:stashing")) == ["git/stash.md"]
    path.unlink()
    vault_kb.sync()
    assert notes(vault_kb.search("tag:stashing")) == []


def test_facet_values_for_completion(vault_kb):
    values = vault_kb.searcher.facet_values()
    assert {"git", "git/advanced", "shell", "baking"} <= set(values["tag"]) and "notatag" not in values["tag"]
    assert values["path"][0] == "git/" and values["in"] == ["vault"]


QUERY_PARTS = st.sampled_from([
    "commit", "git", '"', '"last commit"', "-", "-rebase", '-"force push"', "tag:", "tag:git", "path:",
    "path:git/", "in:", "in:vault", "in:nope", "title:", "title:undo", "after:", "after:2024", "before:7d",
    "after:yesterdayish", "\x00", "\x1b[2J", "\ud800", "NEAR(", "AND", "OR", "*", "^", ":", "(", ")", "'", "é",
    "-tag:git", "-path:", "title:\"", "%", "_", "\\",
])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(QUERY_PARTS, max_size=12).map(" ".join) | st.text(max_size=60),
       st.sampled_from(["hybrid", "bm25", "vector"]))
def test_any_query_gives_results_or_an_empty_list(vault_kb, query, mode):
    if not query.strip():
        with pytest.raises(UsageError, match="The query is empty"):
            vault_kb.search(query, k=5, mode=mode)
        return
    result = vault_kb.search(query, k=5, mode=mode)
    assert isinstance(list(result), list)
    for hit in result[:1]:
        vault_kb.retrieval.evidence(result, hit)


def test_ten_kilobytes_of_operators(vault_kb):
    query = ('tag:git -"x" "y z" path:a/ after:7d NEAR( ) * ^ -' * 300)[:10_000]
    result = vault_kb.search(query, k=5)
    assert isinstance(list(result), list)


def test_an_index_from_before_the_facets_is_migrated_and_filled(vault_kb):
    """Schema 2 had no note_tags table nor note_date column: opening it migrates and fills
    them from the stored frontmatter and chunk text (no re-sync needed)."""
    from pms_tui.core.kb import KnowledgeBase

    home = vault_kb.home
    with vault_kb._store.transaction() as conn:
        conn.execute("DROP TABLE note_tags")
        conn.execute("ALTER TABLE documents DROP COLUMN note_date")
        conn.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    vault_kb.close()
    with KnowledgeBase(home=home) as kb:
        assert notes(kb.search("commit tag:shell")) == ["git/undo.md"]
        assert notes(kb.search("commit before:2024 path:git/")) == ["git/rebase.md", "git/stash.md"]
        assert kb.stats()["documents"] == 4


def test_a_note_written_a_moment_ago_is_dated_now(kb, tmp_path):
    """A file changed within the last moments has no trusted modification time in the index
    yet (the next sync hashes it again); until then it is dated when it was indexed, never
    before 1970: the date filters, browsing and recent notes count it as new."""
    folder = tmp_path / "fresh"
    write(folder, "old.md", "# Old sourdough note\n\nA starter kept for years.\n")
    old = time.mktime(dt.date(2020, 6, 1).timetuple())
    os.utime(folder / "old.md", (old, old))
    kb.collections.create(folder, name="fresh")
    write(folder, "new.md", "# New sourdough note\n\nA starter made today.\n")
    kb.sync()
    assert notes(kb.search("sourdough before:2000")) == []
    assert notes(kb.search("sourdough after:7d")) == ["new.md"]
    assert [h.relpath for h in kb.search("in:fresh")] == ["new.md", "old.md"]
    recent = kb.recent(10)
    assert [h.relpath for h in recent] == ["new.md", "old.md"]
    assert recent[0].modified is not None and abs(recent[0].modified - time.time()) < 600
