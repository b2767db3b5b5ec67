"""Exact evidence first: the notes that hold a short query's words as typed.

The query people type most is a word or two they remember from a note. Rank fusion alone can
bury that note: the vector lane, reading a word it does not know (``prettier``, ``zorblax``,
``pdb``), ranks other notes first and outvotes BM25, and BM25 itself ranks notes holding the
word's stem many times ("process") above the one holding the word ("processes"). So when few
notes hold the query as typed, those notes come first, in the fused order among themselves;
every other hit follows in the fused order. When many notes hold it (the words are common,
``git`` in a vault of git notes) nothing moves: fusion decides, as before.

*Holding the query as typed*: every piece of it, a word, a name from code (``md.obsidian``:
its words in a row) or a quoted phrase, occurs in the passage's title, headings or text as
those tokens in a row, letters compared as FTS5's unicode61 compares them (case and
diacritics folded), never stemmed. Stopwords are not looked for unless inside a longer piece
(``a`` in ``resetting a reset``). A query of CJK text (no spaces between words) or of more
than :data:`MAX_PIECES` pieces as typed, stopwords counted, is left to fusion: a question or
a pasted paragraph is not a remembered word.

The passages the lanes brought are looked at first (their text is read for the hits anyway),
so "few notes" is counted among them. When none of them holds the query as typed and BM25 had
more to give, BM25 is asked again, :data:`DEEP` passages deep (:func:`deeper`): the one note
holding ``existed`` can rank past the lane depth behind dozens holding its stem (``exists``,
``existing``) more often, and a rule that never saw it could not put it first. How many notes are few (``Settings.exact_notes``) was
chosen on query sets drawn from real collections, held out across them
(``research/exact_words/``, docs/evaluation.md).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..store import chunks as chunk_rows
from ..store.chunks import HitRow
from .fusion import Fused, fuse
from .query import STOPWORDS
from .query_syntax import ParsedQuery

MAX_PIECES = 3
DEEP = 1000  # how deep BM25 is asked again for passages holding a short query as typed
_TOKEN = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class Exact:
    """What the rule found for one query: the passages holding it as typed, and their notes."""

    passages: frozenset[int] = frozenset()
    notes: int = 0
    applied: bool = False  # those notes were put first (few enough)

    def reason(self) -> str:
        if not self.applied:
            return ""
        what = "note holds" if self.notes == 1 else "notes hold"
        return f"{self.notes} {what} the query's words as typed: first"


def fold(text: str) -> str:
    """Case and diacritics folded (``Lösche`` -> ``losche``), as unicode61 with
    remove_diacritics compares letters."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(fold(text))


def pieces(parsed: ParsedQuery) -> list[str] | None:
    """The query's pieces as token runs (" a b "), or None when the rule does not apply."""
    typed = [*parsed.terms, *parsed.phrases]
    if len(typed) > MAX_PIECES:  # stopwords counted: "how many commits are on my branch" is a question
        return None
    runs = []
    for piece in typed:
        toks = tokens(piece)
        if not toks or (len(toks) == 1 and toks[0] in STOPWORDS):
            continue
        if any(not t.isascii() and _is_cjk_run(t) for t in toks):
            return None
        runs.append(" " + " ".join(toks) + " ")
    return runs or None


def _is_cjk_run(token: str) -> bool:
    from ..store import cjk

    return cjk.has_cjk(token)


def held(row: HitRow, runs: Sequence[str]) -> frozenset[str]:
    """The pieces ``row``'s title, headings and text hold as typed."""
    joined = " " + " ".join(tokens(f"{row.title}\n{row.heading}\n{row.body}")) + " "
    return frozenset(run for run in runs if run in joined)


