"""``split_long_line`` walks a long line by position (linear) and cuts exactly where the
slicing version it replaced did (that version kept here as the reference)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from pms_tui.core.indexing.chunk import _SENTENCE_END, split_long_line


def _reference(line: str, limit: int) -> list[str]:
    line = line.strip()
    parts: list[str] = []
    while len(line) > limit:
        count = -(-len(line) // limit)
        goal = len(line) / count
        ends = [m.end() for m in _SENTENCE_END.finditer(line, 0, limit + 1) if m.end() <= limit]
        if ends:
            cut = min(ends, key=lambda e: (abs(e - goal), -e))
        else:
            space = line.rfind(" ", 0, limit + 1)
            cut = space + 1 if space > 0 else limit
        parts.append(line[:cut].strip())
        line = line[cut:].strip()
    if line:
        parts.append(line)
    return parts


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab .!?;:)]\"'\t\n\u3000x")), max_size=600),
       st.integers(min_value=1, max_value=80))
def test_the_same_parts_as_the_slicing_version(line, limit):
    assert split_long_line(line, limit) == _reference(line, limit)


def test_prose_of_many_sentences():
    words = re.sub(r"\s+", " ", "One (two) three. \"Four\" five! Six; seven: eight? " * 3000)
    for limit in (400, 997, 1600):
        assert split_long_line(words, limit) == _reference(words, limit)
