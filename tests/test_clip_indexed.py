"""Clipping into a collection: the note is written, indexed at once, and found by search."""

from __future__ import annotations

import json

import yaml

from pms_tui.core.indexing.frontmatter import split_frontmatter
from tests.test_cli import run
from tests.webserver import web  # noqa: F401  (fixture)


def snapshot(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_cli_clip_writes_a_clean_note_that_search_finds(tmp_path, web):  # noqa: F811
    home, folder = tmp_path / "home", tmp_path / "clips"
    folder.mkdir()
    run(home, "add", str(folder), "--name", "notes")
    url = web.url("/2024/03/lazy-pipelines/")
    out = json.loads(run(home, "clip", url, "-c", "notes", "--json").stdout)
    assert out["status"] == "created"
    path = tmp_path / "clips" / out["path"]  # inside the collection; its id and URI name it
    assert out["id"] == f"notes/{out['path']}" and out["file"] == str(path)
    text = path.read_text(encoding="utf-8")
    meta, body, _ = split_frontmatter(text)
    assert meta["url"] == url and meta["title"] == out["title"]
    assert "```python\n" in body and "````js\nconst FENCE = \"```\";" in body
    assert "We use cookies" not in body
    assert yaml.safe_load(text.split("---")[1])["sha256"] == meta["sha256"]

    hits = json.loads(run(home, "search", "lazy pipelines read lines generator", "--json", "-k", "3").stdout)["hits"]
    assert hits and hits[0]["file"] == str(path)
    assert "Sync status: +0 new, ~0 modified, -0 deleted" in run(home, "status").stdout

    again = run(home, "clip", url, "-c", "notes", check=False)
    assert again.returncode == 3 and "already saved" in again.stderr


def test_cli_clip_failures_write_nothing(tmp_path, web):  # noqa: F811
    home, folder = tmp_path / "home", tmp_path / "clips"
    folder.mkdir()
    (folder / "existing.md").write_text("# Mine\n\nuntouched\n")
    run(home, "add", str(folder), "--name", "notes")
    before = snapshot(folder)
    for route in ("/missing", "/broken", "/paper.pdf", "/app"):
        proc = run(home, "clip", web.url(route), "-c", "notes", check=False)
        assert proc.returncode == 1
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    for bad in ("javascript:alert(1)", "file:///etc/passwd", "not a url at all", "http://127.0.0.1:1/refused"):
        proc = run(home, "clip", bad, "-c", "notes", check=False)
        assert proc.returncode == 1 and proc.stderr.startswith("pms-tui: "), proc.stderr
    assert snapshot(folder) == before


def test_api_clip_into_collection(kb, tmp_path, web):  # noqa: F811
    folder = tmp_path / "clips"
    folder.mkdir()
    col = kb.collections.create(folder, name="web")
    result = kb.clipper.clip(web.url("/docs/config.html"), col)
    assert result.status == "created" and result.path.parent == folder
    assert kb.search(result.title, k=1)[0].path == str(result.path)
