"""The app's start does not wait for what only later features use: importing the app (in a new
process, as ``pms-tui`` starts) leaves the embedding model's libraries, the web clipper's, the
MCP server's, watch mode's, the indexing engine and the dialogs unimported; each is imported
where it is used."""

from __future__ import annotations

import json
import subprocess
import sys

LATER = [
    "onnxruntime", "fastembed", "tokenizers", "numpy",  # the model: loaded after the first paint
    "trafilatura", "httpx", "lxml",  # the web clipper
    "mcp", "pydantic", "anyio",  # the MCP server
    "watchfiles",  # watch mode: started after the first paint
    "pms_tui.core.indexing.sync", "pms_tui.core.indexing.embed_queue",  # a sync
    "pms_tui.tui.dialogs.help", "textual.widgets._data_table",  # F1
    "pms_tui.tui.dialogs.clip", "pms_tui.tui.dialogs.add_collection", "pms_tui.tui.dialogs.name",
]


def test_importing_the_app_leaves_what_later_features_use_unimported():
    code = "import json, sys\nimport pms_tui.tui.app\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    loaded = set(json.loads(out.stdout.splitlines()[-1]))
    assert "pms_tui.tui.app" in loaded
    assert [name for name in LATER if name in loaded] == []


def test_the_command_line_reads_the_version_only_when_asked():
    # pms-tui's entry builds its parser on every start (the app's included)
    code = ("import json, sys\nfrom pms_tui.cli import build_parser\nbuild_parser().parse_args([])\n"
            "print(json.dumps(sorted(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert "importlib.metadata" not in set(json.loads(out.stdout.splitlines()[-1]))
