"""Run the real CLI as a user would, and look at what it leaves on the terminal and on disk."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

# What must never reach a terminal from note text: C0 controls but tab/newline, DEL, C1.
TERMINAL_CONTROL = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]")


def cli_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PMS_TUI_")}
    env["PMS_TUI_HOME"] = str(home)
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    env.update(extra)
    return env


def cli(home: Path, *args, check: bool = True, env: dict | None = None, timeout: float = 600,
        prefix: list[str] | None = None) -> subprocess.CompletedProcess:
    """``pms-tui ARGS`` in a subprocess: bytes out, never a traceback, one sentence on failure.
    ``prefix`` runs it under another command (see :func:`read_only_prefix`)."""
    argv = [*(prefix or []), sys.executable, "-m", "pms_tui", *args]
    proc = subprocess.run(argv, capture_output=True, timeout=timeout, env=env or cli_env(home))
    err = proc.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err, err
    assert "unexpected" not in err.lower(), err
    if check:
        assert proc.returncode == 0, err
    return proc


def text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def assert_terminal_safe(data: bytes, what: str = "output") -> None:
    found = TERMINAL_CONTROL.search(data)
    assert found is None, f"{what} holds a raw control {found.group()!r}: {data[max(0, found.start() - 40):found.end() + 40]!r}"


def tree_hashes(folder: Path) -> dict[str, str]:
    """sha256 of every file under ``folder`` (links not followed): the notes must never change."""
    out = {}
    for root, _dirs, files in os.walk(folder):
        for name in files:
            path = Path(root) / name
            if path.is_symlink() or not path.is_file():
                continue
            try:
                out[str(path.relative_to(folder))] = hashlib.sha256(path.read_bytes()).hexdigest()
            except OSError:
                out[str(path.relative_to(folder))] = "unreadable"
    return out


def index_facts(home: Path) -> dict:
    """What an index holds, comparable between runs: notes with their hashes and chunk texts,
    plus the health facts (quick_check, orphan vectors, vec0 rows vs vectors rows)."""
    import sqlean as sqlite3
    import sqlite_vec

    conn = sqlite3.connect(str(home / "index.sqlite"))
    conn.enable_load_extension(True)
    sqlite_vec.load(conn)
    try:
        docs = {
            (c, p): (sha, tuple(conn.execute(
                "SELECT body FROM chunks WHERE document_id = ? ORDER BY seq", (i,)).fetchall()))
            for i, c, p, sha in conn.execute(
                "SELECT d.id, k.name, d.path, d.sha256 FROM documents d JOIN collections k ON k.id = d.collection_id")
        }
        facts = {
            "docs": docs,
            "quick_check": conn.execute("PRAGMA quick_check").fetchone()[0],
            "orphan_vectors": conn.execute(
                "SELECT count(*) FROM vectors WHERE id NOT IN (SELECT vector_id FROM chunks)").fetchone()[0],
            "missing_vectors": conn.execute(
                "SELECT count(*) FROM chunks WHERE vector_id NOT IN (SELECT id FROM vectors)").fetchone()[0],
            "vectors": conn.execute("SELECT count(*) FROM vectors").fetchone()[0],
        }
        try:
            facts["vec_rows"] = conn.execute("SELECT count(*) FROM vec_vectors").fetchone()[0]
        except Exception:  # noqa: BLE001 - no vec table yet
            facts["vec_rows"] = 0
        try:
            conn.execute("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)")
            facts["fts"] = "ok"
        except Exception as exc:  # noqa: BLE001
            facts["fts"] = str(exc)
        return facts
    finally:
        conn.close()


def assert_healthy(home: Path) -> dict:
    facts = index_facts(home)
    assert facts["quick_check"] == "ok"
    assert facts["fts"] == "ok"
    assert facts["orphan_vectors"] == 0 and facts["missing_vectors"] == 0
    assert facts["vec_rows"] == facts["vectors"]
    return facts


def make_corpus(folder: Path, count: int, paragraphs: int = 6, tag: str = "") -> None:
    """``count`` distinct notes of a few chunks each."""
    words = ("river", "granite", "lantern", "orchid", "compiler", "harbour", "quartz", "meadow",
             "saddle", "violin", "cobalt", "thistle")
    for i in range(count):
        body = [f"# Note {tag}{i}\n"]
        for p in range(paragraphs):
            body.append(f"## Part {p}\n\n" + " ".join(
                f"{words[(i * 7 + p * 3 + j) % len(words)]}{(i + j) % 97}" for j in range(120)) + "\n")
        path = folder / f"group{i % 10}" / f"note-{tag}{i}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(body), encoding="utf-8")


def read_only_prefix(folder: Path) -> list[str] | None:
    """A command prefix that makes ``folder`` read-only for the command alone: as root (who
    may write anything), a read-only bind mount in a private mount namespace; otherwise
    None, and the caller removes the write permissions instead."""
    if os.geteuid() != 0:
        return None
    import shutil

    if shutil.which("unshare") is None:
        return None
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    if probe.returncode != 0:
        return None
    return ["unshare", "-m", "--propagation", "private", "sh", "-c",
            'mount --bind -o ro "$0" "$0" && exec "$@"', str(folder)]
