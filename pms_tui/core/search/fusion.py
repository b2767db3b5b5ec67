"""Reciprocal rank fusion of the lanes' rankings, and the marked window shown for a hit that
only the vector lane found."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..results import SNIPPET_CLOSE, SNIPPET_OPEN
from ..store import cjk


@dataclass
class Fused:
    chunk_id: int
    rrf: float
    score: float
    ranks: dict[str, int]


def fuse(lanes: Mapping[str, Sequence[int]], k: int | dict[str, int],
         weights: dict[str, float] | None = None) -> list[Fused]:
    """Reciprocal rank fusion of ranked id lists.

    ``rrf`` is the sum over lanes of w/(k+rank), ``k`` one number or one per lane (the
    product's come from ``Settings.rrf_k`` through ``lane_trust``; there is no default here). ``score``
    normalises it to 0..1: ``rrf`` over the most it can be, the sum of w/(k+1), so a chunk
    ranked first by every lane scores 1 (with two equal lanes and one k, 0.5*(k+1)/(k+rank)
    each). One divisor for every chunk keeps the score in the ranking's order when the lanes
    count with different k (the query-aware rule's confident BM25).
    """
    weights = weights or {}
    ks = {name: (k[name] if isinstance(k, dict) else k) for name in lanes}
    most = sum(weights.get(name, 1.0) / (ks[name] + 1) for name in lanes) or 1.0
    fused: dict[int, Fused] = {}
    for name, ids in lanes.items():
        w = weights.get(name, 1.0)
        for rank, chunk_id in enumerate(ids, start=1):
            entry = fused.setdefault(chunk_id, Fused(chunk_id, 0.0, 0.0, {}))
            entry.rrf += w / (ks[name] + rank)
            entry.ranks[name] = rank
    for entry in fused.values():
        entry.score = entry.rrf / most
    # ties: the better best-rank first, then the lower id, so results are deterministic
    return sorted(fused.values(), key=lambda f: (-f.rrf, min(f.ranks.values()), f.chunk_id))


# A longer text is not scanned whole by the word pattern (a hit of a big note can be 256 KB, and
# a list of such hits would take seconds): the pattern runs on a slice this long from the first
# place a word's letters occur (found by str.find, far cheaper), or on the head.
MARK_SCAN_CHARS = 20_000


def mark_words(text: str, words: Iterable[str], width: int = 220) -> str:
    """A window of ``text`` around the first query word, with query words marked.

    Used for chunks the BM25 lane did not match (vector-only hits). Words match by their
    first five letters, a rough stand-in for the index's stemming. The work is bounded
    whatever the text's length (``MARK_SCAN_CHARS``).
    """
    words = list(words)
    if len(text) <= MARK_SCAN_CHARS:
        return _mark(text, words, width)
    lowered = text.lower()
    keys = {w[:5].lower() for w in words if len(w) > 1 and not cjk.has_cjk(w)}
    keys |= {p for w in words if cjk.has_cjk(w) for p in [w, *cjk.query_pairs(w)[0]] if cjk.has_cjk(p)}
    found = [at for at in (lowered.find(key) for key in keys) if at >= 0] if len(lowered) == len(text) else [0]
    if not found:  # no word's letters anywhere: nothing to mark, the head is shown
        return _mark(text[:width * 4], [], width, after=True)
    at = max(0, min(found) - width)
    if at:
        space = text.find(" ", at, at + width)  # start the slice between words
        at = space + 1 if space >= 0 else at
    end = at + MARK_SCAN_CHARS
    return _mark(text[at:end], words, width, before=at > 0, after=end < len(text))


_WORD_CHAR = re.compile(r"\w")
_CJK_CHAR = re.compile(cjk.CJK_CLASS)


def _marks(pattern: re.Pattern, text: str):
    """(start, end) of each word ``pattern`` (from :func:`_word_pattern`) marks in ``text``.

    What the marks are: a CJK run (group 1) anywhere; a stem (group 2), case-insensitively, at a
    word boundary or right after a CJK character, with the word characters after it up to the
    next CJK character. The boundary and the stop are checked here, against patterns compiled
    once: written into the query's own pattern, the CJK class made compiling it costly, and a
    new pattern is compiled for every new query typed."""
    at = 0
    while True:
        m = pattern.search(text, at)
        if m is None:
            return
        if m.group(1) is not None:
            yield m.start(), m.end()
            at = m.end() if m.end() > m.start() else m.end() + 1
            continue
        begin = m.start()
        before = text[begin - 1] if begin else ""
        boundary = bool(before and _WORD_CHAR.match(before)) != bool(_WORD_CHAR.match(text, begin))
        if not boundary and not (before and _CJK_CHAR.match(before)):
            at = begin + 1  # not a word's start here; one may start later inside this match
            continue
        stop = _CJK_CHAR.search(text, m.end(2), m.end())
        end = stop.start() if stop else m.end()
        yield begin, end
        at = end if end > begin else end + 1


def _word_pattern(stems: list[str], runs: list[str]) -> re.Pattern:
    """Group 1: any CJK run; group 2: any stem (case-insensitive), then word characters."""
    run_part = "|".join(re.escape(r) for r in runs) or "(?!)"
    stem_part = "|".join(re.escape(s) for s in stems) or "(?!)"
    return re.compile(rf"({run_part})|(?i:({stem_part}))\w*")


def _marked(pattern: re.Pattern, window: str) -> str:
    out, at = [], 0
    for begin, end in _marks(pattern, window):
        out += [window[at:begin], SNIPPET_OPEN, window[begin:end], SNIPPET_CLOSE]
        at = end
    out.append(window[at:])
    return "".join(out)


def _mark(text: str, words: list[str], width: int, before: bool = False, after: bool = False) -> str:
    stems = sorted({w[:5] for w in words if len(w) > 1 and not cjk.has_cjk(w)}, key=len, reverse=True)
    # CJK words have no word boundaries inside a run: the word itself, else its pairs
    runs = sorted({p for w in words if cjk.has_cjk(w) for p in [w, *cjk.query_pairs(w)[0]] if cjk.has_cjk(p)},
                  key=len, reverse=True)
    flat = " ".join(text.split())
    if not stems and not runs:
        return ("…" if before else "") + flat[:width] + ("…" if after and len(flat) > width else "")
    pattern = _word_pattern(stems, runs)
    first = next(_marks(pattern, flat), None)
    start = max(0, first[0] - width // 3) if first else 0
    window = flat[start : start + width]
    if start > 0 or before:
        window = "…" + window
    if start + width < len(flat) or after:
        window += "…"
    return _marked(pattern, window)


def without(ranked: list[tuple[int, float]], hidden: frozenset[int], depth: int) -> list[tuple[int, float]]:
    """A lane's ranking without the ``hidden`` passages, at most ``depth`` long."""
    return [(c, score) for c, score in ranked if c not in hidden][:depth] if hidden else ranked
