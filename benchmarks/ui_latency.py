"""UI latency of the terminal app, measured headless with Textual's Pilot.

    python benchmarks/ui_latency.py [HOME]
    python benchmarks/ui_latency.py follow      # following links in the reader (obsidian-help)
    python benchmarks/ui_latency.py --no-cold-start [HOME]   # keystrokes only: no new processes

prints two numbers (and a JSON line): the app's start time to the first screen, and the
median keystroke-to-results time over ~20 queries typed character by character (from the
debounce timer firing to the results list rendered). Without HOME, a throwaway home with the
bundled user guide is built and synced first.

``follow``: link chosen -> target painted in the reader (the links controller's own timing),
three links deep from obsidian-help's welcome note, then to a heading deep in its longest
note (benchmarks/links.py's follow case; target <= 100 ms).

    python benchmarks/ui_latency.py start HOME [TREE ...] [--runs 5] [--bytecode]

only the start: new processes (imports included) to the first screen, then a query pasted
into the search bar at once, to its results; with several source trees (e.g. main's checkout and this one), they take
turns, ``--runs`` each. ``--bytecode`` keeps each tree's compiled modules in a throwaway
cache, as an installed package has them (PYTHONDONTWRITEBYTECODE otherwise makes every start
compile the project's modules).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

QUERIES = [
    "undo last commit", "sourdough hydration", "asyncio timeout", "change theme", "sync status",
    "clip a web page", "keys remap", "reciprocal rank fusion", "bulk fermentation", "git reflog",
    "empty query recent", "collection filter", "editor line", "vector lane model", "branch rename",
    "config toml", "blocking code thread", "stretch and fold", "copy chunk", "search modes",
]


def _sample_home(folder: Path) -> Path:
    from pms_tui.core.kb import KnowledgeBase
    from pms_tui.tui.sample import SAMPLE_NAME, sample_dir

    with KnowledgeBase(home=folder) as kb:
        if not kb.collections.list():
            kb.collections.create(sample_dir(), name=SAMPLE_NAME)
        kb.sync()
    return folder


async def type_query(pilot, app, query: str) -> float:
    """Type ``query`` key by key into the search bar; the last key's time to results, in ms."""
    screen = app.search_screen
    count = screen.searcher.searches_shown
    for char in query:
        await pilot.press("space" if char == " " else char)
    while screen.searcher.searches_shown == count or screen.searcher.search_pending:
        await pilot.pause(0.01)
    await app.wait_for_work()
    return screen.searcher.search_latencies_ms[-1]


async def _run(home: Path, queries: list[str]) -> dict:
    from pms_tui.tui.app import PmsApp

    started = time.perf_counter()
    app = PmsApp(home=home, first_run_sample=False, read_clipboard=False)
    async with app.run_test(size=(120, 36)) as pilot:
        while app.first_screen_ms is None:
            await pilot.pause(0.01)
        first_screen_ms = (time.perf_counter() - started) * 1000
        screen = app.search_screen
        # wait for the model, as a person would after the first second
        while screen.model_state == "loading":
            await pilot.pause(0.05)
        await app.wait_for_work()
        await pilot.pause()
        per_query: list[float] = []
        for query in queries:
            await pilot.press("ctrl+u")  # clear the search bar
            await pilot.pause(0.2)
            await app.wait_for_work()
            await pilot.pause()
            per_query.append(await type_query(pilot, app, query))
            await pilot.pause()
        return {
            "first_screen_ms": round(first_screen_ms, 1),
            "first_screen_in_app_ms": round(app.first_screen_ms, 1),
            "keystroke_to_results_median_ms": round(statistics.median(per_query), 1),
            "keystroke_to_results_p90_ms": round(sorted(per_query)[int(len(per_query) * 0.9) - 1], 1),
            "queries": len(per_query),
            # searches whose query was typed over before they ended (stopped, not shown)
            "searches_stopped": screen.searcher.searches_stopped,
            "debounce_ms": app.settings.debounce_ms,
            "model": screen.model_state,
        }


async def _lag_probe(lags: list[float], stop: asyncio.Event, step: float = 0.02) -> None:
    """How late the event loop wakes a 20 ms sleep, in ms, until ``stop``: a stall of the app
    (a worker thread holding the GIL, work on the loop) shows here even between keystrokes."""
    while not stop.is_set():
        started = time.perf_counter()
        await asyncio.sleep(step)
        lags.append(max(0.0, (time.perf_counter() - started - step) * 1000))


