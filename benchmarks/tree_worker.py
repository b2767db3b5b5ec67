#!/usr/bin/env python
"""Run one worker of ``benchmarks/run.py`` as it is in a given source tree, with that tree's code.

    python benchmarks/tree_worker.py TREE NAME 'JSON-KWARGS'

run.py uses it for the side-by-side at 100,000 chunks: an earlier commit, checked out in a
temporary git worktree, runs *its own* run.py workers (build, dbsize, queries) with the same
interpreter and packages as this tree, so the two commits differ only in their code. The
import path holds TREE and TREE/benchmarks alone (not this tree), and ``pct`` is replaced so
that a worker returns its raw samples: run.py pools them over alternating rounds and takes
the percentiles of the pool. Prints the result as one JSON line, with the file the
``pms_tui`` package was imported from (the proof of which code ran).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def main() -> int:
    tree, name, args = Path(sys.argv[1]).resolve(), sys.argv[2], json.loads(sys.argv[3])
    here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if Path(p or os.getcwd()).resolve() not in (here, here.parent)]
    sys.path[0:0] = [str(tree / "benchmarks"), str(tree)]
    sys.argv = [str(tree / "benchmarks" / "run.py")]
    import run  # the tree's own benchmarks/run.py

    run.pct = lambda values, q: {"raw": [float(v) for v in values], "q": q}
    result = run.WORKERS[name](**args)
    import pms_tui

    result["code_from"] = str(Path(pms_tui.__file__).resolve().parent.parent)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
