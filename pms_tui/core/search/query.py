"""Turn what a person typed into a safe FTS5 MATCH expression.

User text never reaches MATCH raw: it is split into words, every word is quoted (so
``AND``, ``NEAR``, ``*``, ``:``, ``^``, ``-`` and quotes are just text), stopwords are
dropped unless nothing else is left, and the words are OR-ed, since FTS5's implicit AND
returns nothing for a natural question. The last word also matches as a prefix while it
is still being typed (the query does not end in a space or punctuation). When the index
holds notes in other languages (store.language), each whole word also looks for its Snowball
stems in those languages, which only their notes' ``stems`` column holds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..store import cjk, language

# A compact English stopword list (the words that make up most of a question's tokens but
# carry no topic). Kept short on purpose: "not", "no" and numbers stay searchable.
STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself of off on once only or other our ours ourselves out
    over own same she should so some such than that the their theirs them themselves then there
    these they this those through to too under until up very was we were what when where which
    while who whom why will with would you your yours yourself yourselves s t""".split()
)

_WORD = re.compile(r"\w+", re.UNICODE)
MAX_TERMS = 48
# A word said more often than this counts as said this often: each repeat is one more phrase
# FTS5 scores on every row holding the word, so a pasted "a a a ..." scored for seconds.
MAX_REPEATS = 8
MAX_PHRASE_PAIRS = 16  # a longer CJK run (a pasted sentence) adds its pairs, not a phrase of them


def words(text: str) -> list[str]:
    """The lower-cased words of a query, in order, repeats kept."""
    return [w.lower() for w in _WORD.findall(text)]


def content_words(text: str) -> list[str]:
    """Words without stopwords; all words when the query is only stopwords."""
    all_words = words(text)
    kept = [w for w in all_words if w not in STOPWORDS]
    return kept or all_words


def _quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def cjk_parts(word: str) -> list[str]:
    """The OR-query parts of a word holding CJK: its character pairs (found in the index's
    ``cjk`` column), each other segment as a word, a lone CJK character as a prefix, and a
    run of three or more characters once more as a phrase of its pairs (see store.cjk)."""
    terms, phrases = cjk.query_pairs(word)
    parts = [_quote(t) + ("*" if len(t) == 1 and cjk.is_cjk(t) else "") for t in terms]
    return parts + [_quote(p) for p in phrases if p.count(" ") < MAX_PHRASE_PAIRS]


def word_expression(word: str, prefix: bool = False, stem_languages: Sequence[str] = (), *,
                    said: bool = True) -> str:
    """One word as an FTS5 expression: ``"word"`` (``"word"*`` as a prefix); a word holding
    CJK as the OR of :func:`cjk_parts`, in parentheses when there are several; a word OR-ed
    with its stems in ``stem_languages`` (prefixes too, for a prefix)."""
    if not cjk.has_cjk(word):
        star = "*" if prefix else ""
        stems = language.query_stems(word, stem_languages, said=said)
        if stems:
            return "(" + " OR ".join(_quote(t) + star for t in [word, *stems]) + ")"
        return _quote(word) + star
    parts = cjk_parts(word)
    return parts[0] if len(parts) == 1 else "(" + " OR ".join(parts) + ")"


def build_match(text: str, *, prefix: bool = True, max_terms: int = MAX_TERMS,
                stem_languages: Sequence[str] = (), said: bool | None = None) -> str | None:
    """An FTS5 MATCH string for ``text``, or None when it holds no searchable word.

    Repeated words are kept (a word said twice matters more), up to :data:`MAX_REPEATS` times
    each, and the expression is capped at ``max_terms`` words so a pasted page cannot make a
    query that scores for seconds. A word
    holding CJK adds its character pairs (:func:`cjk_parts`), within the same cap. Each word
    (its stems as prefixes for the word being typed) then adds its stems in ``stem_languages`` (the languages of the index's notes other
    than English, store.language), as many again at most: with none, the expression is the
    porter one alone. ``said``: the query's words chose those languages (by default read off
    ``text``, ``language.languages_said``); when not, a stem that is the English one is left
    out (``language.query_stems``).
    """
    terms = _repeats_capped(content_words(text))[:max_terms]
    if not terms:
        return None
    if said is None:  # did the query's function words choose the stems' languages?
        said = language.languages_said(words(text), stem_languages)
    parts = []
    stems: list[str] = []
    for i, t in enumerate(terms):
        if cjk.has_cjk(t):
            parts += cjk_parts(t)
        elif prefix and i == len(terms) - 1 and prefix_word(text, terms) is not None:
            parts.append(f"{_quote(t)}*")
            # while typed, its stems are prefixes too (the stem of "lösc" starts "losch")
            stems += [f"{_quote(s)}*" for s in language.query_stems(t, stem_languages, said=said)]
        else:
            parts.append(_quote(t))
            stems += [_quote(s) for s in language.query_stems(t, stem_languages, said=said)]
    return " OR ".join(parts[:max_terms] + stems[:max_terms]) or None


def _repeats_capped(terms: list[str]) -> list[str]:
    """``terms`` with each word at most :data:`MAX_REPEATS` times, its last occurrences kept
    (the last word, the one being typed, stays last)."""
    seen: dict[str, int] = {}
    kept = []
    for term in reversed(terms):
        seen[term] = seen.get(term, 0) + 1
        if seen[term] <= MAX_REPEATS:
            kept.append(term)
    return kept[::-1]


def prefix_word(text: str, terms: list[str] | None = None) -> str | None:
    """The word ``build_match`` matches as a prefix (the last, still being typed), or None."""
    terms = content_words(text)[:MAX_TERMS] if terms is None else terms
    if terms and text[-1:].isalnum() and len(terms[-1]) >= 2 and terms[-1] == words(text)[-1]:
        return terms[-1]
    return None
