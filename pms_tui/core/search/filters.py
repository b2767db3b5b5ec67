"""From a ParsedQuery to what the lanes run: FTS5 expressions for the filters on words, and
a NoteFilter (store.facets) for the filters on notes.

Every piece of user text reaches FTS5 quoted (``"word"``, ``"a phrase"``) and SQL as a bound
parameter, so no query can make a syntax error. Phrases and title words are *positive* parts
(every passage must match them; they also score in BM25), exclusions *negative* ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..store import cjk, facets
from ..store.facets import NoteFilter
from .query_syntax import ParsedQuery


def fts_quote(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def fts_phrase(text: str) -> str:
    """A phrase as FTS5 matches it. A phrase holding CJK: each of its words holding CJK must
    appear as written (the phrase of its character pairs, store.cjk.word_phrase), the others
    as words, all of them (the ``cjk`` column holds only the CJK tokens, so the words'
    order across tokens is not checked)."""
    if not cjk.has_cjk(text):
        return fts_quote(text)
    parts = []
    for word in text.split():
        if cjk.has_cjk(word):
            tokens, prefix = cjk.word_phrase(word)
            parts.append(fts_quote(tokens) + ("*" if prefix else ""))
        else:
            parts.append(fts_quote(word))
    return parts[0] if len(parts) == 1 else "(" + " AND ".join(parts) + ")"


@dataclass
class Plan:
    positive: list[str] = field(default_factory=list)
    negative: list[str] = field(default_factory=list)
    note: NoteFilter = NoteFilter()
    # the ids of the notes ``note`` allows, once resolved (None: every note); see resolve()
    doc_ids: list[int] | None = None
    resolved: bool = False

    def resolve(self, conn) -> "Plan":
        """Look up the notes the filters allow, once per search (both lanes use them)."""
        if not self.resolved:
            self.doc_ids = facets.document_ids(conn, self.note) if self.on_notes else None
            self.resolved = True
        return self

    @property
    def nothing(self) -> bool:
        """No note passes the filters."""
        return self.doc_ids is not None and not self.doc_ids

    @property
    def on_notes(self) -> bool:
        n = self.note
        return bool(n.tags or n.not_tags or n.paths or n.not_paths or n.collections or n.not_collections
                    or n.after or n.before or n.collection_ids or n.links_to or n.linked_from or n.changed_by_agent)

    @property
    def restricts(self) -> bool:
        return bool(self.positive or self.negative or self.on_notes)

    def match(self, text_match: str | None) -> str | None:
        """The BM25 lane's expression: the text's OR-query AND the positive parts, NOT the
        negative ones; None when nothing positive is left to rank by."""
        parts = ([f"({text_match})"] if text_match else []) + self.positive
        if not parts:
            return None
        expression = " AND ".join(parts)
        if self.negative:
            expression = f"({expression}) NOT ({' OR '.join(self.negative)})"
        return expression

    def words(self) -> str | None:
        """Passages the word filters allow (positive parts NOT negative ones), or None when
        there is no positive part (FTS5 has no lone NOT: see ``excluded``)."""
        return self.match(None)

    def excluded(self) -> str | None:
        """Passages holding any excluded word or phrase."""
        return " OR ".join(self.negative) or None


def plan(q: ParsedQuery, collection_ids: Sequence[int] | None = None,
         collections: dict[str, int] | None = None) -> Plan:
    """``collections`` (name -> id) lets ``path:NAME/rest`` mean ``rest`` inside collection NAME."""
    return Plan(
        positive=[fts_phrase(p) for p in q.phrases] + [f"title : {fts_quote(t)}" for t in q.titles],
        negative=[fts_phrase(x) for x in q.exclude],
        note=NoteFilter(
            tags=tuple(q.tags), not_tags=tuple(q.not_tags),
            paths=_prefixes(q.paths, collections), not_paths=_prefixes(q.not_paths, collections),
            collections=tuple(q.collections), not_collections=tuple(q.not_collections),
            after=q.after, before=q.before, collection_ids=tuple(collection_ids or ()),
            links_to=tuple(q.links_to), linked_from=tuple(q.linked_from), changed_by_agent=q.changed_by_agent,
        ),
    )


def _prefixes(paths: Sequence[str], collections: dict[str, int] | None) -> tuple:
    """Each path prefix as (None, prefix) - in any collection - plus (id, rest) for each
    collection whose name it starts with (``notes/git/`` is ``git/`` in the collection notes)."""
    out: list[tuple[int | None, str]] = []
    for prefix in paths:
        out.append((None, prefix))
        for name, cid in (collections or {}).items():
            if prefix == name or prefix.startswith(name + "/"):
                out.append((cid, prefix[len(name) + 1:]))
    return tuple(out)
