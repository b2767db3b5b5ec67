#!/usr/bin/env python
"""A one-shot `pms-tui search`, end to end (process start to printed results), side by side
with an earlier commit in one run.

    python benchmarks/oneshot.py                    # 15 runs per commit and mode, tldr-pages-en
    python benchmarks/oneshot.py --runs 31 --base d1bc6d4 --corpus jbranchaud-til
    python benchmarks/oneshot.py --base d1bc6d4,ccbe762 --priority -20   # two earlier commits

Each earlier commit is checked out in a temporary git worktree and run with PYTHONPATH pointing
at it (the same interpreter and packages); this tree runs as installed. Both search one index,
built once with this tree: the notes of a shared corpus (read in place) with random unit
vectors (``RandomUnitEmbedder``: the scan costs the same whatever the vectors hold), so the
query is embedded by the real offline model and every process pays what a user's would.
Runs alternate between the commits and each run uses a different query; the mode ``again``
asks the run's hybrid query a second time (since ccbe762 the query vectors are kept
in the home, so it needs no model; d1bc6d4 has no such cache; they are cleared before each
``hybrid`` search, so that one always embeds its query). Prints p50/p95 wall and CPU seconds
per commit and mode beside the target and this tree's previously published figure (wall
p50, docs/benchmarks.md), and the load average.
"""

from __future__ import annotations

import argparse
import math
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

from corpora import MARKDOWN  # noqa: E402

BASE_COMMIT = "d1bc6d4,ccbe762"  # the baseline of the one-shot targets; the last commit before the lean query model
TARGETS = {"hybrid": 0.8, "again": 0.8, "bm25": 0.3, "served": 0.8}  # wall p50 on a quiet machine
# This tree's wall p50 as last published (docs/benchmarks.md, load ~5.5, nice -20, commit ccbe762)
PREVIOUS = {"hybrid": 1.742, "again": 0.507, "bm25": 0.276}
QUERIES = [
    "extract a tar archive", "undo the last commit", "list open network ports", "resize an image",
    "find files by name", "compress a folder", "show disk usage", "kill a process by name",
    "convert video to gif", "rename many files", "git stash changes", "check ssl certificate",
    "download a file with curl", "count lines in a file", "search text in files recursively",
    "schedule a cron job", "create a python virtual environment", "sort a csv by column",
    "mount a usb drive", "generate an ssh key", "merge pdf files", "watch a log file",
    "change file permissions", "record the terminal", "replace text with sed",
    "set an environment variable", "start a web server", "monitor cpu usage", "zip with password",
    "compare two directories", "print the calendar",
]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)] if ordered else float("nan")


def loadavg() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def build_home(corpus: Path, home: Path) -> None:
    """The index both commits search: real text, random vectors, the default model's name."""
    from fake_embed import RandomUnitEmbedder

    from pms_tui.core.kb import KnowledgeBase

    if (home / "index.sqlite").exists():
        return
    print(f"building the index of {corpus} in {home} (once) ...", file=sys.stderr, flush=True)
    try:
        kb = KnowledgeBase(home=home, embedder=RandomUnitEmbedder.posing_as_default())
    except TypeError:  # an earlier commit (d1bc6d4): the embedder is swapped after opening
        kb = KnowledgeBase(home=home)
        kb.embedder = RandomUnitEmbedder.posing_as_default()
    with kb:
        kb.collections.create(corpus, name=corpus.name)
        report = kb.sync()
        print(f"  {report.summary}", file=sys.stderr)


def build_home_with(tree: Path, corpus: Path, home: Path) -> None:
    """The same index built by an earlier commit's code (its own schema: a commit may not read
    a newer one), in a process whose engine is that commit's."""
    if (home / "index.sqlite").exists():
        return
    script = ("import sys; from pathlib import Path; sys.path.insert(0, sys.argv[2]); import oneshot; "
              "sys.path[:0] = [sys.argv[1], sys.argv[1] + '/benchmarks']; oneshot.build_home(Path(sys.argv[3]), Path(sys.argv[4]))")
    subprocess.run([sys.executable, "-c", script, str(tree), str(HERE), str(corpus), str(home)], check=True,
                   cwd="/tmp", env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})


def base_tree(commit: str) -> Path:
    sha = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", commit], check=True,
                         capture_output=True, text=True).stdout.strip()
    path = Path(f"/tmp/pms-oneshot-base-{sha}")
    if not (path / "pms_tui").is_dir():
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(path), sha], check=True,
                       capture_output=True)
    return path


def _schema(tree: Path) -> str:
    """The line of the tree's store that names its schema version (what a commit can read)."""
    text = (tree / "pms_tui" / "core" / "store" / "schema.py").read_text()
    return next((line for line in text.splitlines() if line.startswith("SCHEMA_VERSION")), "")


