"""The one boundary for note-derived text on its way to a terminal.

Notes and clipped pages are data. A note may hold escape sequences that clear the screen
(``ESC[2J``), retitle the window (OSC 0), plant hyperlinks (OSC 8) or write the clipboard
(OSC 52); a terminal obeys them if they reach it raw. Every control character is therefore
replaced by a visible, inert stand-in before the text is printed or rendered:

- C0 controls and DEL in caret notation (``ESC`` -> ``^[``, ``BEL`` -> ``^G``, ``CR`` -> ``^M``,
  ``BS`` -> ``^H``, ``DEL`` -> ``^?``), except the whitespace the caller keeps (tab, newline);
- C1 controls (U+0080..U+009F, where U+009B is a one-character CSI and U+009D an OSC) as
  ``<U+009B>``;
- bidirectional overrides and isolates (U+202A..U+202E, U+2066..U+2069), which reorder what
  is shown (the "trojan source" trick), and the line/paragraph separators U+2028/U+2029, as
  ``<U+202E>``;
- lone surrogates (not encodable, they would crash the print) as U+FFFD.

With the introducer gone, the rest of a sequence (``[2J``, ``]52;c;...``) is plain text.
The stand-ins hold no control characters themselves, so sanitising is idempotent.
"""

from __future__ import annotations

import re

__all__ = ["safe_text", "one_line", "UNSAFE"]

_BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_SEPARATORS = "\u2028\u2029"
# Everything that is replaced: C0, DEL, C1, bidi controls, separators, surrogates.
UNSAFE = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}{_SEPARATORS}\ud800-\udfff]")


def _stand_in(char: str) -> str:
    code = ord(char)
    if code < 0x20:
        return "^" + chr(code + 0x40)
    if code == 0x7F:
        return "^?"
    if 0xD800 <= code <= 0xDFFF:
        return "\ufffd"
    return f"<U+{code:04X}>"


def safe_text(text: object, keep: str = "\t\n") -> str:
    """``text`` with every control character made visible and inert.

    ``keep`` lists the whitespace controls that stay as they are (tab and newline by
    default; ``""`` for a single-line field). Non-strings are turned into strings first.
    """
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    if not UNSAFE.search(text):
        return text
    return UNSAFE.sub(lambda m: m.group() if m.group() in keep else _stand_in(m.group()), text)


def one_line(text: object) -> str:
    """A single-line field (title, path, breadcrumb): runs of whitespace become one space,
    then every other control is made visible."""
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    return safe_text(" ".join(text.split()), keep="")
