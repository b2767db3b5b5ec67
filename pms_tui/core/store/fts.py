"""The full-text index ``chunks_fts`` (FTS5, BM25) and the temporary tables search uses
beside it: the index's vocabulary, a scratch table that stems query words with the index's own
tokenizer, and a small table for snippets.

Writes to the temporary tables change ``conn.total_changes``; the functions that make them
return how many, so the BM25 planner can tell its own writes from changes of the index.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import NamedTuple

from . import term_counts
from .connection import OperationalError
from .schema import FTS_TOKENIZE


class ColumnWeights(NamedTuple):
    title: float
    heading: float
    body: float


# A note filter whose passages form at most this many runs of consecutive ids is answered by
# one ranged query per run (FTS5 seeks to a rowid range, reading only the postings inside it)
MAX_RANGES = 48


def id_runs(ids: Sequence[int]) -> list[tuple[int, int]]:
    """Sorted ids as runs of consecutive values: [(first, last), ...]."""
    runs: list[tuple[int, int]] = []
    for i in sorted(ids):
        if runs and i == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], i)
        else:
            runs.append((i, i))
    return runs


class Bm25Query:
    """Ranked and counted MATCH queries over ``chunks_fts``, optionally within collections or
    within some notes (``document_ids``).

    Within notes: their passages' ids usually form a few runs (a note's passages are written
    together, and so are the notes of a folder), and FTS5 answers ``rowid BETWEEN`` by seeking,
    so each run gets its own query and the rankings are merged (scores are the index's own, so
    the merge is exact). Scattered passages are filtered during one MATCH scan instead.
    """

    def __init__(self, conn, weights: ColumnWeights, collection_ids: Sequence[int] | None = None,
                 document_ids: Sequence[int] | None = None):
        self.conn = conn
        # the fourth column, cjk (store.cjk), and the fifth, stems (store.language), are body
        # text too: they weigh as the body
        self.score = (f"bm25(chunks_fts, {float(weights.title)}, {float(weights.heading)}, "
                      f"{float(weights.body)}, {float(weights.body)}, {float(weights.body)})")
        where = ""
        self.params: list = []
        self.ranges: list[tuple[int, int]] | None = None
        if collection_ids:
            marks = ",".join("?" * len(collection_ids))
            where = (
                f" AND rowid IN (SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id"
                f" WHERE d.collection_id IN ({marks}))"
            )
            self.params = list(collection_ids)
        if document_ids is not None:
            ids = [r[0] for r in conn.execute(
                "SELECT id FROM chunks WHERE document_id IN (SELECT value FROM json_each(?))",
                (json.dumps(list(document_ids)),),
            )]
            runs = id_runs(ids)
            if len(runs) <= MAX_RANGES:
                self.ranges = runs
            else:
                # "rowid + 0": a plain rowid IN (...) would make FTS5 run the whole MATCH once
                # per allowed row; as an expression it filters the one MATCH scan instead
                where += " AND (rowid + 0) IN (SELECT value FROM json_each(?))"
                self.params.append(json.dumps(ids))
        self.where = where
        self._ranked = (f"SELECT rowid, {self.score} AS s FROM chunks_fts WHERE chunks_fts MATCH ?{where} "
                        "ORDER BY s LIMIT ?")
        self._count = f"SELECT count(*) FROM (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?{where} LIMIT ?)"
        self._ranked_in = (f"SELECT rowid, {self.score} AS s FROM chunks_fts WHERE chunks_fts MATCH ?{where} "
                           "AND rowid BETWEEN ? AND ? ORDER BY s LIMIT ?")
        self._count_in = (f"SELECT count(*) FROM (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?{where} "
                          "AND rowid BETWEEN ? AND ? LIMIT ?)")

    def ranked(self, expression: str, depth: int) -> list[tuple[int, float]]:
        """(chunk id, bm25) best first (FTS5's bm25 is lower for better)."""
        if self.ranges is None:
            rows = self.conn.execute(self._ranked, [expression, *self.params, depth])
            return [(int(r[0]), float(r[1])) for r in rows]
        found: list[tuple[int, float]] = []
        for lo, hi in self.ranges:
            rows = self.conn.execute(self._ranked_in, [expression, *self.params, lo, hi, depth])
            found += [(int(r[0]), float(r[1])) for r in rows]
        return sorted(found, key=lambda item: (item[1], item[0]))[:depth]

    def count(self, expression: str, cap: int) -> int:
        """Rows the expression matches, counted up to ``cap`` without scoring (cheap)."""
        if self.ranges is None:
            return self.conn.execute(self._count, [expression, *self.params, cap]).fetchone()[0]
        total = 0
        for lo, hi in self.ranges:
            total += self.conn.execute(self._count_in, [expression, *self.params, lo, hi, cap - total]).fetchone()[0]
            if total >= cap:
                break
        return total

    def best_among(self, expression: str, chunk_ids: Sequence[int]) -> tuple[int, float] | None:
        """The best scored of these chunks for the expression: (chunk id, bm25), or None."""
        marks = ",".join("?" * len(chunk_ids))
        row = self.conn.execute(
            f"SELECT rowid, {self.score} AS s FROM chunks_fts WHERE chunks_fts MATCH ?{self.where} "
            f"AND (rowid + 0) IN ({marks}) ORDER BY s LIMIT 1",
            [expression, *self.params, *chunk_ids],
        ).fetchone()
        return (int(row[0]), float(row[1])) if row else None

    def better_than(self, expression: str, score: float) -> int:
        """How many rows score better than ``score`` (scores every match: for explanations)."""
        if self.ranges is not None:
            return sum(self.conn.execute(
                f"SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?{self.where} AND rowid BETWEEN ? AND ? "
                f"AND {self.score} < ?", [expression, *self.params, lo, hi, score]).fetchone()[0]
                for lo, hi in self.ranges)
        return self.conn.execute(
            f"SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?{self.where} AND {self.score} < ?",
            [expression, *self.params, score],
        ).fetchone()[0]


def optimize(conn) -> None:
    """Merge the index into one segment. Call in a transaction."""
    conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('optimize')")


def checkpoint(conn) -> None:
    """Fold the write-ahead log back into the file (fails quietly while a reader holds it)."""
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except Exception:  # a reader holds the WAL: it is checkpointed later
        pass


def create_temp_tables(conn) -> None:
    """This connection's temporary tables: vocabulary, query stemming, snippets."""
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.pms_vocab USING fts5vocab(main, chunks_fts, 'row')")
    conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.pms_qtok USING fts5(t, tokenize='{FTS_TOKENIZE}')")
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.pms_qtok_v USING fts5vocab(temp, pms_qtok, 'instance')")
    conn.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.pms_snip USING fts5("
        f"title, heading, body, tokenize='{FTS_TOKENIZE}')"
    )


def stem(conn, words: Sequence[str]) -> tuple[dict[int, list[str]], int]:
    """({index of a word: FTS5's tokens of it}, changes made) using the index's tokenizer."""
    before = conn.total_changes
    conn.execute("DELETE FROM temp.pms_qtok")
    conn.executemany("INSERT INTO temp.pms_qtok(rowid, t) VALUES (?, ?)", list(enumerate(words)))
    found: dict[int, list[str]] = {}
    for doc, term in conn.execute("SELECT doc, term FROM temp.pms_qtok_v ORDER BY doc, offset"):
        found.setdefault(doc, []).append(term)
    conn.execute("DELETE FROM temp.pms_qtok")
    return found, conn.total_changes - before


def change_key(conn) -> tuple[int, int]:
    """Moves when this or another connection changes the database."""
    return conn.execute("PRAGMA data_version").fetchone()[0], conn.total_changes


def row_count(conn) -> int:
    """Rows in the full-text index: the row count FTS5 keeps in its averages record (the N of
    its own bm25 idf), one row read instead of a walk over every chunk's page. Falls back to
    counting the chunks when the record is absent (an empty index) or unreadable."""
    row = conn.execute("SELECT block FROM chunks_fts_data WHERE id = 1").fetchone()
    if row is not None and row[0]:
        try:
            return _varint(bytes(row[0]))
        except IndexError:
            pass
    return conn.execute("SELECT count(*) FROM chunks").fetchone()[0]


def _varint(data: bytes) -> int:
    """The first SQLite varint of ``data`` (big-endian 7-bit groups; a ninth byte holds 8 bits)."""
    value = 0
    for i in range(8):
        byte = data[i]
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value
    return (value << 8) | data[8]


def document_frequencies(conn, terms: Sequence[str]) -> dict[str, int]:
    """Rows holding each term (0 for unknown terms): from the counts the writer keeps
    (store.term_counts), or the vocabulary on an index without them."""
    try:
        return term_counts.document_frequencies(conn, terms)
    except OperationalError as exc:
        if "no such table" not in str(exc):
            raise
    found: dict[str, int] = {}
    for start in range(0, len(terms), 200):
        part = list(terms[start : start + 200])
        found.update(dict.fromkeys(part, 0))
        marks = ",".join("?" * len(part))
        found.update(conn.execute(f"SELECT term, doc FROM temp.pms_vocab WHERE term IN ({marks})", part))
    return found


def prefix_frequency(conn, prefix: str) -> tuple[int, int]:
    """(largest, summed) row counts of the terms starting with ``prefix``."""
    try:
        return term_counts.prefix_frequency(conn, prefix)
    except OperationalError as exc:
        if "no such table" not in str(exc):
            raise
    upper = prefix[:-1] + chr(ord(prefix[-1]) + 1)
    top, total = conn.execute(
        "SELECT max(doc), sum(doc) FROM temp.pms_vocab WHERE term >= ? AND term < ?", (prefix, upper)
    ).fetchone()
    return top or 0, total or 0


class SnippetSource(NamedTuple):
    chunk_id: int
    title: str
    heading: str
    body: str


# Characters of a body the snippet is looked for in. FTS5's snippet() grows faster than the
# text with the matches in it: a 256 KB chunk of a 20 MB code fence whose every line holds the
# query word took seconds per hit (a search of 10 such hits: minutes), its first 10,000
# characters almost nothing. Chunks of prose are far shorter; a big chunk whose word comes
# later gets the caller's own marked window (``fusion.mark_words``) instead.
SNIPPET_BODY_CHARS = 10_000


def snippets(conn, rows: Sequence[SnippetSource], match: str, marks: tuple[str, str], tokens: int):
    """({chunk id: FTS5 snippet of its body}, changes made), on a scratch table holding just
    these rows with the index's tokenizer (the snippet depends only on the row and the query,
    and a MATCH there costs microseconds instead of seeking every word in the whole index)."""
    rows = [r._replace(body=r.body[:SNIPPET_BODY_CHARS]) if len(r.body) > SNIPPET_BODY_CHARS else r for r in rows]
    before = conn.total_changes
    try:
        # cleared first as well: a search stopped during the clearing below left its rows
        conn.execute("DELETE FROM temp.pms_snip")
        conn.executemany("INSERT INTO temp.pms_snip(rowid, title, heading, body) VALUES (?, ?, ?, ?)", rows)
        found = conn.execute(
            f"SELECT rowid, snippet(pms_snip, 2, ?, ?, '…', {int(tokens)}) FROM temp.pms_snip WHERE pms_snip MATCH ?",
            [marks[0], marks[1], match],
        ).fetchall()
    except OperationalError:
        found = []
    finally:
        conn.execute("DELETE FROM temp.pms_snip")
    return {r[0]: r[1] for r in found}, conn.total_changes - before
