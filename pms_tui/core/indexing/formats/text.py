"""Plain ``.txt`` files: read as UTF-8 (a byte-order mark says UTF-16 or UTF-8), else as
Windows-1252, the usual encoding of older text files (it decodes any byte). A file holding NUL
bytes in its first 64 KB is binary, not text, and is not read. No library: Python's codecs
are the reader."""

from __future__ import annotations

import codecs

from ..document_reader import clean

SNIFF = 65_536


def read(path: str, max_chars: int) -> dict:
    with open(path, "rb") as handle:
        data = handle.read(4 * max_chars + 4)
    cut = len(data) > 4 * max_chars  # (read up to the limit: the last character may be cut)
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        text = data.decode("utf-16", "replace")
    else:
        if b"\x00" in data[:SNIFF]:
            return {"skip": "not plain text (it holds binary data)"}
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            if cut and exc.start >= len(data) - 4:  # a character cut at the read limit: UTF-8 all the same
                text = data[:exc.start].decode("utf-8-sig", "replace")
            else:
                text = data.decode("cp1252", "replace")
    text = clean(text)
    return {"text": text[:max_chars], "truncated": max(len(text) - max_chars, 0)}
