"""The last pass over the extracted Markdown: trailing spaces and runs of blank lines go,
fenced code stays exactly as it is."""

from __future__ import annotations

import re


def tidy(markdown: str) -> str:
    """Trim trailing spaces and runs of blank lines outside fenced code; end with one newline."""
    out: list[str] = []
    fence: str | None = None
    for line in markdown.split("\n"):
        stripped = line.strip()
        if fence is None:
            match = re.match(r"^\s*(`{3,})", line)
            if match:
                fence = match.group(1)
            line = line.rstrip()
            if not line and out and not out[-1]:
                continue
        elif stripped.startswith(fence) and stripped.strip("`") == "":
            fence = None
        out.append(line)
    text = "\n".join(out).strip("\n")
    return text + "\n" if text else ""
