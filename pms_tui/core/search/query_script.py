"""Which writing systems a query's letters are in, and whether the embedding model reads them.

A model trained on English text embeds a Chinese or Japanese query as a handful of unknown
or single-character pieces: its vector lane then ranks passages that have nothing to do with
the query, and fusion follows it below what BM25 alone finds (docs/evaluation.md, "A lane
that cannot read the query"). Hybrid search leaves the vector lane out of such a query.

The script of a letter is read off its Unicode name ("CJK UNIFIED IDEOGRAPH-6570": Han,
"HIRAGANA LETTER KA": Hiragana), so no table of code point ranges is kept here. Only letters
count: digits, punctuation and symbols are read alike by every model.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from functools import lru_cache

from ..results import VectorOut
from ..store import language

# Words that lead some letters' names without naming a script ("FULLWIDTH LATIN CAPITAL
# LETTER A", "HALFWIDTH KATAKANA LETTER A"): the script is the next word.
_WIDTH = frozenset({"FULLWIDTH", "HALFWIDTH"})
# Letters whose names name no script: counted as no script at all.
_NO_SCRIPT = frozenset({"MODIFIER", "SUPERSCRIPT", "SUBSCRIPT", "CIRCLED", "PARENTHESIZED"})
_NAMES = {"CJK": "Han", "KATAKANA-HIRAGANA": "Katakana"}
# At most this share of a query's letters may be in scripts the model does not read before
# its vector lane is left out (a Latin product name in a Chinese query still leaves it out;
# one Greek letter in an English query does not).
MOST_UNREAD = 0.5


@lru_cache(maxsize=4096)
def script_of(char: str) -> str | None:
    """The script of one letter ("Latin", "Han", "Hiragana", "Cyrillic" ...), None for a
    character that is not a letter or whose name names no script."""
    if char.isascii():
        return "Latin" if char.isalpha() else None
    if not char.isalpha():
        return None
    words = unicodedata.name(char, "").split()
    if words and words[0] in _WIDTH:
        words = words[1:]
    if not words or words[0] in _NO_SCRIPT:
        return None
    return _NAMES.get(words[0], words[0].capitalize())


def scripts(text: str) -> Counter[str]:
    """How many of ``text``'s letters are in each script."""
    counts: Counter[str] = Counter()
    for char in text:
        name = script_of(char)
        if name is not None:
            counts[name] += 1
    return counts


def unread(text: str, reads: frozenset[str] | None) -> list[str]:
    """The scripts of ``text`` that a model reading ``reads`` (None: every script) cannot
    read, most letters first, when they hold more than :data:`MOST_UNREAD` of its letters;
    else [] (the model reads the query well enough to vote)."""
    if reads is None:
        return []
    counts = scripts(text)
    total = sum(counts.values())
    missing = {name: n for name, n in counts.items() if name not in reads}
    if not total or sum(missing.values()) <= MOST_UNREAD * total:
        return []
    return sorted(missing, key=lambda name: (-missing[name], name))


def unread_note(model: str, reads: frozenset[str] | None, text: str) -> str:
    """Why hybrid search leaves the vector lane out of ``text``: most of its letters are in
    scripts ``model`` (reading ``reads``) cannot read; "" when it reads them."""
    not_read = unread(text, reads)
    if not not_read:
        return ""
    return (f"{VectorOut.UNREAD_SCRIPT.value}: {model} reads {', '.join(sorted(reads or ()))} "
            f"script, this query is in {', '.join(not_read)}")


def unread_language_note(model: str, reads: frozenset[str] | None, words: list[str]) -> str:
    """Why hybrid search leaves the vector lane out of a query of ``words``: they say it is in a
    language ``model`` (reading ``reads``, None: every language) reads poorly; "" when it reads
    it, or the words do not say (a word or two: the exact-word rule and BM25 take those)."""
    if reads is None:
        return ""
    lang = language.query_language(words)
    if lang in ("", *reads):
        return ""
    return (f"{VectorOut.UNREAD_LANGUAGE.value}: {model} reads {', '.join(_name(code) for code in sorted(reads))}, "
            f"this query is in {_name(lang)}")


def _name(code: str) -> str:
    if code == language.ENGLISH:
        return "English"
    return language.ALGORITHMS[code].capitalize() if code in language.ALGORITHMS else "another language"
