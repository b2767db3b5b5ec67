"""A note's lines in pages that lose nothing: each line is given with its own line ending
(``\\n``, ``\\r\\n`` or ``\\r``, as the file has it), so the pages of a note joined in order are
its text exactly, the last line with or without a newline as it was. ``kb.notes.read``
is the one caller; every front end pages through it.

A page ends at the end of a line, unless its first line alone is longer than a page: then it
holds as much of that line as fits and says where to go on (``next_start_char``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .indexing.notes import is_document_name
from .output_rules import json_value, note_uri

# a line and its ending, or the last line without one (line numbers as the index counts them)
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


def file_lines(text: str) -> list[str]:
    """``text``'s lines, each with its line ending; ``"".join`` gives ``text`` back."""
    return _LINE.findall(text)


def without_ending(line: str) -> str:
    return line.rstrip("\r\n")


@dataclass(frozen=True)
class NotePage:
    """Lines ``first``..``last`` of a note (``last``: the last line the page reaches, whole or
    in part), the first from its character ``start_char``, as written in the file."""

    id: str
    text: str
    first: int
    last: int
    total_lines: int
    start_char: int = 0
    next_start_line: int | None = None  # where the next page starts; None at the end of the range
    next_start_char: int | None = None  # set when the next page starts inside next_start_line
    cut: str | None = None  # the sentence saying a line was cut
    pages: tuple[int, int] | None = None  # a PDF's pages of the first and the last line
    frontmatter: dict = field(default_factory=dict)
    note: Any = None  # the NoteRef read (set by Notes.read: services/notes.py imports this module)

    @property
    def truncated(self) -> bool:
        return self.next_start_line is not None

    @property
    def editable(self) -> bool:
        """A note a write may change (not a PDF's or Word file's text): its version is what an edit names."""
        return self.note is not None and not is_document_name(self.note.relpath)

    def to_json(self, kb: Any = None) -> dict:
        """The one way a read note is written out (the CLI's ``show --json``, MCP ``get``): its id,
        URI, where it is, its frontmatter, the lines given and their text; with the KnowledgeBase
        ``kb``, an editable note's ``version`` (what an edit names); where the next page starts
        when there is more."""
        note = self.note
        version = kb.write.version(self.id) if kb is not None and self.editable else None
        data: dict = {
            "id": self.id, "uri": note_uri(note.collection.name, note.relpath), "collection": note.collection.name,
            "path": note.relpath, "file": str(note.collection.path / note.relpath), "title": note.title,
            "frontmatter": json_value(self.frontmatter), "lines": [self.first, self.last],
            "total_lines": self.total_lines, "text": self.text,
        }
        if self.pages is not None:  # a PDF: the page of the first line given, and of the last
            data["pages"] = list(self.pages)
        if version is not None:
            data["version"] = version
        if self.start_char:
            data["start_char"] = self.start_char
        if self.truncated:
            data["truncated"] = True
            data["next_start_line"] = self.next_start_line
        if self.next_start_char is not None:
            data["next_start_char"] = self.next_start_char
        if self.cut:
            data["cut"] = self.cut
        return data


def page(note_id: str, lines: list[str], first: int, last: int, start_char: int = 0,
         max_chars: int | None = None, measure: Callable[[str], int] = len) -> NotePage:
    """Lines ``first``..``last`` (1-based; each with its ending), the first from its character
    ``start_char``, up to ``max_chars`` as ``measure`` counts them (None: no limit). ``measure``
    never counts a text shorter than ``len`` does (a front end may count escapes)."""
    total = len(lines)
    if max_chars is None:
        text = "".join(lines[first - 1:last])
        return NotePage(note_id, text[start_char:], first, last, total, start_char)
    out: list[str] = []
    size, line = 0, first
    while line <= last:
        piece = lines[line - 1][start_char:] if line == first else lines[line - 1]
        # a line longer than the room left cannot fit, however it is counted (a 20 MB line is not measured)
        need = measure(piece) if size + len(piece) <= max_chars else max_chars + 1
        if size + need <= max_chars:
            out.append(piece)
            size += need
            line += 1
            continue
        if out:
            break
        keep = min(len(piece), max_chars)
        while keep > 1 and (over := measure(piece[:keep])) > max_chars:
            keep = max(1, min(keep - 1, keep * max_chars // over))
        bare = len(without_ending(piece))
        if bare < keep < len(piece) and bare:  # never between a line's \r and its \n: the ending goes whole
            keep = bare
        offset = start_char + keep
        length = len(without_ending(lines[line - 1]))
        cut = (f"Line {line} has {length:,} characters, more than a page: this page holds its characters "
               f"{start_char:,} to {min(offset, length):,}; go on with start_line {line} and start_char {offset}.")
        return NotePage(note_id, piece[:keep], first, line, total, start_char, line, offset, cut)
    return NotePage(note_id, "".join(out), first, line - 1, total, start_char, line if line <= last else None)
