"""The link graph of one index (``kb.graph``): a note's links, backlinks, unlinked mentions and
related notes, the passage a link names, and link counts per collection.

Every method takes ``note`` as a string: ``collection/relpath`` (what search hits and
``kb.notes.note_names()`` give), a path to the file, or a note's name or alias (``"Internal links"``);
an unknown or ambiguous name raises ``UsageError`` with one sentence. They return plain
dataclasses from ``results`` (``Link``, ``Mention``, ``RelatedNote``), each with ``to_json()``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..indexing.collections import Collections
from ..indexing.links import anchor_key, markdown_anchor, markdown_target
from ..results import Link, Mention, RelatedNote
from ..search import graph
from ..search.limits import check_k
from ..search.scope import Scope
from ..search.vector_index import VectorIndex
from ..store import Store
from ..store import links as link_rows
from .model import Model
from .notes import Notes


class Graph:
    """``notes``: which note a request names; ``scope``: what related notes leave out (the guide
    once it steps aside); ``model`` and ``vectors``: what related notes are found by."""

    def __init__(self, store: Store, collections: Collections, notes: Notes, scope: Scope, model: Model,
                 vectors: VectorIndex) -> None:
        self._store = store
        self._collections = collections
        self._notes = notes
        self._scope = scope
        self._model = model
        self._vectors = vectors

    def links(self, note: str) -> list[Link]:
        """The links ``note`` makes, in order, each with where it leads (``status``,
        ``target_path`` and ``target_line``: the linked heading's or block's line)."""
        doc_id, _, _ = self._notes.resolve_note(note)
        return graph.links_of(self._store.conn, doc_id)

    def backlinks(self, note: str) -> list[Link]:
        """The links to ``note`` from notes of its collection, each with the linking line (``text``)."""
        doc_id, _, _ = self._notes.resolve_note(note)
        return graph.backlinks_of(self._store.conn, doc_id)

    def mentions(self, note: str, limit: int = 30) -> list[Mention]:
        """Notes naming ``note``'s title, file name or an alias without linking to it."""
        doc_id, collection, rel = self._notes.resolve_note(note)
        found = link_rows.document(self._store.conn, collection.id, rel)
        out = graph.mentions_of(self._store.conn, collection.id, doc_id, found[1] if found else rel, limit)
        return [replace(mention, collection=collection.name) for mention in out]

    def related(self, note: str, k: int = 10) -> list[RelatedNote]:
        """The ``k`` notes nearest to ``note`` in meaning (any collection), best first, each
        marked when the note links to it (``linked``) or it links here (``links_here``); the
        bundled guide's notes only when it has not stepped aside (``guide_aside``) or the note
        is its own (``Scope.hidden_names``). Empty until the note's passages are embedded."""
        check_k(k, "notes")
        self._model.require_vectors()
        doc_id, collection, _ = self._notes.resolve_note(note)
        hidden = self._scope.hidden_names(collection)
        return graph.related_to(self._store.conn, self._vectors, doc_id, k, hidden=hidden)

    def passage(self, link: Link, max_chars: int = 400) -> str:
        """The passage a resolved link names (its heading's section or its block), as one
        line of at most ``max_chars``, read from the index: what an embed shows in place."""
        if not link.resolved or link.target_path is None:
            return ""
        collection = self._collections.get(link.collection)
        return graph.passage(self._store.conn, collection.id, link.target_path, link.target_line or 1,
                             link.anchor.startswith("^"), max_chars)

    @staticmethod
    def link_of_href(href: str, links: Sequence[Link]) -> Link | None:
        """Which of a note's ``links`` a Markdown link's destination ``href`` is (None: not a
        link to a note, as a web link, or not one the index holds)."""
        target = markdown_target(href)
        if target is None:
            return None
        same = [x for x in links if x.syntax == "md" and x.target == target[0]]
        return next((x for x in same if x.anchor == target[1]), same[0] if same else None)

    def anchor_line(self, note: str, fragment: str) -> int | None:
        """The line of ``note`` that a link within it leads to (``[x](#a-heading)``, ``#^block``:
        ``fragment`` is what follows the ``#``); None when the note has no such heading or block."""
        doc_id, _, _ = self._notes.resolve_note(note)
        anchor = markdown_anchor(fragment)
        if not anchor:
            return None
        key = anchor.lower() if anchor.startswith("^") else anchor_key(anchor)
        return link_rows.anchor_line(self._store.conn, doc_id, key)

    def link_counts(self) -> dict[str, dict[str, int]]:
        """{collection: {status: links}} (statuses: ``results.LINK_STATUSES``)."""
        return link_rows.status_counts(self._store.conn)
