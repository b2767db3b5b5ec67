"""Find damage in the index file, and rebuild what can be rebuilt without re-embedding.

``diagnose`` runs SQLite's ``quick_check``, FTS5's ``integrity-check`` and compares the vec0
table with the ``vectors`` table (and the chunks that point at them). ``repair`` then:

- a damaged file (quick_check fails): moves it aside as ``index.sqlite.damaged-<time>``,
  starts a new file and copies into it every collection and every vector that can still be
  read, so the following sync rebuilds documents and chunks from the notes and embeds only
  the texts whose vectors were lost;
- a damaged full-text index: rebuilds it from the chunks table (``'rebuild'``);
- vectors missing from vec0: forgets them and the notes that used them (the sync re-reads
  those notes and embeds what is missing); vec0 rows and vectors no chunk uses are dropped.

The notes themselves are never touched: everything here is rebuilt from them.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import sqlean as sqlite3

from .connection import connect
from .meta import bump_generation, record_model, recorded_model
from .schema import ensure_schema, ensure_vector_table
from .term_counts import recount as recount_terms

SALVAGE_STEP = 2000


@dataclass
class Check:
    label: str
    ok: bool
    detail: str


def _one(conn, sql: str, default=None):
    row = conn.execute(sql).fetchone()
    return row[0] if row else default


def _has_table(conn, name: str) -> bool:
    return _one(conn, f"SELECT count(*) FROM sqlite_master WHERE name = '{name}'", 0) > 0


def diagnose(conn) -> list[Check]:
    """The health of an open index, one Check per part; a damaged part never raises."""
    checks: list[Check] = []
    try:
        found = [r[0] for r in conn.execute("PRAGMA quick_check(5)").fetchall()]
        checks.append(Check("file", found == ["ok"], "SQLite quick_check ok" if found == ["ok"] else "; ".join(found)))
    except sqlite3.DatabaseError as exc:
        checks.append(Check("file", False, f"SQLite quick_check failed: {exc}"))
    try:
        conn.execute("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)")
        checks.append(Check("full-text", True, "FTS5 integrity-check ok"))
    except sqlite3.DatabaseError as exc:
        if "readonly" in str(exc):
            checks.append(Check("full-text", True, "not checked: the index is read-only"))
        else:
            checks.append(Check("full-text", False, f"FTS5 integrity-check failed: {exc}"))
    try:
        # queued texts have a row in ``vectors`` but none in vec_vectors until they are embedded
        vectors = _one(conn, "SELECT count(*) FROM vectors WHERE pending_text IS NULL", 0)
        pending = _one(conn, "SELECT count(*) FROM vectors WHERE pending_text IS NOT NULL", 0)
        rows = _one(conn, "SELECT count(*) FROM vec_vectors", 0) if _has_table(conn, "vec_vectors") else 0
        missing = _one(conn, "SELECT count(*) FROM chunks WHERE vector_id NOT IN (SELECT id FROM vectors)", 0)
        unused = _one(conn, "SELECT count(*) FROM vectors WHERE id NOT IN (SELECT vector_id FROM chunks)", 0)
        problems = []
        if rows != vectors:
            problems.append(f"{vectors} vectors but {rows} rows in the vector table")
        if missing:
            problems.append(f"{missing} chunks point at missing vectors")
        if unused:
            problems.append(f"{unused} vectors no chunk uses")
        waiting = f", {pending} waiting to be embedded" if pending else ""
        checks.append(Check("vectors", not problems, "; ".join(problems) or f"{vectors} vectors, all in step{waiting}"))
    except sqlite3.DatabaseError as exc:
        checks.append(Check("vectors", False, f"cannot be read: {exc}"))
    return checks


def file_is_damaged(conn) -> bool:
    try:
        return [r[0] for r in conn.execute("PRAGMA quick_check(1)").fetchall()] != ["ok"]
    except sqlite3.DatabaseError:
        return True


def file_needs_salvage(path: Path) -> bool:
    """True when the file cannot be opened as an index or fails quick_check."""
    try:
        conn = connect(path, read_only=True)
    except Exception:  # noqa: BLE001
        return True
    try:
        return file_is_damaged(conn)
    finally:
        conn.close()


def repair_in_place(conn) -> list[str]:
    """Rebuild the full-text index and bring vectors and vec0 in step; the steps done."""
    done: list[str] = []
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild')")
        done.append("rebuilt the full-text index")
        if _has_table(conn, "vec_vectors"):
            stray = conn.execute(
                "DELETE FROM vec_vectors WHERE rowid NOT IN (SELECT id FROM vectors)").rowcount
            lost = [r[0] for r in conn.execute(
                "SELECT id FROM vectors WHERE id NOT IN (SELECT rowid FROM vec_vectors)")]
            notes = 0
            for start in range(0, len(lost), 500):
                part = lost[start:start + 500]
                marks = ",".join("?" * len(part))
                notes += conn.execute(
                    f"DELETE FROM documents WHERE id IN (SELECT document_id FROM chunks WHERE vector_id IN ({marks}))",
                    part).rowcount
                conn.execute(f"DELETE FROM vectors WHERE id IN ({marks})", part)
            if stray or lost:
                done.append(f"dropped {stray} stray vector rows and {len(lost)} lost vectors "
                            f"({notes} notes will be indexed again)")
        broken = conn.execute(
            "DELETE FROM documents WHERE id IN (SELECT document_id FROM chunks "
            "WHERE vector_id NOT IN (SELECT id FROM vectors))").rowcount
        if broken:
            done.append(f"forgot {broken} notes whose chunks lost their vectors")
        unused = [r[0] for r in conn.execute(
            "SELECT id FROM vectors WHERE id NOT IN (SELECT vector_id FROM chunks)")]
        for start in range(0, len(unused), 500):
            part = unused[start:start + 500]
            marks = ",".join("?" * len(part))
            if _has_table(conn, "vec_vectors"):
                conn.execute(f"DELETE FROM vec_vectors WHERE rowid IN ({marks})", part)
            conn.execute(f"DELETE FROM vectors WHERE id IN ({marks})", part)
        if unused:
            done.append(f"dropped {len(unused)} vectors no chunk used")
        if _has_table(conn, "fts_df"):  # the terms' counts from the rebuilt index, whatever they held
            recount_terms(conn)
        bump_generation(conn)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return done


def _salvage_rows(old, sql_range: str, last_id: int):
    """Rows of ``sql_range`` (with ? ? for an id range) readable from a damaged file."""
    start = 0
    while start <= last_id:
        try:
            yield from old.execute(sql_range, (start, start + SALVAGE_STEP)).fetchall()
        except sqlite3.DatabaseError:
            for i in range(start, start + SALVAGE_STEP):
                try:
                    yield from old.execute(sql_range, (i, i + 1)).fetchall()
                except sqlite3.DatabaseError:
                    continue
        start += SALVAGE_STEP


def move_aside(path: Path) -> Path:
    """Move a damaged index (and its WAL files) aside; the new name."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.damaged-{stamp}")
    shutil.move(str(path), str(target))
    for suffix in ("-wal", "-shm"):
        extra = path.with_name(path.name + suffix)
        if extra.exists():
            shutil.move(str(extra), str(target) + suffix)
    return target


