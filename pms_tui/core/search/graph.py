"""Reading the link graph: a note's links, its backlinks (with the line that links), its
unlinked mentions, and its related notes by meaning.

Related notes: each passage of the note (at most ``RELATED_QUERIES``, spread over it) is a
query against the in-memory vector mirror; every stored passage keeps its best similarity to
any of them, the nearest are gathered per note and each note is scored by its best pair. Notes the note
already links to, or that link to it, are marked, not hidden.

One scan, not one per passage: the mirror is scanned once with the mean of the note's passages,
and the best-matching share of it (``SHORTLIST_SHARE``, at least ``SHORTLIST_MIN`` passages) is
re-scored exactly against each passage. A passage near one of the note's passages is near their
mean too, unless the note's passages point everywhere; benchmarks/links.py measures how often
the top ten differ from the exact scan on obsidian-help and til.
"""

from __future__ import annotations

import re

from ..indexing.links import anchor_key
from ..indexing.prose import prose_lines
from ..markdown import normalize_newlines
from ..results import Link, Mention, RelatedNote
from ..store import chunks as chunk_rows
from ..store import links as link_rows
from .filters import fts_quote
from .vector_index import VectorIndex

RELATED_QUERIES = 8  # passages of a long note used as queries (spread over it)
RELATED_DEPTH = 40  # nearest passages kept: RELATED_DEPTH x 5 in all (a note's own passages among them)
SHORTLIST_SHARE = 0.10  # of the stored passages, nearest the note's mean, re-scored per passage
SHORTLIST_MIN = 2_000  # a smaller index is re-scored whole (exact)
MENTION_SCAN = 400  # matching passages read for unlinked mentions
MIN_MENTION_CHARS = 3  # a shorter title or alias is not looked for
_BLOCK_ID = re.compile(r"\^[\w-]+")
_BLOCK_ID_END = re.compile(r"(?:^|\s)\^[\w-]+\s*$")  # a block's id, not shown in its passage


def _link(row: link_rows.LinkRow, conn, text: str = "") -> Link:
    line = None
    if row.target_id is not None:
        line = 1
        if row.anchor:
            key = row.anchor.lower() if row.anchor.startswith("^") else anchor_key(row.anchor)
            line = link_rows.anchor_line(conn, row.target_id, key) or 1
    return Link(row.collection, row.source_path, row.source_title, row.line, row.target, row.anchor, row.label,
                bool(row.embed), row.status, row.target_path, row.target_title, line, text, row.syntax)


def links_of(conn, document_id: int) -> list[Link]:
    """The links a note makes, in the order they appear."""
    return [_link(row, conn) for row in link_rows.outgoing(conn, document_id)]


def backlinks_of(conn, document_id: int) -> list[Link]:
    """The links to a note from other notes (and itself), each with the line that links: one
    per linking line (a line linking twice to the note, ``[[A]] or [[A#Part]]``, is one)."""
    rows: list[link_rows.LinkRow] = []
    seen: set[tuple[int, int]] = set()
    for row in link_rows.incoming(conn, document_id):
        if (row.source_id, row.line) not in seen:
            seen.add((row.source_id, row.line))
            rows.append(row)
    wanted: dict[int, set[int]] = {}
    for row in rows:
        wanted.setdefault(row.source_id, set()).add(row.line)
    text = {source: chunk_rows.lines_text(conn, source, lines) for source, lines in wanted.items()}
    return [_link(row, conn, text[row.source_id].get(row.line, "")) for row in rows]


def mention_pattern(name: str) -> re.Pattern[str] | None:
    """A note's name as a whole word run in prose: its words in order, any non-word between
    them, not inside a longer word, a path, a file name or an ``.ext`` (``.canvas``)."""
    words = re.findall(r"\w+", name)
    if not words:
        return None
    return re.compile(r"(?<![\w./\\#@-])" + r"\W+".join(map(re.escape, words)) + r"(?!\w|[.\-]\w)",
                      re.IGNORECASE)


def mentions_of(conn, collection_id: int, document_id: int, title: str, limit: int = 30) -> list[Mention]:
    """Notes of the collection that name the note's title, file name or an alias in their
    prose without linking to it: one line per note, the first that names it. Prose as
    ``indexing.prose`` reads it: not in code, links, wikilinks or URLs."""
    names = [title] + [n for n, _ in link_rows.names(conn, document_id)]
    seen_names: list[str] = []
    for name in names:
        name = " ".join(name.split())
        if len(name) >= MIN_MENTION_CHARS and name.lower() not in (n.lower() for n in seen_names):
            seen_names.append(name)
    exclude = {document_id} | link_rows.linked_ids(conn, [document_id], towards=True)
    found: dict[int, Mention] = {}
    for name in seen_names:
        pattern = mention_pattern(name)
        if pattern is None:
            continue
        expression = "body : " + fts_quote(" ".join(re.findall(r"\w+", name)))
        for doc_id, path, doc_title, start, body in link_rows.mention_chunks(
                conn, collection_id, expression, sorted(exclude | set(found)), MENTION_SCAN):
            if doc_id in found:
                continue
            at = _first_mention(body, pattern)
            if at is not None:
                found[doc_id] = Mention("", path, doc_title, start + at, body.split("\n")[at].strip(), name)
            if len(found) >= limit:
                break
    return sorted(found.values(), key=lambda m: m.path)[:limit]


