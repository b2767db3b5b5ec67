"""The status line's fitting (pms_tui.tui.status_fit), as pure logic: parts with importances
in, the forms that fit a width out. No Textual."""

from __future__ import annotations

import pytest
from rich.cells import cell_len

from pms_tui.tui.status_fit import ELLIPSIS, cut, fit, part


def text(forms) -> str:
    return " | ".join(f.text for f in forms)


def plain(*words: str):
    return [(w, "") for w in words]


PARTS = [
    part(50, plain("12,345 notes · 45,678 chunks"), plain("12,345 notes"), plain("12k notes")),
    part(10, plain("model ready")),
    part(38, plain("mode hybrid"), plain("hybrid")),
    part(80, plain("lanes bm25 (vector joins when more passages are embedded)"),
         plain("bm25 (vector joins when more passages are embedded)"), plain("bm25 (vectors filling in)"), step=20),
    part(65, plain("30 notes in 12 ms"), plain("30 notes")),
    part(95, plain("No note matches well")),
]


def test_everything_shows_when_it_fits():
    assert text(fit(PARTS, 500)) == (
        "12,345 notes · 45,678 chunks | model ready | mode hybrid | lanes bm25 (vector "
        "joins when more passages are embedded) | 30 notes in 12 ms | No note matches well")


@pytest.mark.parametrize("width", range(0, 200))
def test_the_line_never_overflows_and_keeps_the_order(width):
    forms = fit(PARTS, width)
    assert cell_len(text(forms)) <= max(width, 0)
    if len(forms) == 1 and not any(forms[0] in p for p in PARTS):  # the last one left, cut
        assert forms[0].text.endswith(ELLIPSIS) and width < forms[0].cells + 20
        return
    order = [next(n for n, p in enumerate(PARTS) if f in p) for f in forms]  # whole forms only
    assert order == sorted(order)


def test_the_least_important_goes_first_and_the_urgent_stays():
    at_80 = text(fit(PARTS, 80))
    assert "No note matches well" in at_80 and "(vectors filling in)" in at_80 and "30 notes" in at_80
    assert "model ready" not in at_80 and "mode hybrid" not in at_80
    at_40 = text(fit(PARTS, 40))
    assert at_40.endswith("No note matches well") and "12,345" not in at_40


def test_a_part_shortens_before_it_goes():
    assert text(fit([part(50, plain("12,345 notes · 45,678 chunks"), plain("12k notes"))], 12)) == "12k notes"
    two = [part(10, plain("mode hybrid"), plain("hybrid")), part(60, plain("30 notes"))]
    assert text(fit(two, 17)) == "hybrid | 30 notes"
    assert text(fit(two, 10)) == "30 notes"


def test_equals_leave_from_the_right_and_room_left_is_used():
    same = [part(20, plain("aaaa")), part(20, plain("bbbb")), part(20, plain("cc"))]
    assert text(fit(same, 11)) == "aaaa | bbbb"
    assert text(fit(same, 9)) == "aaaa | cc"  # both went, the rightmost first; "cc" fits again
    # "xx" went first, then the long part shortened: "xx" fits again
    spare = [part(5, plain("xx")), part(30, plain("a long part here"), plain("short")), part(90, plain("urgent"))]
    assert text(fit(spare, 19)) == "xx | short | urgent"


def test_the_last_part_on_a_too_narrow_line_ends_in_an_ellipsis():
    forms = fit(PARTS, 12)
    assert text(forms) == "No note mat" + ELLIPSIS
    assert fit(PARTS, 0) == []


def test_cut_keeps_styles_and_counts_wide_characters():
    assert cut([("ignored ", "a"), ("after:someday", "b")], 12) == (("ignored ", "a"), ("aft" + ELLIPSIS, "b"))
    assert cut([("in ", ""), ("日本語のメモ", "b")], 8) == (("in ", ""), ("日本" + ELLIPSIS, "b"))
    assert cell_len("".join(t for t, _ in cut([("日本語のメモ", "")], 4))) <= 4
    assert cut([("short", "")], 10) == (("short", ""),)


def test_part_leaves_out_forms_with_nothing_shorter():
    one = part(40, plain("hybrid"), plain("hybrid"))
    assert len(one) == 1 and one[0].keep == 40
    three = part(50, plain("a b c"), plain("a b"), plain("a"))
    assert [f.keep for f in three] == [26, 38, 50]