def find(parsed: ParsedQuery, rows: Mapping[int, HitRow], max_notes: int) -> Exact:
    """The passages of ``rows`` whose note holds ``parsed`` as typed (every piece, in one
    passage or spread over several: two words remembered from one note need not share a
    passage), those passages that hold a piece; applied when they are in at most ``max_notes``
    notes (0: the rule is off)."""
    runs = pieces(parsed) if max_notes > 0 and not parsed.typing else None
    if runs is None:
        return Exact()
    by_note: dict[tuple[str, str], dict[int, frozenset[str]]] = {}
    for chunk_id, row in rows.items():
        found = held(row, runs)
        if found:
            by_note.setdefault((row.collection, row.path), {})[chunk_id] = found
    whole = [passages for passages in by_note.values() if len(frozenset().union(*passages.values())) == len(runs)]
    ids = frozenset(c for passages in whole for c in passages)
    return Exact(ids, len(whole), 0 < len(whole) <= max_notes)


def among(conn, parsed: ParsedQuery, fused: list[Fused], rows: dict[int, HitRow], max_notes: int,
          lanes: Sequence[str] = ("bm25",)) -> Exact:
    """:func:`find` among the fused passages; the rows read for it are added to ``rows``
    (the search's, which its hits are made from). A search without the BM25 lane (``lanes``:
    the vector lane alone, asked for by name) is left as that lane ranks it."""
    if not max_notes or "bm25" not in lanes or pieces(parsed) is None:
        return Exact()
    rows.update(chunk_rows.hits_by_ids(conn, [f.chunk_id for f in fused if f.chunk_id not in rows]))
    return find(parsed, {f.chunk_id: rows[f.chunk_id] for f in fused if f.chunk_id in rows}, max_notes)


def first(fused: list[Fused], exact: Exact) -> list[Fused]:
    """``fused`` with the exact passages first (each part in its fused order)."""
    if not exact.applied:
        return fused
    return ([f for f in fused if f.chunk_id in exact.passages]
            + [f for f in fused if f.chunk_id not in exact.passages])


def worth_deeper(parsed: ParsedQuery, exact: Exact, bm25_found: int, depth: int, max_notes: int) -> bool:
    """Whether to ask BM25 again, deeper: the rule applies to the query, no passage the lanes
    brought holds it as typed, and BM25 filled its depth (more passages match its stems)."""
    return (max_notes > 0 and not exact.passages and not parsed.typing and bm25_found >= depth
            and pieces(parsed) is not None)


def deeper(conn, parsed: ParsedQuery, deep: Sequence[tuple[int, float]], fused: list[Fused],
           rows: dict[int, HitRow], bm25_scores: dict[int, float], fusion, lanes: Sequence[str],
           max_notes: int) -> tuple[Exact, list[Fused], dict[int, float]]:
    """:func:`find` among BM25's deeper ranking ``deep`` ((chunk id, bm25) best first): the
    rule's answer, ``fused`` with the passages found past the lanes' depth appended as BM25
    ranked them (scored by ``fusion`` over ``lanes``, the search's, as the others), and the BM25 scores with theirs. Only the
    passages whose text holds each piece's letters are read whole (SQL's ``instr`` first, on
    text folded as SQLite folds it); the rows read are added to ``rows``."""
    runs = pieces(parsed)
    if runs is None or not deep:
        return Exact(), fused, bm25_scores
    ranked = [c for c, _ in deep]
    longest = [max(run.split(), key=len) for run in runs]
    # letters SQLite's lower() does not fold: every passage is read
    candidates = chunk_rows.ids_holding(conn, ranked, longest) if all(w.isascii() for w in longest) else ranked
    rows.update(chunk_rows.hits_by_ids(conn, [c for c in candidates if c not in rows]))
    exact = find(parsed, {c: rows[c] for c in candidates if c in rows}, max_notes)
    if not exact.applied:
        return exact, fused, bm25_scores
    ranks = {name: ranked if name == "bm25" else [] for name in lanes}  # the search's lanes: one scale
    known = {f.chunk_id for f in fused}
    extra = [f for f in fuse(ranks, fusion.k, fusion.weights) if f.chunk_id in exact.passages and f.chunk_id not in known]
    return exact, fused + extra, {**dict(deep), **bm25_scores}
