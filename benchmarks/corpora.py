"""Where the shared corpora are read from, in place: ``PMS_TUI_CORPORA`` when set, else
``../shared/corpora`` beside the repository. Each runner says it skipped when a corpus is absent."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPORA = Path(os.environ.get("PMS_TUI_CORPORA") or REPO.parent / "shared" / "corpora")
MARKDOWN = CORPORA / "markdown"
