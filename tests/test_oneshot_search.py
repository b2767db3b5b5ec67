"""A one-shot `pms-tui search` pays for no more than it uses: a BM25 search imports neither the
model nor NumPy, the clipper nor the Markdown parser; a hybrid one embeds its query in a
helper process (``core.query_vectors``) while the index opens, and falls back to embedding it
itself when the helper gives nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import Future

import numpy as np

from tests.kb_helpers import REPO

PROBE = """
import json, os, sys
forks, fork = [], os.fork
os.fork = lambda: forks.append(1) or fork()
from pms_tui import cli
code = cli.main(["--home", sys.argv[1], "search", sys.argv[2], "-k", "3", "--mode", sys.argv[3], "--json"])
heavy = ["fastembed", "onnxruntime", "numpy", "trafilatura", "markdown_it", "yaml", "textual"]
print(json.dumps({"code": code, "loaded": [m for m in heavy if m in sys.modules], "helpers": len(forks)}),
      file=sys.stderr)
"""


def _search(home, query: str, mode: str, **env) -> tuple[dict, dict]:
    import os

    proc = subprocess.run([sys.executable, "-c", PROBE, str(home), query, mode], capture_output=True, text=True,
                          cwd=str(REPO), timeout=300, env={**os.environ, **env})
    probe = json.loads(proc.stderr.strip().splitlines()[-1])
    assert probe["code"] == 0, proc.stderr
    return json.loads(proc.stdout), probe


def test_a_bm25_search_imports_nothing_it_does_not_use(synced_kb):
    result, probe = _search(synced_kb.home, "soft reset", "bm25")
    assert result["hits"][0]["path"] == "git/undo-commit.md"
    assert probe["loaded"] == []


def test_a_hybrid_search_gets_its_query_vector_from_the_helper_process(synced_kb):
    result, probe = _search(synced_kb.home, "soft reset tag:git", "hybrid")
    top = result["hits"][0]
    assert top["path"] == "git/undo-commit.md" and top["vector_rank"] is not None
    assert "fastembed" not in probe["loaded"]  # the model was loaded by the helper alone

    assert probe["helpers"] == 1 and len(list((synced_kb.home / "cache" / "query-vectors").glob("*.vec"))) == 1

    again, probe = _search(synced_kb.home, "soft reset tag:git", "hybrid")  # the kept vector: no helper
    assert probe["helpers"] == 0 and "fastembed" not in probe["loaded"]
    assert again["hits"] == result["hits"]

    alone, probe = _search(synced_kb.home, "soft reset tag:git", "hybrid", PMS_TUI_QUERY_HELPER="0")
    assert "fastembed" in probe["loaded"]
    same = [(h["path"], h["start_line"], h["vector_rank"]) for h in alone["hits"]]
    assert same == [(h["path"], h["start_line"], h["vector_rank"]) for h in result["hits"]]


def test_an_expected_query_vector_is_used_and_a_failed_one_is_embedded_here():
    from pms_tui.core.indexing.embed import Embedder

    embedder = Embedder()
    given: Future = Future()
    given.set_result(("soft reset", np.full(embedder.dim, 0.5, dtype=np.float32)))
    embedder.expect_query_vector(given)
    assert float(embedder.embed_query("soft reset")[0]) == 0.5 and not embedder.ready

    failed: Future = Future()
    failed.set_exception(RuntimeError("the helper was killed"))
    embedder.expect_query_vector(failed)
    vector = embedder.embed_query("undo a commit")  # embedded here: the model loads
    assert embedder.ready and vector.shape == (embedder.dim,) and abs(float(np.linalg.norm(vector)) - 1) < 1e-3
