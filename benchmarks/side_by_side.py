"""The 100,000-chunk part of benchmarks/run.py, side by side with an earlier commit in one run.

The earlier commit (default 38ea43d, the baseline the speed targets are held against) is
checked out in a temporary git worktree under /tmp and runs its own run.py workers through
``tree_worker.py`` with the same interpreter and packages; this tree runs through the same
shim, so both pay the same. An older commit cannot be trusted to read today's index (and
today's code may migrate an older one on opening), so each builds its own index from the same
generated vault. The query latency is measured in rounds that alternate the two commits
(this, base, base, this, ...), one repetition of the query list per round, so that a busy
spell of the machine hits both alike; the raw samples of all rounds are pooled and the
percentiles are taken of the pool.
"""

from __future__ import annotations

import copy
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
TIMEOUT = {"build": 1200, "dbsize": 300, "queries": 900}


def log(*parts) -> None:
    print(*parts, file=sys.stderr, flush=True)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)] if ordered else float("nan")


def short_sha(commit: str) -> str:
    return subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", commit], check=True,
                          capture_output=True, text=True).stdout.strip()


def base_tree(commit: str) -> Path:
    """A detached worktree of ``commit`` under /tmp (made once, reused)."""
    sha = short_sha(commit)
    path = Path(f"/tmp/pms-bench-base-{sha}")
    if not (path / "benchmarks" / "run.py").is_file():
        subprocess.run(["git", "-C", str(REPO), "worktree", "prune"], check=False, capture_output=True)
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "--force", str(path), sha],
                       check=True, capture_output=True)
    return path


def preflight(tree: Path) -> str | None:
    """None when ``tree``'s engine imports with this interpreter, else one sentence saying why not
    (38ea43d needs tomli-w, which today's code no longer does: ``pip install tomli-w``)."""
    proc = subprocess.run([sys.executable, "-c", "import pms_tui.core.kb, pms_tui.core.config"], cwd=str(tree),
                          env=dict(os.environ, PYTHONPATH=str(tree)), capture_output=True, text=True)
    if proc.returncode == 0:
        return None
    last = (proc.stderr.strip().splitlines() or ["unknown error"])[-1]
    hint = ""
    if "No module named" in last:
        hint = f" (pip install {last.split(chr(39))[1].split('.')[0].replace('_', '-')} into this environment)"
    return f"the code of {tree.name} does not import here: {last}{hint}"


def tree_worker(tree: Path, name: str, **kwargs) -> dict:
    """One worker of ``tree``'s run.py in a fresh process (raw samples, see tree_worker.py)."""
    from workers import run_json

    result = run_json([sys.executable, str(HERE / "tree_worker.py"), str(tree), name, json.dumps(kwargs)],
                      label=f"{name} of {tree}", timeout=TIMEOUT.get(name, 1800), cwd=str(tree),
                      env=dict(os.environ, PYTHONPATH=str(tree)))
    load = result["load_at_start"]
    log(f"  [{name} {tree.name}] done in {result['wall_seconds']:.0f}s "
        f"(load {load:.2f} -> {result['load_at_end']:.2f})")
    return result


def _is_raw(x) -> bool:
    return isinstance(x, dict) and set(x) == {"raw", "q"}


def _pool_into(acc, new) -> None:
    """Add ``new``'s raw samples to ``acc``'s (same shape); other values keep ``acc``'s."""
    if isinstance(acc, dict) and isinstance(new, dict):
        for key, value in new.items():
            if key not in acc:
                acc[key] = copy.deepcopy(value)
            elif _is_raw(acc[key]) and _is_raw(value):
                acc[key]["raw"].extend(value["raw"])
            else:
                _pool_into(acc[key], value)


def _resolve(x):
    """Replace every raw-sample marker by the percentile of its samples."""
    if _is_raw(x):
        return pct(x["raw"], x["q"])
    if isinstance(x, dict):
        return {k: _resolve(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_resolve(v) for v in x]
    return x


def _unshare(x):
    """p50 and p95 of one lane are one list in the worker; JSON keeps them as two copies, but
    pooling must extend each exactly once: make every raw list its own object."""
    if _is_raw(x):
        return {"raw": list(x["raw"]), "q": x["q"]}
    if isinstance(x, dict):
        return {k: _unshare(v) for k, v in x.items()}
    return x


def pool(rounds: list[dict]) -> dict:
    acc = _unshare(rounds[0])
    for r in rounds[1:]:
        _pool_into(acc, _unshare(r))
    # a lane's max is over all rounds; peak RSS is the highest of any round's process
    for lane, d in acc.get("lanes", {}).items():
        d["max"] = max(r["lanes"][lane]["max"] for r in rounds)
    acc["maxrss_mb"] = max(r["maxrss_mb"] for r in rounds)
    acc["reps"] = sum(r["reps"] for r in rounds)
    acc["rounds"] = len(rounds)
    acc["load_at_start"] = rounds[0]["load_at_start"]
    acc["load_at_end"] = rounds[-1]["load_at_end"]
    for key in ("open_ms", "model_load_ms", "mirror_load_ms"):
        if all(key in r for r in rounds):
            acc[key] = sorted(r[key] for r in rounds)[len(rounds) // 2]
    return _resolve(acc)


def measure(cols: list, homes: dict[str, Path], trees: dict[str, Path], reps: int, cached: dict[str, bool],
            this_extra: dict, before_round=lambda: None) -> dict[str, dict]:
    """Build (unless cached), size and time both trees; ``this_extra`` goes to this tree's queries;
    ``before_round()`` runs before each timed round (run.py's --wait-quiet)."""
    out: dict[str, dict] = {label: {"tree": str(tree)} for label, tree in trees.items()}
    for label, tree in trees.items():
        if cached[label]:
            log(f"100k tier ({label}): reusing the cached index {homes[label]}")
        else:
            log(f"100k tier ({label}): indexing (random stored vectors)")
            out[label]["build"] = tree_worker(tree, "build", home=str(homes[label]), collections=cols)
        # sized by this tree's dbsize worker (it only reads the file), so both estimates use one formula
        out[label]["db"] = _resolve(tree_worker(next(iter(trees.values())), "dbsize", home=str(homes[label])))
    labels = list(trees)
    rounds: dict[str, list[dict]] = {label: [] for label in labels}
    for i in range(reps):
        order = labels if i % 2 == 0 else labels[::-1]
        for label in order:
            before_round()
            log(f"100k tier: query latency, round {i + 1}/{reps} ({label})")
            extra = this_extra if label == labels[0] else {}
            rounds[label].append(tree_worker(trees[label], "queries", home=str(homes[label]), reps=1,
                                             compare_plain=(i == 0), vec0_reference=(i == 0), **extra))
    for label in labels:
        out[label]["q"] = pool(rounds[label])
    return out
