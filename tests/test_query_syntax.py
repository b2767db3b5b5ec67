"""The search language parser: examples, bad input, and properties (hypothesis)."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pms_tui.core.search.query_syntax import PARSED_QUERY_CHARS, parse, parse_date

TODAY = dt.date(2026, 3, 31)


def p(query: str):
    return parse(query, TODAY)


def test_words_phrases_exclusions():
    q = p('git undo "last commit" -rebase -"force push"')
    assert q.terms == ["git", "undo"]
    assert q.phrases == ["last commit"]
    assert q.exclude == ["rebase", "force push"]
    assert q.text == "git undo last commit"
    assert q.has_text and q.has_filters and not q.note_filters


@pytest.mark.parametrize("query, match_text, typing", [
    ("git reb", "git reb", True),  # the last word is being typed: BM25 matches it as a prefix
    ("git reb ", "git reb ", False),  # a space ended it
    ("git reb tag:git", "git reb ", False),  # so did a filter after it
    ('git "interactive rebase"', "interactive rebase git ", False),  # and a phrase
    ('"interactive rebase" gi', "interactive rebase gi", True),  # the typed word comes last
    ('"still typing a phr', "still typing a phr", True),  # an unclosed quote is text being typed
    ("reb -draft", "reb ", False),
    ("tag:git", " ", False),
])
def test_the_word_being_typed(query, match_text, typing):
    q = p(query)
    assert (q.match_text, q.typing) == (match_text, typing)


def test_filters():
    q = p('tag:#Git tag:tools path:notes/git/ path:./b in:work title:"Undo It" after:2024-05 before:2025')
    assert q.values("tag") == ["git", "tools"]
    assert q.values("path") == ["notes/git/", "b"]
    assert q.values("in") == ["work"]
    assert q.values("title") == ["undo", "it"]
    assert (q.value("after"), q.value("before")) == ("2024-05-01", "2025-01-01")
    assert not q.has_text and q.note_filters and q.ignored == []
    assert "tag:git" in q.chips() and "after:2024-05-01" in q.chips()


def test_negated_filters_and_aliases():
    q = p("-tag:draft -path:archive/ -in:old file:x/ collection:c since:2024 until:2024-02-03")
    assert (q.values("tag", True), q.values("path", True), q.values("in", True)) == (["draft"], ["archive/"], ["old"])
    assert (q.values("path"), q.values("in"), q.value("after"), q.value("before")) == (["x/"], ["c"], "2024-01-01", "2024-02-03")


@pytest.mark.parametrize("value, expected", [
    ("2024", "2024-01-01"), ("2024-05", "2024-05-01"), ("2024-5-7", "2024-05-07"),
    ("today", "2026-03-31"), ("yesterday", "2026-03-30"), ("7d", "2026-03-24"), ("2w", "2026-03-17"),
    ("1m", "2026-02-28"), ("3m", "2025-12-31"), ("1y", "2025-03-31"), ("2024-02-30", None),
    ("yesterdayish", None), ("999999d", None), ("99999d", "1752-06-16"), ("0000", None), ("", None),
])
def test_dates(value, expected):
    day = parse_date(value, TODAY)
    assert (day.isoformat() if day else None) == expected


def test_narrowest_date_bounds_win():
    q = p("after:2020 after:2024 before:2026 before:2025-06")
    assert (q.value("after"), q.value("before")) == ("2024-01-01", "2025-06-01")


@pytest.mark.parametrize("query, reason", [
    ("after:yesterdayish", "not a date"),
    ("tag:", "needs a value"),
    ("in:", "needs a value"),
    ("tag:#", "needs a value"),
    ("title:!!", "holds no word"),
    ("-after:3m", "cannot be negated"),
    ("-title:x", "cannot be negated"),
    ("foo:bar", "not a filter"),
])
def test_ignored_with_reason(query, reason):
    q = p(query)
    assert len(q.ignored) == 1 and reason in q.ignored[0].reason
    assert not q.note_filters


def test_unknown_name_stays_text_urls_and_times_are_text():
    q = p("foo:bar https://example.org/a 12:30 C:\\dir")
    assert q.terms == ["foo:bar", "https://example.org/a", "12:30", "C:\\dir"]
    assert [i.text for i in q.ignored] == ["foo:bar"]


def test_unbalanced_quote_is_text_and_lone_dash_is_nothing():
    q = p('undo "last com tag:x')
    assert q.terms == ["undo", "last", "com", "tag:x"] and q.phrases == [] and q.values("tag") == []
    q = p("- -- -\"\" \"\"")
    assert (q.terms, q.phrases, q.exclude) == ([], [], [])
    assert p("git -").terms == ["git"]


def test_command_line_flags_are_text_not_exclusions():
    p = parse("git rev-parse --show-toplevel")
    assert p.text == "git rev-parse --show-toplevel" and not p.exclude
    p = parse("vim -t UsersController -draft")
    assert p.text == "vim -t UsersController" and p.exclude == ["draft"]


def test_hyphenated_words_and_negated_multiword_token():
    q = p("foo-bar -baz-qux")
    assert q.terms == ["foo-bar"] and q.exclude == ["baz qux"]


def test_control_characters_and_surrogates():
    q = p("\x00git\x1b[31m \ud800undo\x7f")
    assert q.terms == ["git", "[31m", "undo"]
    assert "\x00" not in q.raw and "\x1b" not in q.raw


def test_huge_input_is_cut():
    q = p('tag:a "x" -yy ' * 2000)
    assert len(q.raw) <= PARSED_QUERY_CHARS
    assert q.values("tag") == ["a"] and q.phrases == ["x"] and q.exclude == ["yy"]


QUERY_ALPHABET = st.sampled_from(list('ab  "-:#/\\*()^') + ["tag:", "path:", "in:", "title:", "after:",
                                  "before:", "7d", "2024-05", "\x00", "\ud800", "\x1b", "NEAR", "AND", "é"])


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=200), st.lists(QUERY_ALPHABET, max_size=60).map("".join)))
@example('TAG:"0 0')  # an unterminated quoted value holding a space
@example('in:"a b" path:"x y/" -tag:"p q"')
def test_parse_never_raises_and_is_consistent(query):
    q = parse(query, TODAY)
    json.dumps(q.to_json())
    for value in [*q.terms, *q.phrases, *q.exclude, *q.values("tag"), *q.values("path"), *q.values("in"), *q.values("title")]:
        assert value and "\x00" not in value
    for phrase in q.phrases + q.exclude:
        assert phrase == phrase.strip() and '"' not in phrase
    assert all(i.reason for i in q.ignored)
    if q.value("after") and q.value("before"):
        dt.date.fromisoformat(q.value("after")), dt.date.fromisoformat(q.value("before"))
    # parsing what it shows as chips gives the same filters back
    again = parse(" ".join(q.chips()), TODAY)
    assert (again.values("tag"), again.values("in"), again.values("title"), again.value("after"), again.value("before")) == (
        q.values("tag"), q.values("in"), q.values("title"), q.value("after"), q.value("before"))


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=30_000))
def test_long_random_input(query):
    parse(query * 3, TODAY)
