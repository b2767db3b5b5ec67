"""The KnowledgeBase is services composed, not mixed in: each a small class handed what it needs,
none holding the KnowledgeBase; the documented names of the first version stay on it as
delegations; a Collection is plain data; one Scope says which collections a request means."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from pms_tui.core import kb as kb_module
from pms_tui.core.config import MAX_DEPTH, check_value
from pms_tui.core.errors import ConfigError, UsageError
from pms_tui.core.kb import KnowledgeBase

# What a script of the first version calls on the KnowledgeBase itself (README, docs/development.md)
KEPT = {"collections", "sync", "search", "recent", "reindex", "stats", "check_sync_status", "chunks_of", "close",
        "retrieval"}
SERVICES = {"index", "notes", "graph", "doctor", "searcher", "model", "scope", "clipper", "write"}
# The rest of what the KnowledgeBase offers: where it lives, the limits (with no index open too)
OTHER = {"home", "settings", "db_path", "limits"}


def test_the_knowledge_base_is_its_services_and_the_documented_names(synced_kb):
    public = {name for name in dir(synced_kb) if not name.startswith("_")}
    assert public == KEPT | SERVICES | OTHER
    assert KnowledgeBase.__mro__ == (KnowledgeBase, object)  # no mixins, no shared-state base
    with synced_kb as same:  # the context manager of the first version
        assert same is synced_kb


def test_the_documented_names_still_answer(synced_kb):
    kb = synced_kb
    assert [c.name for c in kb.collections.list()] == ["notes"] and kb.collections.get("notes").name == "notes"
    assert kb.check_sync_status().summary == kb.index.check_sync_status().summary
    assert kb.sync().changed == 0
    assert kb.stats() == kb.index.stats() and kb.stats()["documents"] == 3
    assert [h.chunk_id for h in kb.search("undo the last commit", k=3)] == \
        [h.chunk_id for h in kb.searcher.search("undo the last commit", k=3)]
    assert [h.chunk_id for h in kb.recent(2)] == [h.chunk_id for h in kb.searcher.recent(2)]
    assert kb.chunks_of("notes", "git/undo-commit.md") == kb.notes.chunks_of("notes", "git/undo-commit.md")
    top = kb.retrieval.rrf("undo the last commit", k=1)[0]
    assert top.relpath == "git/undo-commit.md"
    assert kb.retrieval.bm25_search("undo commit", k=1)[0].relpath == "git/undo-commit.md"
    assert kb.retrieval.vector_search("undo the last commit", k=1)
    bm25, vec = kb.retrieval.candidates("undo the last commit", k=2)
    assert bm25 and vec


def _holds(value: object, kb: object) -> bool:
    """Whether ``value`` is ``kb``, a method bound to it, or a function closing over it."""
    cells = getattr(value, "__closure__", None) or ()
    return value is kb or getattr(value, "__self__", None) is kb or any(
        cell.cell_contents is kb for cell in cells)


def test_no_service_holds_the_knowledge_base(synced_kb):
    """Each service is handed what it needs: none keeps the KnowledgeBase (nor a method of it,
    nor a function closing over it), and no constructor takes it."""
    synced_kb.write.version  # made on first use
    for name in SERVICES | {"collections", "retrieval"}:
        service = getattr(synced_kb, name)
        assert not any(_holds(value, synced_kb) for value in vars(service).values()), name
        assert "kb" not in inspect.signature(type(service)).parameters, name


def test_retrieval_is_handed_a_scope_and_the_model(synced_kb):
    from pms_tui.core.search.retrieval import Retrieval

    assert list(inspect.signature(Retrieval).parameters) == ["store", "settings", "model", "vectors", "scope"]
    assert synced_kb.retrieval.scope is synced_kb.scope and synced_kb.retrieval.model is synced_kb.model


def test_a_collection_is_plain_data(synced_kb):
    col = synced_kb.collections.get("notes")
    assert {f.name for f in dataclasses.fields(col)} == {
        "id", "name", "path", "description", "created_at", "last_sync", "writable"}
    assert not hasattr(col, "add_from_url") and not hasattr(col, "counts")
    assert synced_kb.collections.counts(col) == (3, synced_kb.stats()["chunks"])
    assert dataclasses.replace(col) == col  # no hidden back-reference to compare or copy


def test_the_guide_steps_aside_by_one_rule(synced_kb):
    """The scope alone decides: a search's default collections, the collections its lanes drop,
    and what related notes leave out agree on the guide once the user has notes of their own."""
    scope = synced_kb.scope
    assert scope.guide() is None and scope.default_ids() is None and scope.hidden_ids() == []
    guide = scope.add_guide()
    notes = synced_kb.collections.get("notes")
    assert scope.guide_aside() == guide
    assert scope.default_ids() == [notes.id] and scope.hidden_ids() == [guide.id]
    assert scope.hidden_names(notes) == {guide.name} and scope.hidden_names(guide) == set()
    synced_kb.collections.delete("notes")
    assert scope.guide_aside() is None and scope.default_ids() is None and scope.hidden_ids() == []


def test_the_mode_is_checked_by_one_rule(synced_kb):
    """Retrieval, asked directly (as the documented kb.retrieval is), refuses an unknown mode in
    the sentence every front end gives: on one line, cut."""
    odd = "fast\n" + "x" * 200
    with pytest.raises(UsageError) as asked:
        synced_kb.limits.check_mode(odd)
    with pytest.raises(UsageError) as searched:
        synced_kb.retrieval.search("undo", 3, odd)
    assert str(searched.value) == str(asked.value) and "\n" not in str(searched.value)
    assert KnowledgeBase.limits.check_mode is synced_kb.limits.check_mode


def test_the_bound_of_a_lane_and_of_a_request_is_one():
    assert KnowledgeBase.limits.MAX_K == MAX_DEPTH == kb_module.MAX_K
    assert check_value("lane_depth", MAX_DEPTH, "test") == MAX_DEPTH
    with pytest.raises(ConfigError):
        check_value("lane_depth", MAX_DEPTH + 1, "test")
    KnowledgeBase.limits.check_k(MAX_DEPTH)
    with pytest.raises(UsageError):
        KnowledgeBase.limits.check_k(MAX_DEPTH + 1)


def test_what_the_parser_reads_of_a_query_is_not_the_limit_of_a_request():
    from pms_tui.core.search import query_syntax

    assert not hasattr(query_syntax, "MAX_QUERY_CHARS")
    assert query_syntax.PARSED_QUERY_CHARS < KnowledgeBase.limits.MAX_QUERY_CHARS
    KnowledgeBase.limits.check_query("x" * (query_syntax.PARSED_QUERY_CHARS + 1))  # cut when parsed, not refused


def test_a_replaced_embedder_is_every_services(kb):
    """Tests and benchmarks put a fake model in place after opening: the index's drain, the
    vector lane and doctor all read it from the model."""
    class Fake:
        model_name, dim, ready = "fake", 3, True

    kb._embedder = fake = Fake()  # type: ignore[assignment]
    assert kb.model.embedder is fake and kb.retrieval.embedder is fake
