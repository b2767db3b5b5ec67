"""``fusion.mark_words`` marks words by a small pattern made per query plus checks against
patterns compiled once; checked here against the one-regex way it was written before (a
reference, pure logic), on generated texts mixing Latin letters of both cases, digits,
punctuation and CJK characters."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as hs

from pms_tui.core.results import SNIPPET_CLOSE, SNIPPET_OPEN
from pms_tui.core.search import fusion
from pms_tui.core.store import cjk


def reference_mark(text: str, words: list[str], width: int, before: bool = False, after: bool = False) -> str:
    """``fusion._mark`` as it was: one regex with the CJK class inside, case-insensitive."""
    stems = sorted({w[:5] for w in words if len(w) > 1 and not cjk.has_cjk(w)}, key=len, reverse=True)
    runs = sorted({p for w in words if cjk.has_cjk(w) for p in [w, *cjk.query_pairs(w)[0]] if cjk.has_cjk(p)},
                  key=len, reverse=True)
    flat = " ".join(text.split())
    if not stems and not runs:
        return ("…" if before else "") + flat[:width] + ("…" if after and len(flat) > width else "")
    alternatives = []
    if runs:
        alternatives.append("|".join(re.escape(r) for r in runs))
    if stems:
        alternatives.append(rf"(?:\b|(?<={cjk.CJK_CLASS}))(?:" + "|".join(re.escape(s) for s in stems)
                            + rf")(?:(?!{cjk.CJK_CLASS})\w)*")
    pattern = re.compile("|".join(alternatives), re.IGNORECASE)
    first = pattern.search(flat)
    start = max(0, first.start() - width // 3) if first else 0
    window = flat[start : start + width]
    if start > 0 or before:
        window = "…" + window
    if start + width < len(flat) or after:
        window += "…"
    return pattern.sub(lambda m: f"{SNIPPET_OPEN}{m.group(0)}{SNIPPET_CLOSE}", window)


LETTERS = "abcABC中文字é1_ -.,"
WORDS = ["ab", "abc", "Abcab", "ca", "中文", "文字", "字", "éa", "b1", "c_a", "x"]


@settings(max_examples=600, deadline=None)
@given(hs.text(alphabet=LETTERS, max_size=80), hs.lists(hs.sampled_from(WORDS), max_size=4),
       hs.integers(min_value=5, max_value=90), hs.booleans(), hs.booleans())
def test_marks_as_the_one_regex_did(text, words, width, before, after):
    assert fusion._mark(text, words, width, before, after) == reference_mark(text, words, width, before, after)


def test_a_word_after_a_cjk_character_is_marked_and_its_tail_stops_at_the_next_one():
    marked = fusion._mark("见commit记录 recommit Committed", ["commit"], 200)
    assert marked == (f"见{SNIPPET_OPEN}commit{SNIPPET_CLOSE}记录 recommit "
                      f"{SNIPPET_OPEN}Committed{SNIPPET_CLOSE}")
