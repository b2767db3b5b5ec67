"""Schema 8 -> 9: vectors keyed by the first 16 bytes of their text's SHA-256, not all 32.

``indexing.embed.embed_hash`` now gives 16 bytes (two texts sharing them: a 2^-128 chance a
pair); the row and its unique index each hold 16 bytes less. The stored keys are cut to the
same 16 bytes, so every vector is found again by its text and nothing is embedded twice. A
retired row's key (its negative id, see ``vectors.retire_all``) is shorter and stays. Runs
inside ensure_schema's transaction, in batches of ids, telling ``progress`` how far it is;
running it again changes nothing. The rows shrink in place: an upgraded file keeps its size
(SQLite gives pages back after a DELETE, not after an UPDATE that shrinks a row); a rebuilt
index is smaller.
"""

from __future__ import annotations

BATCH = 20_000  # vector ids per statement
PHASE = "shortening the vector keys"


def migrate_hashes(conn, progress=None) -> None:
    lo, hi = conn.execute("SELECT min(id), max(id) FROM vectors").fetchone()
    if lo is None:
        return
    total = hi - lo + 1
    if progress:
        progress(0, total, PHASE)
    for start in range(lo, hi + 1, BATCH):
        conn.execute("UPDATE vectors SET hash = substr(hash, 1, 16) WHERE id >= ? AND id < ? AND length(hash) = 32",
                     (start, start + BATCH))
        if progress:
            progress(min(start + BATCH, hi + 1) - lo, total, PHASE)
