"""The last pass over the extracted Markdown: trailing spaces and runs of blank lines go,
code (fenced or indented) stays exactly as it is. Code is found by the one Markdown scanner,
``core.markdown``."""

from __future__ import annotations

from ..markdown import normalize_newlines, scan

_CODE = frozenset({"fence", "code_block"})


def tidy(markdown: str) -> str:
    """Trim trailing spaces and runs of blank lines outside code; end with one newline."""
    text = normalize_newlines(markdown)
    lines = text.split("\n")
    verbatim = [False] * len(lines)
    for block in scan(text).blocks:
        if block.kind in _CODE:
            first = block.start + 1 if block.kind == "fence" else block.start  # the opening fence may be trimmed
            for i in range(first, block.end):
                verbatim[i] = True
    out: list[str] = []
    for line, keep in zip(lines, verbatim):
        if not keep:
            line = line.rstrip()
            if not line and out and not out[-1]:
                continue
        out.append(line)
    tidied = "\n".join(out).strip("\n")
    return tidied + "\n" if tidied else ""
