"""Chinese, Japanese and Korean text for the full-text index: overlapping character pairs.

FTS5's unicode61 tokenizer keeps a run of CJK characters, which has no spaces between words,
as one token, so ``索引`` never finds ``数据库索引``. Beside the Porter-stemmed columns the
index keeps one more column, ``cjk``, holding the *bigrams* of every CJK run in the chunk's
title, heading and body (``数据 据库 库索 索引``, the way Lucene's CJK analyzer and most
search engines index these scripts), followed by the run's last character alone: a word of
one character at the end of a run is found, and two runs never join into a false pair. The
Latin letters of a token that mixes scripts (``使用git命令``) go in as words of their own.
Text without CJK adds nothing, so the index of a Latin-script collection is unchanged.

A query word with CJK in it becomes the same pairs (:func:`query_pairs`): each pair is a
term of BM25's OR-query, and the whole run once more as a phrase of its pairs, so a passage
holding the word itself scores above one holding only some of its pairs. A word of one
character matches as a prefix (the pairs that start with it, or the run's last character).

Korean writes spaces between words, but particles attach to them (``데이터베이스를``): the
pairs make ``데이터베이스`` find it; a query carrying a different particle still scores on
the pairs it shares with the note.
"""

from __future__ import annotations

import re

# Han (with extensions and compatibility forms), kana, Hangul (syllables and jamo), Bopomofo,
# the iteration marks and the kana length mark. Only word characters count (see _TOKEN), so
# the kana middle dot and CJK punctuation stay separators, as they are for unicode61.
_CJK_RANGES = (
    "\u1100-\u11ff\u2e80-\u2fdf\u3005-\u3007\u3021-\u3029\u3031-\u3035\u303b-\u303c"
    "\u3040-\u30ff\u3100-\u312f\u3130-\u318f\u31a0-\u31bf\u31f0-\u31ff\u3400-\u4dbf"
    "\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\uff66-\uffdc"
    "\U00020000-\U0003134f"
)
CJK_CLASS = f"[{_CJK_RANGES}]"  # a regular-expression class of one CJK character
_CJK = re.compile(CJK_CLASS)
_TOKEN = re.compile(r"[^\W_]+")  # what unicode61 keeps as a token: letters and digits
_SEGMENT = re.compile(f"[{_CJK_RANGES}]+|[^{_CJK_RANGES}]+")


def has_cjk(text: str) -> bool:
    return _CJK.search(text) is not None


def is_cjk(char: str) -> bool:
    return _CJK.match(char) is not None


def segments(word: str) -> list[str]:
    """A token cut where it changes between CJK and other letters: ``使用git`` -> 使用, git."""
    return _SEGMENT.findall(word)


def pairs(run: str) -> list[str]:
    """The overlapping character pairs of a CJK run (none for a single character)."""
    return [run[i : i + 2] for i in range(len(run) - 1)]


def _token_terms(token: str) -> list[str]:
    terms: list[str] = []
    for seg in segments(token):
        if is_cjk(seg[0]):
            terms += pairs(seg)
            terms.append(seg[-1])
        else:
            terms.append(seg)
    return terms


def index_text(*texts: str) -> str:
    """The ``cjk`` column of a chunk: the terms of every token holding CJK, space separated
    ('' when the texts hold none, the case for every Latin-script note)."""
    out: list[str] = []
    for text in texts:
        if not text or not has_cjk(text):
            continue
        for token in _TOKEN.findall(text):
            if has_cjk(token):
                out += _token_terms(token)
    return " ".join(out)


def query_pairs(word: str) -> tuple[list[str], list[str]]:
    """(terms, phrases) for one query word holding CJK: each CJK pair and each other segment
    as a term, and each run of three or more characters once more as a phrase (its pairs in
    order, space separated). A run of one character is returned as a term of one character,
    which the caller matches as a prefix."""
    terms: list[str] = []
    phrases: list[str] = []
    for seg in segments(word):
        if not is_cjk(seg[0]):
            terms.append(seg)
        elif len(seg) == 1:
            terms.append(seg)
        else:
            found = pairs(seg)
            terms += found
            if len(found) > 1:
                phrases.append(" ".join(found))
    return terms, phrases


def word_phrase(word: str) -> tuple[str, bool]:
    """(the ``cjk`` column's tokens for ``word`` as written, space separated; whether the last
    one is a prefix): the phrase that finds the word inside a longer run. Its last run's final
    character is left out (inside a note the run may go on); a last run of one character is
    a prefix (the pairs starting with it)."""
    terms = _token_terms(word)
    last = segments(word)[-1]
    prefix = is_cjk(last[0]) and len(last) == 1
    if is_cjk(last[0]) and len(last) > 1:
        terms = terms[:-1]
    return " ".join(terms), prefix