def _first_mention(body: str, pattern: re.Pattern[str]) -> int | None:
    """The 0-based line of ``body`` (a passage's Markdown) whose prose first matches ``pattern``."""
    for line, text in prose_lines(normalize_newlines(body), pattern.search):
        if pattern.search(text):
            return line
    return None


def related_to(conn, vectors: VectorIndex, document_id: int, k: int = 10,
               shortlist: int | None = None, hidden: set[str] | frozenset[str] = frozenset()) -> list[RelatedNote]:
    """The ``k`` notes nearest in meaning to the note (see the module's docstring), none from
    the collections named in ``hidden``; ``shortlist`` overrides how many passages are
    re-scored (an evaluation: 0 = all, exact)."""
    import numpy as np  # imported where vectors are used: a one-shot BM25 search never is

    own = link_rows.document_vectors(conn, document_id)
    ids, matrix = vectors.snapshot()
    if not own or not len(ids) or k <= 0:
        return []
    wanted = np.unique(np.array([v for v, _ in own], dtype=np.int64))
    at = np.minimum(np.searchsorted(ids, wanted), len(ids) - 1)
    rows = at[ids[at] == wanted]
    if not len(rows):
        return []  # not embedded yet
    if len(rows) > RELATED_QUERIES:
        rows = rows[np.linspace(0, len(rows) - 1, RELATED_QUERIES).round().astype(int)]
    queries = matrix[rows]
    if shortlist is None:
        shortlist = max(SHORTLIST_MIN, int(SHORTLIST_SHARE * len(ids)))
    if len(rows) > 1 and 0 < shortlist < len(ids):
        # one scan with the passages' mean (einsum's single-threaded loop, as the vector lane:
        # OpenBLAS's threads wait for each other on a busy 2-core machine), then the exact
        # best pair over the shortlist alone
        near_mean = np.einsum("ij,j->i", matrix, queries.mean(axis=0))
        kept = np.sort(np.argpartition(near_mean, len(ids) - shortlist)[len(ids) - shortlist:])
        candidates = np.take(matrix, kept, axis=0)
    else:
        kept, candidates = None, matrix
    # each candidate passage keeps its best pair with the note's passages
    best_pair = np.einsum("ij,j->i", candidates, queries[0])
    for query in queries[1:]:
        np.maximum(best_pair, np.einsum("ij,j->i", candidates, query), out=best_pair)
    n = len(best_pair)
    depth = min(RELATED_DEPTH * 5 + len(rows), n)
    top = np.argpartition(best_pair, n - depth)[n - depth:]
    rows_of = top if kept is None else kept[top]
    best = {int(ids[r]): float(best_pair[t]) for r, t in zip(rows_of, top)}
    per_note: dict[int, tuple[float, tuple]] = {}
    for vid, doc_id, start, path, title, collection in link_rows.notes_of_vectors(conn, list(best)):
        if doc_id == document_id or collection in hidden:
            continue
        score = best[vid]
        if doc_id not in per_note or score > per_note[doc_id][0]:
            per_note[doc_id] = (score, (collection, path, title, start))
    links_to = link_rows.linked_ids(conn, [document_id], towards=False)
    links_here = link_rows.linked_ids(conn, [document_id], towards=True)
    ranked = sorted(per_note.items(), key=lambda item: (-item[1][0], item[1][1][1]))[:k]
    return [RelatedNote(collection, path, title, round(score, 4), doc_id in links_to, doc_id in links_here, start)
            for doc_id, (score, (collection, path, title, start)) in ranked]


def passage(conn, collection_id: int, path: str, line: int, block: bool, max_chars: int = 400) -> str:
    """The text a link's anchor names in an indexed note, from the index (never the file):
    the block's line, or the section from the heading's line to the next heading."""
    rows = chunk_rows.of_document(conn, collection_id, path)
    lines: dict[int, str] = {}
    for row in rows:
        for i, text in enumerate(row.body.split("\n")):
            lines.setdefault(row.start_line + i, text)
    if not lines:
        return ""
    out: list[str] = []
    at = line if line in lines else min(lines)
    if block and _BLOCK_ID.fullmatch(lines.get(at, "").strip()):
        # an id on a line of its own names the block above it (a quote, a list, a table)
        while at - 1 in lines and lines[at - 1].strip():
            at -= 1
    size = 0
    while at in lines and size < max_chars:
        text = _BLOCK_ID_END.sub("", lines[at]) if block else lines[at]
        if out and (text.lstrip().startswith("#") or block and not text.strip()):
            break
        if text.strip():
            out.append(text.strip())
            size += len(text)
        at += 1
    joined = " ".join(out)
    return joined if len(joined) <= max_chars else joined[: max_chars - 1] + "…"