PRIORITY = 0  # --priority: a nice value for the searches (negative needs root)


def _priority() -> None:
    if PRIORITY:
        try:
            os.setpriority(os.PRIO_PROCESS, 0, PRIORITY)
        except OSError:
            pass


def one_search(tree: Path | None, home: Path, query: str, mode: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one `pms-tui search` process."""
    env = dict(os.environ)
    env.pop("PMS_TUI_HOME", None)
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    if mode in ("hybrid", "served"):  # a new query for every commit: no vector another commit's search kept
        shutil.rmtree(home / "cache" / "query-vectors", ignore_errors=True)
    mode = "hybrid" if mode in ("again", "served") else mode
    argv = [sys.executable, "-m", "pms_tui", "--home", str(home), "search", query, "-k", "5", "--mode", mode]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, env=env, cwd="/tmp", preexec_fn=_priority)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0 or not proc.stdout.strip():
        raise SystemExit(f"search failed ({tree or 'this tree'}): {proc.stderr.decode()[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


TRACE = """
import json, os, sys, time
started = time.perf_counter()
marks = {}
def mark(name):
    marks.setdefault(name, round(time.perf_counter() - started, 3))
from pms_tui.core import query_vectors
start = query_vectors.start
def traced_start(*a):
    future = start(*a)
    mark("helper forked")
    if future is not None:
        future.add_done_callback(lambda f: mark("vector arrived"))
    return future
query_vectors.start = traced_start
from pms_tui.core.indexing import embed
take = embed.Embedder._take_expected
def traced_take(self):
    mark("search wants the vector")
    take(self)
    mark("search has the vector")
embed.Embedder._take_expected = traced_take
from pms_tui import cli
out = os.dup(1)
os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
cli.main(["--home", sys.argv[1], "search", sys.argv[2], "-k", "5"])
mark("results printed")
os.dup2(out, 1)
print(json.dumps(marks))
"""


def trace(home: Path, runs: int) -> None:
    """``--trace``: when, in a new hybrid search of this tree, the helper is forked, the search
    wants the query vector, the vector arrives and the results are printed (medians, seconds
    from the interpreter's first line of the search)."""
    import json
    import statistics

    rows = []
    for run in range(runs):
        shutil.rmtree(home / "cache" / "query-vectors", ignore_errors=True)
        proc = subprocess.run([sys.executable, "-c", TRACE, str(home), QUERIES[run % len(QUERIES)]],
                              capture_output=True, text=True, cwd="/tmp", preexec_fn=_priority)
        rows.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    print(f"trace of {runs} new hybrid searches (this tree; medians, s): load average {loadavg()}")
    for name in ("helper forked", "search wants the vector", "vector arrived", "search has the vector",
                 "results printed"):
        values = [r[name] for r in rows if name in r]
        print(f"  {name:<26} {statistics.median(values):.3f}" if values else f"  {name:<26} -")


class mcp_server:
    """``pms-tui mcp`` of ``home`` (this tree) running, its model loaded and serving query vectors."""

    def __init__(self, home: Path):
        self.home = home

    def __enter__(self):
        from pms_tui.core.query_vectors.service import socket_path

        self.proc = subprocess.Popen([sys.executable, "-m", "pms_tui", "--home", str(self.home), "mcp"],
                                     stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     cwd="/tmp")
        deadline = time.time() + 180
        while not socket_path(self.home).exists() and time.time() < deadline and self.proc.poll() is None:
            time.sleep(0.1)
        if not socket_path(self.home).exists():
            self.__exit__()
            raise SystemExit("pms-tui mcp did not start serving query vectors")
        return self

    def __exit__(self, *exc) -> None:
        self.proc.stdin.close()  # the end of its input: it leaves
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


PIECES = {
    "the interpreter starting (python -c pass)": "pass",
    "import pms_tui.cli (before the helper forks)": "import pms_tui.cli",
    "import fastembed (numpy, onnxruntime included)": "from fastembed import TextEmbedding",
    "import numpy, onnxruntime, tokenizers": "import numpy, onnxruntime, tokenizers",
    "a query vector the old way (fastembed)": "from pms_tui.core.indexing.embed import Embedder\n"
                                              "Embedder().embed_query('resize an image')",
    "a query vector the new way (query_vectors)": "from pms_tui.core.query_vectors.embedding import query_vector\n"
                                                    "query_vector('resize an image', HOME)",
}


def pieces(home: Path, runs: int) -> None:
    """``--pieces``: CPU seconds of each piece of a one-shot's work, a new process each, median."""
    import statistics

    print(f"CPU per piece, median of {runs} new processes; load average {loadavg()}")
    for name, code in PIECES.items():
        cpu = []
        for _ in range(runs):
            script = (f"import resource\nHOME = {str(home)!r}\n{code}\n"
                      "r = resource.getrusage(resource.RUSAGE_SELF); print(r.ru_utime + r.ru_stime)")
            out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd="/tmp")
            cpu.append(float(out.stdout.strip().splitlines()[-1]))
        print(f"  {name:<48} {statistics.median(cpu):.3f} s")
    print(f"load average after: {loadavg()}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="processes per commit and mode")
    parser.add_argument("--base", default=BASE_COMMIT, help="the commits to compare with, comma-separated")
    parser.add_argument("--corpus", default="tldr-pages-en",
                        help="a folder of the corpora's markdown/ (../shared/corpora, or PMS_TUI_CORPORA)")
    parser.add_argument("--modes", default="hybrid,again,bm25,served",
                        help="hybrid, again (the hybrid query again), bm25, served (a new hybrid query while "
                             "`pms-tui mcp` of the home runs: this tree only, after the others)")
    parser.add_argument("--priority", type=int, default=0,
                        help="nice value of the searches: -20 (as root) approximates a quiet machine on a "
                             "shared one (both commits alike)")
    parser.add_argument("--trace", type=int, default=0, metavar="N",
                        help="instead: the phases of N new hybrid searches of this tree")
    parser.add_argument("--pieces", type=int, default=0, metavar="N",
                        help="instead: CPU seconds of each piece of the work (imports, the query vector), N runs")
    args = parser.parse_args()
    global PRIORITY
    PRIORITY = args.priority

    corpus = MARKDOWN / args.corpus
    if not corpus.is_dir():
        print(f"skipped: the corpus {corpus} is not here", file=sys.stderr)
        return 0
    home = Path(f"/tmp/pms-oneshot-home-{args.corpus}")
    build_home(corpus, home)
    if args.trace:
        trace(home, args.trace)
        return 0
    if args.pieces:
        pieces(home, args.pieces)
        return 0
    trees: dict[str, Path | None] = {f"base {c}": base_tree(c) for c in args.base.split(",") if c}
    trees["this tree"] = None
    homes = {label: home for label in trees}
    for label, tree in trees.items():  # a commit with another schema searches its own build
        if tree is not None and _schema(tree) != _schema(REPO):
            homes[label] = home.with_name(f"{home.name}-{tree.name.rsplit('-', 1)[-1]}")
            build_home_with(tree, corpus, homes[label])
    modes = args.modes.split(",")
    for label, tree in trees.items():  # warm the page cache and the model folder once each
        for mode in ("hybrid", "bm25"):
            one_search(tree, homes[label], "warm up", mode)
    print(f"load average before: {loadavg()}")
    times: dict[tuple[str, str], list[tuple[float, float]]] = {
        (t, m): [] for t in trees for m in modes if m != "served" or t == "this tree"}
    for run in range(args.runs):
        query = QUERIES[run % len(QUERIES)]
        order = list(trees.items())
        order = order[run % len(order):] + order[:run % len(order)]  # each tree goes first in turn
        for mode in modes:
            for label, tree in order:
                if (label, mode) in times and mode != "served":
                    times[(label, mode)].append(one_search(tree, homes[label], query, mode))
    if "served" in modes:
        with mcp_server(home):
            for run in range(args.runs):
                times[("this tree", "served")].append(one_search(None, home, QUERIES[run % len(QUERIES)], "served"))
    print(f"load average after:  {loadavg()}")
    print(f"{args.runs} runs per row, {args.corpus} ({home}); each a different query; nice {args.priority}; "
          f"targets on a quiet machine: hybrid p50 <= 0.8 s, bm25 p50 <= 0.3 s")
    print(f"{'commit':<18} {'mode':<7} {'wall p50':>9} {'target':>7} {'previous':>9} {'wall p95':>9} "
          f"{'cpu p50':>8} {'cpu p95':>8}")
    for (label, mode), rows in times.items():
        walls, cpus = [w for w, _ in rows], [c for _, c in rows]
        previous = f"{PREVIOUS[mode]:.3f}s" if label == "this tree" and mode in PREVIOUS else "-"
        print(f"{label:<18} {mode:<7} {pct(walls, .5):>8.3f}s {TARGETS.get(mode, 0):>6.1f}s {previous:>9} "
              f"{pct(walls, .95):>8.3f}s {pct(cpus, .5):>7.3f}s {pct(cpus, .95):>7.3f}s")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import doc_sections

    sys.exit(doc_sections.run_main(main, "benchmarks/oneshot.py", ("--trace", "--pieces")))