async def _while_indexing(home: Path, queries: list[str]) -> dict:
    """Press ctrl+s (the home has a folder whose text is not indexed yet) and, while the sync's
    text phase runs, type queries; each query's time from its last key to its results shown
    (the debounce included), and the event loop's lateness meanwhile."""
    from pms_tui.tui.app import PmsApp

    app = PmsApp(home=home, first_run_sample=False, read_clipboard=False, show_timings=False)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.search_screen
        while screen.model_state == "loading":
            await pilot.pause(0.05)
        await app.wait_for_work()
        lags: list[float] = []
        stop = asyncio.Event()
        started = time.perf_counter()
        screen.start_sync()  # what ctrl+s does (a key press waits until the app is idle)
        probe = asyncio.ensure_future(_lag_probe(lags, stop))
        per_query: list[float] = []
        index = 0
        while not screen.syncer.text_done and time.perf_counter() - started < 600:
            query = queries[index % len(queries)]
            index += 1
            await pilot.press("ctrl+u")
            for char in query[:-1]:
                await pilot.press("space" if char == " " else char)
            count = screen.searcher.searches_shown
            pressed = time.perf_counter()
            await pilot.press(query[-1])
            while (screen.searcher.searches_shown == count or screen.searcher.search_pending) and time.perf_counter() - pressed < 60:
                await pilot.pause(0.005)
            per_query.append((time.perf_counter() - pressed) * 1000)
        text_seconds = time.perf_counter() - started
        stop.set()
        await probe
        screen.action_stop_sync()
        await app.wait_for_work()
    per_query.sort()
    lags.sort()
    return {
        "text_seconds": round(text_seconds, 1),
        "queries": len(per_query),
        "key_to_results_p50_ms": round(per_query[len(per_query) // 2], 1) if per_query else None,
        "key_to_results_max_ms": round(per_query[-1], 1) if per_query else None,
        "loop_lag_p99_ms": round(lags[int(len(lags) * 0.99)], 1) if lags else None,
        "loop_lag_max_ms": round(lags[-1], 1) if lags else None,
        "debounce_ms": app.settings.debounce_ms,
    }


def measure_while_indexing(home: str | Path, queries: list[str] | None = None) -> dict:
    """Keystroke-to-results and event-loop lateness while a sync's text phase runs (the
    big-note case: ``python benchmarks/big_notes.py --ui``)."""
    return asyncio.run(_while_indexing(Path(home), queries or QUERIES))


_COLD_START = """
import time
started = time.perf_counter()
import asyncio, sys
from pms_tui.tui.app import PmsApp

async def main():
    app = PmsApp(home=sys.argv[1], first_run_sample=False, read_clipboard=False, load_model=False)
    async with app.run_test(size=(120, 36)) as pilot:
        while app.first_screen_ms is None:
            await pilot.pause(0.005)
        first = (time.perf_counter() - started) * 1000
        cpu = time.process_time() * 1000  # the process's, every thread's, since it started
        if sys.argv[2:] != ["search"]:
            print(first)
            return
        # a query pasted at once: its time to its results shown (the debounce included)
        screen = app.search_screen
        count = screen.searcher.searches_shown
        pressed = time.perf_counter()
        screen.search_bar.insert_text_at_cursor("sourdough starter")
        while screen.searcher.searches_shown == count or screen.searcher.search_pending:
            await pilot.pause(0.002)
        now = time.perf_counter()
        print(first, (now - pressed) * 1000, cpu, (now - started) * 1000)

asyncio.run(main())
"""


def _start_once(home: Path, tree: Path | None = None, search: bool = False,
                pycache: Path | None = None) -> list[float] | None:
    """One new process on ``tree``'s code (None: this interpreter's path): its first screen in
    ms, and with ``search`` a query pasted to its results, the CPU time used until the
    first screen and the time from the start to that query's results. ``pycache``: the bytecode kept
    there (as an installed package has it) instead of compiled from source each start."""
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    if pycache is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    args = [sys.executable, "-c", _COLD_START, str(home)] + (["search"] if search else [])
    try:
        # run from the tree: ``python -c`` puts the working directory first on the path
        out = subprocess.run(args, capture_output=True, text=True, check=True, timeout=120, env=env,
                             cwd=tree)
    except (subprocess.TimeoutExpired, subprocess.CalledProcessError) as exc:
        print(f"cold start run failed: {type(exc).__name__}", file=sys.stderr)
        return None
    return [float(x) for x in out.stdout.strip().splitlines()[-1].split()]


def _cold_start_ms(home: Path) -> float:
    """A new Python process: imports, opening the index, first screen (the median of 3)."""
    runs = [r[0] for r in (_start_once(home) for _ in range(3)) if r]
    return round(statistics.median(runs), 1) if runs else float("nan")


def start_side_by_side(home: Path, trees: list[Path], runs: int, bytecode: bool) -> None:
    """``start`` mode: new processes on each tree in turn (a, b, a, b, ...), ``runs`` each;
    the medians of the first screen and of a query pasted right after it, with the load."""
    cache = Path(tempfile.mkdtemp(prefix="pms-start-pyc-")) if bytecode else None
    caches = {t: (cache / str(i) if cache else None) for i, t in enumerate(trees)}
    if cache is not None:
        for tree in trees:  # one start writes the bytecode
            _start_once(home, tree, pycache=caches[tree])
    samples: dict[Path, list[list[float]]] = {t: [] for t in trees}
    loads = []
    for _ in range(runs):
        for tree in trees:
            loads.append(os.getloadavg()[0])
            result = _start_once(home, tree, search=True, pycache=caches[tree])
            if result:
                samples[tree].append(result)
    if cache is not None:
        shutil.rmtree(cache, ignore_errors=True)
    print(f"new process to first screen, then a query pasted at once (median of {runs}; "
          f"{'bytecode cached' if bytecode else 'as the environment compiles'}; "
          f"load {min(loads):.2f}-{max(loads):.2f}, mean {statistics.mean(loads):.2f})")
    for tree, rows in samples.items():
        if rows:
            firsts = sorted(r[0] for r in rows)
            searches = sorted(r[1] for r in rows)
            cpu = statistics.median(r[2] for r in rows)
            total = statistics.median(r[3] for r in rows)
            print(f"  {tree}: first screen {statistics.median(firsts):.0f} ms "
                  f"({firsts[0]:.0f}-{firsts[-1]:.0f}; CPU {cpu:.0f} ms), the query pasted to its results "
                  f"{statistics.median(searches):.0f} ms ({searches[0]:.0f}-{searches[-1]:.0f}); "
                  f"start to those results {total:.0f} ms")


def measure_ui(home: str | Path | None = None, queries: list[str] | None = None, cold_start: bool = True) -> dict:
    """Start time to first screen and median keystroke-to-results time, in ms (``cold_start``:
    also the start of a new process, three times)."""
    queries = queries or QUERIES
    if home is not None:
        result = asyncio.run(_run(Path(home), queries))
        result["process_start_to_first_screen_ms"] = _cold_start_ms(Path(home)) if cold_start else None
        return result
    with tempfile.TemporaryDirectory(prefix="pms-ui-bench-") as tmp:
        home = _sample_home(Path(tmp))
        result = asyncio.run(_run(home, queries))
        result["process_start_to_first_screen_ms"] = _cold_start_ms(home) if cold_start else None
        return result


def measure_follow() -> None:
    """Following links in the app: benchmarks/links.py's follow case."""
    sys.path.insert(0, str(Path(__file__).parent))
    import links

    if not links.HELP.exists():
        print("obsidian-help is absent; nothing to measure")
        return
    with tempfile.TemporaryDirectory(prefix="pms-ui-follow-") as tmp:
        links.follow_only(Path(tmp) / "help")


def _start_main(argv: list[str]) -> None:
    import argparse

    parser = argparse.ArgumentParser(prog="ui_latency.py start")
    parser.add_argument("home")
    parser.add_argument("trees", nargs="*", type=Path, help="source trees to alternate (default: this one)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--bytecode", action="store_true", help="keep each tree's bytecode (as installed)")
    args = parser.parse_args(argv)
    start_side_by_side(Path(args.home), args.trees or [Path(__file__).resolve().parent.parent], args.runs,
                       args.bytecode)


def _measure_main() -> int:
    args = sys.argv[1:]
    cold = "--no-cold-start" not in args
    args = [a for a in args if a != "--no-cold-start"]
    result = measure_ui(args[0] if args else None, cold_start=cold)
    started = (f" ({result['process_start_to_first_screen_ms']:.0f} ms from a new process, imports included)"
               if cold else "")
    print(f"app start to first screen: {result['first_screen_ms']:.0f} ms{started}")
    print(f"keystroke to results (median of {result['queries']} queries): "
          f"{result['keystroke_to_results_median_ms']:.0f} ms, p90 {result['keystroke_to_results_p90_ms']:.0f} ms")
    print(f"load average {os.getloadavg()[0]:.2f} (1 min) at the end")
    print(json.dumps(result))
    return 0

if __name__ == "__main__":
    if sys.argv[1:] == ["follow"]:
        measure_follow()
        sys.exit(0)
    if sys.argv[1:2] == ["start"]:
        _start_main(sys.argv[2:])
        sys.exit(0)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import doc_sections

    sys.exit(doc_sections.run_main(_measure_main, "benchmarks/ui_latency.py"))
