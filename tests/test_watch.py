"""Watch mode: notes written, edited, renamed and deleted are indexed with no command; editor
swap files are ignored; the size+mtime scan is the fallback."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from tests.kb_helpers import write

from pms_tui.core.indexing.watch import Folder, classify


def test_classify_groups_notes_and_ignores_editor_files(tmp_path):
    root = tmp_path / "notes"
    (root / "sub").mkdir(parents=True)
    folders = [Folder("notes", root)]
    events = [
        (1, str(root / "a.md")), (2, str(root / "sub" / "b.markdown")),
        (1, str(root / ".a.md.swp")), (1, str(root / "a.md~")), (1, str(root / "4913")),
        (1, str(root / ".git" / "index")), (1, str(tmp_path / "elsewhere.md")),
    ]
    assert classify(folders, events) == {"notes": {"a.md", "sub/b.markdown"}}
    assert classify(folders, [(1, str(root / "sub"))]) == {"notes": None}  # a folder: scan it


def wait_until(check, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.1)
    return False


def _found(kb, query: str) -> list[str]:
    return [h.relpath for h in kb.search(query, k=5, mode="bm25")]


def _watching(kb, **options):
    stop = threading.Event()
    modes: list[str] = []
    thread = threading.Thread(target=kb.index.watch, args=(stop,), kwargs={"on_mode": modes.append, **options},
                              daemon=True)
    thread.start()
    assert wait_until(lambda: modes)
    time.sleep(0.3)
    return stop, thread, modes


def test_watch_indexes_new_edited_renamed_and_deleted_notes(kb, notes_dir):
    kb.collections.create(notes_dir, name="notes")
    kb.sync()
    stop, thread, modes = _watching(kb)
    try:
        assert modes[0] == "watching"
        write(notes_dir, "new/zebra.md", "# Zebra\n\nA quokka met a zebra.\n")
        write(notes_dir, ".zebra.md.swp", "quokka swap junk")
        assert wait_until(lambda: _found(kb, "quokka") == ["new/zebra.md"])
        write(notes_dir, "new/zebra.md", "# Zebra\n\nA narwhal met a zebra.\n")
        assert wait_until(lambda: _found(kb, "narwhal") == ["new/zebra.md"] and not _found(kb, "quokka"))
        (notes_dir / "new" / "zebra.md").rename(notes_dir / "new" / "okapi.md")
        assert wait_until(lambda: _found(kb, "narwhal") == ["new/okapi.md"])
        (notes_dir / "new" / "okapi.md").unlink()
        assert wait_until(lambda: not _found(kb, "narwhal"))
        assert wait_until(lambda: kb.index.vectors_pending == 0)  # the vectors follow too
    finally:
        stop.set()
        thread.join(timeout=30)
    assert not thread.is_alive()


def test_without_kernel_events_the_scan_is_the_fallback(kb, notes_dir):
    kb.collections.create(notes_dir, name="notes")
    kb.sync()
    stop, thread, modes = _watching(kb, force_polling=True, poll_seconds=1.0)
    try:
        assert modes[0].startswith("polling every")
        write(notes_dir, "polled.md", "# Polled\n\nA capybara in the scan.\n")
        assert wait_until(lambda: _found(kb, "capybara") == ["polled.md"])
    finally:
        stop.set()
        thread.join(timeout=30)
