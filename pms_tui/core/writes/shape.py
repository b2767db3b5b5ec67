"""A note's bytes as text and back, every byte outside a change as it was: its encoding and
byte order mark, and each line's own ending (``\\n``, ``\\r\\n`` or ``\\r``). New lines get
the ending most of the note's lines have."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from ..errors import SkipFile, UsageError
from ..indexing.notes import byte_order_mark, decode_note

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def version(data: bytes) -> str:
    """The version of a note: the SHA-256 (hex) of its bytes, as the index records it and as
    ``get`` returns it; every write names the version it was made from."""
    return hashlib.sha256(data).hexdigest()


def split_lines(text: str) -> list[str]:
    """The lines of ``text``, each with its own ending (the last may have none); one line per
    line markdown-it counts (``\\r\\n``, ``\\r`` and ``\\n`` each end one)."""
    return _LINE.findall(text)


def bare(line: str) -> str:
    return line.rstrip("\r\n")


@dataclass(frozen=True)
class NoteShape:
    bom: bytes
    codec: str
    newline: str  # the ending new lines get

    def encode(self, text: str) -> bytes:
        return self.bom + text.encode(self.codec)

    def lines_of(self, text: str) -> list[str]:
        """``text`` from an agent (any line endings) as lines ending as this note's do."""
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        return [line + self.newline for line in text.split("\n")]


def read(data: bytes, name: str) -> tuple[NoteShape, str]:
    """(the note's shape, its text with its own line endings); UsageError when it is not
    text pms-tui reads (binary, not UTF-8)."""
    try:
        decode_note(data)
    except SkipFile as exc:
        raise UsageError(f"{name} is not a text note pms-tui can edit: {exc}.") from None
    bom, codec = byte_order_mark(data)
    text = data[len(bom):].decode(codec)
    crlf = text.count("\r\n")
    lone_cr = text.count("\r") - crlf
    lf = text.count("\n") - crlf
    newline = "\r\n" if crlf > max(lf, lone_cr) else "\r" if lone_cr > lf else "\n"
    return NoteShape(bom, codec, newline), text


def new_shape() -> NoteShape:
    """A note pms-tui creates: UTF-8, no BOM, ``\\n``."""
    return NoteShape(b"", "utf-8", "\n")
