"""The link-graph half of the KnowledgeBase contract: a note's links, backlinks, unlinked
mentions and related notes, and link counts per collection. A mixin, like ``kb_indexing``.

Every method takes ``note`` as a string: ``collection/relpath`` (what search hits and
``note_names()`` give), a path to the file, or a note's name or alias (``"Internal links"``);
an unknown or ambiguous name raises ``UsageError`` with one sentence. They return plain
dataclasses from ``results`` (``Link``, ``Mention``, ``RelatedNote``), each with ``to_json()``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from .indexing import guide as guide_rules
from .indexing.collections import Collection
from .indexing.links import anchor_key, markdown_anchor, markdown_target
from .kb_notes import NotesMixin, check_k
from .results import Link, Mention, RelatedNote
from .search import graph
from .store import links as link_rows


class GraphMixin(NotesMixin):  # a note named as the notes' policy resolves it
    def links(self, note: str) -> list[Link]:
        """The links ``note`` makes, in order, each with where it leads (``status``,
        ``target_path`` and ``target_line``: the linked heading's or block's line)."""
        doc_id, _, _ = self.resolve_note(note)
        return graph.links_of(self._store.conn, doc_id)

    def backlinks(self, note: str) -> list[Link]:
        """The links to ``note`` from notes of its collection, each with the linking line (``text``)."""
        doc_id, _, _ = self.resolve_note(note)
        return graph.backlinks_of(self._store.conn, doc_id)

    def mentions(self, note: str, limit: int = 30) -> list[Mention]:
        """Notes naming ``note``'s title, file name or an alias without linking to it."""
        doc_id, collection, rel = self.resolve_note(note)
        found = link_rows.document(self._store.conn, collection.id, rel)
        out = graph.mentions_of(self._store.conn, collection.id, doc_id, found[1] if found else rel, limit)
        return [replace(mention, collection=collection.name) for mention in out]

    def related(self, note: str, k: int = 10) -> list[RelatedNote]:
        """The ``k`` notes nearest to ``note`` in meaning (any collection), best first, each
        marked when the note links to it (``linked``) or it links here (``links_here``); the
        bundled guide's notes only when it has not stepped aside (``guide_aside``) or the note
        is its own. Empty until the note's passages are embedded."""
        check_k(k, "notes")
        self.require_vectors()
        doc_id, collection, _ = self.resolve_note(note)
        guide = guide_rules.stepped_aside(self.collections.list())
        hidden = {guide.name} if guide is not None and guide.id != collection.id else set()
        return graph.related_to(self._store.conn, self._vectors, doc_id, k, hidden=hidden)

    def passage(self, link: Link, max_chars: int = 400) -> str:
        """The passage a resolved link names (its heading's section or its block), as one
        line of at most ``max_chars``, read from the index: what an embed shows in place."""
        if not link.resolved or link.target_path is None:
            return ""
        collection = self.collections.get(link.collection)
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
        doc_id, _, _ = self.resolve_note(note)
        anchor = markdown_anchor(fragment)
        if not anchor:
            return None
        key = anchor.lower() if anchor.startswith("^") else anchor_key(anchor)
        return link_rows.anchor_line(self._store.conn, doc_id, key)

    def link_counts(self) -> dict[str, dict[str, int]]:
        """{collection: {status: links}} (statuses: ``results.LINK_STATUSES``)."""
        return link_rows.status_counts(self._store.conn)

    def resolve_note(self, note: str) -> tuple[int, Collection, str]:
        """(document id, collection, relative path) of the indexed note ``note`` names (as
        :meth:`note` takes it); UsageError when it names none or several."""
        found = self.note(note)
        return found.doc_id, found.collection, found.relpath
