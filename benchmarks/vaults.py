"""Test vaults for the benchmark, built under /tmp from the shared Markdown corpora.

The corpora are read in place and never copied into the repository. Vaults that need
files of their own (copies with distinct titles, a vault whose note we edit) are written
under a cache folder in /tmp.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from pathlib import Path

from corpora import MARKDOWN

from pms_tui.core.indexing.chunk import parse_note
from pms_tui.core.indexing.notes import walk_notes

CORPORA = MARKDOWN
TIL, TLDR, PS = "jbranchaud-til", "tldr-pages-en", "powershell-docs"
CACHE = Path(os.environ.get("PMS_BENCH_CACHE", "/tmp/pms-bench-cache"))
VAULT_VERSION = "1"
_TITLE_LINE = re.compile(r"^title\s*:.*$", re.MULTILINE | re.IGNORECASE)


def corpus(name: str) -> Path | None:
    path = CORPORA / name
    return path if path.is_dir() else None


def available() -> dict[str, Path]:
    return {n: p for n in (TIL, TLDR, PS) if (p := corpus(n))}


def sorted_notes(folder: Path) -> list[str]:
    return sorted(rel for rel, _ in walk_notes(folder))


def _tagged(text: str, title: str, tag: str) -> str:
    """The note with its title made unique (``title [tag]``) so that no two files of the big
    vault share an embed_text (copies would otherwise share vectors, content-addressed)."""
    line = f"title: {json.dumps(f'{title} [{tag}]', ensure_ascii=False)}"
    if text.startswith("---\n"):
        close = text.find("\n---", 4)
        if close > 0:
            head = text[: close + 1]
            if _TITLE_LINE.search(head):
                head = _TITLE_LINE.sub(lambda m: line, head, count=1)
            else:
                head = head + line + "\n"
            return head + text[close + 1 :]
    return f"---\n{line}\n---\n{text}"


def build_big_vault(target_chunks: int = 100_000, log=print) -> tuple[Path, list[tuple[str, Path]], int]:
    """Copies of the three corpora with per-file unique titles, until ``target_chunks``.

    Returns (vault folder, [(collection name, folder)], chunk count). Cached in /tmp.
    """
    root = CACHE / f"vault{target_chunks}"
    manifest = root / "manifest.json"
    if manifest.exists():
        data = json.loads(manifest.read_text())
        if data.get("version") == VAULT_VERSION:
            return root, [(n, Path(p)) for n, p in data["collections"]], data["chunks"]
    shutil.rmtree(root, ignore_errors=True)
    sources = available()
    if not sources:
        raise FileNotFoundError("no corpora")
    total = 0
    collections: list[tuple[str, Path]] = []
    copy = 0
    while total < target_chunks:
        copy += 1
        for name, src in sources.items():
            if total >= target_chunks:
                break
            dest = root / f"copy{copy}-{name}"
            collections.append((f"copy{copy}-{name}", dest))
            for rel in sorted_notes(src):
                if total >= target_chunks:
                    break
                raw = (src / rel).read_bytes()
                try:
                    text = raw.decode("utf-8-sig").replace("\r\n", "\n")
                except UnicodeDecodeError:
                    continue
                note = parse_note(text, Path(rel).name)
                tag = hashlib.sha1(f"{copy}/{name}/{rel}".encode()).hexdigest()[:6]
                out = dest / rel
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_text(_tagged(text, note.title, tag), encoding="utf-8")
                total += len(note.chunks)
        log(f"  big vault: copy {copy} written, {total} chunks so far")
    manifest.write_text(json.dumps({
        "version": VAULT_VERSION, "chunks": total,
        "collections": [(n, str(p)) for n, p in collections],
    }))
    return root, collections, total


def build_sync_vault(target_files: int = 10_000) -> tuple[Path, list[tuple[str, Path]]]:
    """A fresh copy (in /tmp) of tldr-pages-en + jbranchaud-til + powershell-docs files, up to
    ``target_files`` notes, that the benchmark may edit."""
    root = CACHE / f"syncvault{target_files}"
    shutil.rmtree(root, ignore_errors=True)
    count = 0
    collections = []
    for name in (TLDR, TIL, PS):
        src = corpus(name)
        if src is None:
            continue
        dest = root / name
        collections.append((name, dest))
        for rel in sorted_notes(src):
            if count >= target_files:
                break
            out = dest / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src / rel, out)
            count += 1
    return root, collections