def salvage_into(old, new) -> tuple[int, int]:
    """Copy meta, collections and readable vectors from ``old`` (damaged) into ``new`` (fresh,
    with its schema and vec table); (collections, vectors) copied."""
    collections = 0
    try:
        rows = old.execute("SELECT id, name, path, description, created_at FROM collections").fetchall()
    except sqlite3.DatabaseError:
        rows = []
    new.execute("BEGIN IMMEDIATE")
    try:
        for row in rows:
            new.execute("INSERT OR IGNORE INTO collections(id, name, path, description, created_at) "
                        "VALUES (?, ?, ?, ?, ?)", row)
            collections += 1
        vectors = 0
        try:
            last = old.execute("SELECT max(id) FROM vectors").fetchone()[0] or 0
        except sqlite3.DatabaseError:
            last = 0
        for vid, digest, blob in _salvage_rows(
            old, "SELECT v.id, v.hash, e.embedding FROM vectors v JOIN vec_vectors e ON e.rowid = v.id "
                 "WHERE v.id >= ? AND v.id < ?", last):
            if blob is None or digest is None:
                continue
            try:
                if isinstance(digest, bytes) and len(digest) == 32:  # a key from before schema 9
                    digest = digest[:16]
                new.execute("INSERT INTO vectors(id, hash) VALUES (?, ?)", (vid, digest))
                new.execute("INSERT INTO vec_vectors(rowid, embedding) VALUES (?, ?)", (vid, blob))
                vectors += 1
            except sqlite3.DatabaseError:
                continue
        new.execute("COMMIT")
    except BaseException:
        new.execute("ROLLBACK")
        raise
    return collections, vectors


def salvage_file(path: Path) -> list[str]:
    """Replace a damaged index file by a new one holding what could be read from it (its
    collections, model and vectors); the steps done. Call with the writer lock held."""
    old = None
    model, dim = None, 0
    try:
        old = connect(path, read_only=True)
        model, dim = recorded_model(old)
    except Exception:  # noqa: BLE001 - too damaged to say: start empty
        pass
    if old is not None:
        old.close()
    aside = move_aside(path)
    steps = [f"moved the damaged index aside to {aside.name}"]
    new = connect(path)
    try:
        ensure_schema(new)
        if model and dim:
            new.execute("BEGIN IMMEDIATE")
            record_model(new, model, dim)
            ensure_vector_table(new, dim)
            new.execute("COMMIT")
        try:
            old = connect(aside, read_only=True)
        except Exception:  # noqa: BLE001
            old = None
        if old is not None and model and dim:
            collections, vectors = salvage_into(old, new)
            steps.append(f"kept {collections} collections and {vectors} vectors that could be read")
        elif old is not None:
            collections, _ = salvage_into(old, new)
            steps.append(f"kept {collections} collections (no vectors could be read)")
        if old is not None:
            old.close()
    finally:
        new.close()
    return steps
