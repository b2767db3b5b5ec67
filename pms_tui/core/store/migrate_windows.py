"""Schema 12: the embed text of a long paragraph holds the passage whole before its windows
(``indexing.windows``), so the model reads a paragraph that fits its window at once.

The notes that hold such a paragraph (a chunk with a line longer than the least length the
chunker cuts, ``indexing.sentences.MIN_CUT_LINE``) are marked to be re-read by the next sync,
as schema 7 did: their stat and hash no longer match. Re-reading queues only the embed texts
that changed; every other note keeps its chunks and vectors."""

from __future__ import annotations

# indexing.sentences.MIN_CUT_LINE (the store does not import the indexer): a line no longer
# than this is never read in windows, whatever the chunk target
LONGEST_UNCUT_LINE = 400
_BATCH = 500


def migrate_windows(conn, progress=None) -> None:
    marked: set[int] = set()
    rows = conn.execute("SELECT document_id, body FROM chunks WHERE length(body) > ?", (LONGEST_UNCUT_LINE,))
    for document_id, body in rows:
        if document_id not in marked and any(len(line) > LONGEST_UNCUT_LINE for line in body.split("\n")):
            marked.add(document_id)
    ids = sorted(marked)
    for start in range(0, len(ids), _BATCH):
        part = ids[start : start + _BATCH]
        conn.execute(f"UPDATE documents SET sha256 = '', mtime_ns = -1 WHERE id IN ({','.join('?' * len(part))})",
                     part)
