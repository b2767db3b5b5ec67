"""Document frequencies of the full-text index's terms, kept by the writer (schema 10).

The BM25 planner needs the rows holding each query term. FTS5 keeps no such count: its
fts5vocab table finds it by reading the term's whole doclist, which grows with the index and is
read again for every query. ``fts_df`` holds the counts instead:

* ``fts_df(term, doc)``: the counts as of the last fold;
* ``fts_df_added`` / ``fts_df_removed``: contentless FTS5 tables with the index's columns and
  tokenizer, written by the chunk triggers beside ``chunks_fts`` (the same values), so a term's
  count is always ``fts_df + added - removed`` (their fts5vocab rows), exact at every commit,
  whoever wrote the chunks;
* :func:`fold` moves the two deltas into ``fts_df`` (``transaction`` does it before COMMIT), so
  they stay small.

An index from before schema 10 gets the tables and its counts from the vocabulary once
(:func:`migrate_term_counts`, inside ensure_schema's transaction).
"""

from __future__ import annotations

from collections.abc import Sequence

TOKENIZE = "porter unicode61 remove_diacritics 2"  # the index's tokenizer (schema.FTS_TOKENIZE)

TABLES = (
    "CREATE TABLE IF NOT EXISTS fts_df (term TEXT PRIMARY KEY, doc INTEGER NOT NULL) WITHOUT ROWID",
    # rowids are given by FTS5 (its docsize table, so each insert is a row of its own)
    *(f"CREATE VIRTUAL TABLE IF NOT EXISTS {name} USING fts5(title, heading, body, cjk, content='', detail=none, "
      f"tokenize='{TOKENIZE}')" for name in ("fts_df_added", "fts_df_removed")),
    "CREATE VIRTUAL TABLE IF NOT EXISTS fts_df_added_v USING fts5vocab(fts_df_added, 'row')",
    "CREATE VIRTUAL TABLE IF NOT EXISTS fts_df_removed_v USING fts5vocab(fts_df_removed, 'row')",
)
_ADD = ("INSERT INTO fts_df_added(title, heading, body, cjk) "
        "VALUES (new.title, new.heading, new.body, new.cjk);")
_REMOVE = ("INSERT INTO fts_df_removed(title, heading, body, cjk) "
           "VALUES (old.title, old.heading, old.body, old.cjk);")
TRIGGERS = (
    f"""CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, title, heading, body, cjk)
    VALUES (new.id, new.title, new.heading, new.body, new.cjk);
    {_ADD}
END""",
    f"""CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, title, heading, body, cjk)
    VALUES ('delete', old.id, old.title, old.heading, old.body, old.cjk);
    {_REMOVE}
END""",
    f"""CREATE TRIGGER chunks_au AFTER UPDATE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, title, heading, body, cjk)
    VALUES ('delete', old.id, old.title, old.heading, old.body, old.cjk);
    INSERT INTO chunks_fts(rowid, title, heading, body, cjk)
    VALUES (new.id, new.title, new.heading, new.body, new.cjk);
    {_REMOVE}
    {_ADD}
END""",
)

# a term's count: the folded count plus what was added and removed since
_COUNTS = """
SELECT term, sum(doc) AS n FROM (
    SELECT term, doc FROM fts_df WHERE {where}
    UNION ALL SELECT term, doc FROM fts_df_added_v WHERE {where}
    UNION ALL SELECT term, -doc FROM fts_df_removed_v WHERE {where}
) GROUP BY term"""


def migrate_term_counts(conn, progress=None) -> None:
    """Schema 9 -> 10: the tables, the triggers that keep them, and every term's count now."""
    for statement in TABLES:
        conn.execute(statement)
    for trigger in ("chunks_ai", "chunks_ad", "chunks_au"):
        conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    for trigger in TRIGGERS:
        conn.execute(trigger)
    recount(conn)  # no progress to tell: one pass over the vocabulary


def recount(conn) -> None:
    """Every term's count from the index's own vocabulary (one read of every doclist)."""
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.pms_df_vocab USING fts5vocab(main, chunks_fts, 'row')")
    conn.execute("DELETE FROM fts_df")
    conn.execute("INSERT INTO fts_df(term, doc) SELECT term, doc FROM temp.pms_df_vocab")
    for name in ("fts_df_added", "fts_df_removed"):
        conn.execute(f"INSERT INTO {name}({name}) VALUES ('delete-all')")


def fold(conn) -> bool:
    """Move the added and removed counts into ``fts_df`` (inside the writer's transaction).
    False on an index without the tables (before its upgrade)."""
    try:
        added = conn.execute("SELECT term, doc FROM fts_df_added_v").fetchall()
        removed = conn.execute("SELECT term, doc FROM fts_df_removed_v").fetchall()
    except Exception as exc:  # noqa: BLE001 - an older schema: nothing to fold
        if "no such table" in str(exc):
            return False
        raise
    if not added and not removed:
        return True
    conn.executemany("INSERT INTO fts_df(term, doc) VALUES (?, ?) "
                     "ON CONFLICT(term) DO UPDATE SET doc = doc + excluded.doc", added)
    conn.executemany("UPDATE fts_df SET doc = doc - ? WHERE term = ?", [(n, t) for t, n in removed])
    if removed:
        conn.execute("DELETE FROM fts_df WHERE doc <= 0")
    for name in ("fts_df_added", "fts_df_removed"):
        conn.execute(f"INSERT INTO {name}({name}) VALUES ('delete-all')")
    return True


def document_frequencies(conn, terms: Sequence[str]) -> dict[str, int]:
    """Rows holding each term (0 for unknown terms)."""
    found: dict[str, int] = {}
    for start in range(0, len(terms), 200):
        part = list(terms[start : start + 200])
        found.update(dict.fromkeys(part, 0))
        marks = ",".join("?" * len(part))
        found.update(conn.execute(_COUNTS.format(where=f"term IN ({marks})"), part * 3))
    return found


def prefix_frequency(conn, prefix: str) -> tuple[int, int]:
    """(largest, summed) row counts of the terms starting with ``prefix``."""
    upper = prefix[:-1] + chr(ord(prefix[-1]) + 1)
    top, total = conn.execute(
        f"SELECT max(n), sum(n) FROM ({_COUNTS.format(where='term >= ? AND term < ?')})",
        (prefix, upper) * 3,
    ).fetchone()
    return top or 0, total or 0
