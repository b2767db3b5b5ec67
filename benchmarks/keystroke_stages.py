"""Where the time from the debounce firing to the results goes, stage by stage, under Pilot
(research: it wraps the app's private methods, so it follows their names; not a benchmark of
record). The same ~20 queries as benchmarks/ui_latency.py, typed key by key:

    PYTHONPATH=TREE python benchmarks/keystroke_stages.py HOME [--samples] [--pyinstrument OUT]

prints each stage's median and p90 over the queries: the search thread (and in it the lanes,
rows and snippets), the results handler (and in it the list's rebuild), the first paint after
it (not in ui_latency's number, which stops before the paint), the rest of the rows where
they are built after that paint; "[other]" lines are the renders of prefixes and of the
emptied bar. ``--samples``: what the event loop's thread ran while the search thread worked.
"""
from __future__ import annotations
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
import ui_latency

STAGES: dict[str, list[float]] = {}
CUR: dict[str, float] = {}

def rec(name, ms):
    CUR[name] = CUR.get(name, 0.0) + ms

import collections
import threading
import traceback
MAIN = threading.main_thread().ident
MAIN_CLOCK = time.pthread_getcpuclockid(MAIN)
SAMPLING = threading.Event()
SAMPLES = collections.Counter()
def sampler():
    while True:
        SAMPLING.wait()
        f = sys._current_frames().get(MAIN)
        if f is not None:
            st = traceback.extract_stack(f)
            key = " < ".join(f"{Path(x.filename).stem}:{x.name}" for x in reversed(st[-40:]) if "asyncio" not in x.filename)
            SAMPLES[key] += 1
        time.sleep(0.001)
threading.Thread(target=sampler, daemon=True).start()

def wrap(obj, attr, name, thread_cpu=False):
    orig = getattr(obj, attr)
    def inner(*a, **k):
        t = time.perf_counter()
        c = time.thread_time()
        if thread_cpu:
            m = time.clock_gettime(MAIN_CLOCK)
            SAMPLING.set()
        try:
            return orig(*a, **k)
        finally:
            rec(name, (time.perf_counter() - t) * 1000)
            if thread_cpu:
                SAMPLING.clear()
                rec(name + " (cpu)", (time.thread_time() - c) * 1000)
                rec(name + " main thread cpu meanwhile", (time.clock_gettime(MAIN_CLOCK) - m) * 1000)
    setattr(obj, attr, inner)

async def main(home, prof_out=None):
    from pms_tui.tui.app import PmsApp
    from pms_tui.tui.controllers import search_runs
    from pms_tui.tui.screens.search import SearchScreen
    from pms_tui.tui.widgets import results as results_mod, reader as reader_mod, status as status_mod, query_bits
    from pms_tui.core.kb import KnowledgeBase
    from pms_tui.core.search import retrieval as retr
    from pms_tui.tui.controllers import links as links_mod
    wrap(KnowledgeBase, "search", "kb.search (thread)", thread_cpu=True)
    for cls in [c for c in vars(retr).values() if isinstance(c, type) and hasattr(c, "_gather") and hasattr(c, "_hits")]:
        wrap(cls, "_prepare", "  prepare")
        wrap(cls, "_gather", "  gather lanes")
        wrap(cls, "_hits", "  hits rows+snippets")
    from pms_tui.core.search import match_quality
    wrap(match_quality, "assess", "  match_quality")
    wrap(results_mod.ResultsList, "_layout", "show_hits: layout+rebuild")
    wrap(results_mod.ResultsList, "_rebuild", "  rebuild options")
    wrap(status_mod.StatusLine, "_render_status", "status")
    if hasattr(results_mod.ResultsList, "_add_rest"):
        orig_rest = results_mod.ResultsList._add_rest
        def add_rest(self, build):
            t = time.perf_counter()
            r = orig_rest(self, build)
            scr = self.screen
            painted = getattr(scr, "_paint_for", None) == getattr(scr, "_handled_at", None)
            rec("rest of rows: ms" , (time.perf_counter() - t) * 1000)
            rec("rest of rows: after first paint (1=yes)", 1.0 if painted else 0.0)
            return r
        results_mod.ResultsList._add_rest = add_rest
    wrap(query_bits.FilterChips, "show_query", "chips")
    wrap(links_mod.LinkWalker, "result_highlighted", "links.result_highlighted (sync part)")
    wrap(SearchScreen, "on_searcher_results_ready", "on_searcher_results_ready total")
    # time from worker posting to handler start
    orig_post = None
    orig_handler = SearchScreen.on_searcher_results_ready
    def handler(self, message):
        rec("message queue wait", (time.perf_counter() - message._posted) * 1000)
        r = orig_handler(self, message)
        self._handled_at = time.perf_counter()
        return r
    SearchScreen.on_searcher_results_ready = handler
    orig_init = search_runs.Searcher.ResultsReady.__init__
    def init(self, *a, **k):
        orig_init(self, *a, **k)
        self._posted = time.perf_counter()
    search_runs.Searcher.ResultsReady.__init__ = init
    orig_rendered = search_runs.Searcher._search_rendered
    def rendered(self, started):
        if started:
            rec("handler end -> after refresh", (time.perf_counter() - self.screen._handled_at) * 1000)
            final = self.screen.search_bar.value in ui_latency.QUERIES
            tag = "" if final else "[other] "
            STAGES.setdefault(tag + "TOTAL (debounce -> rendered)", []).append((time.perf_counter() - started) * 1000)
            for k2, v in CUR.items():
                STAGES.setdefault(tag + k2, []).append(v)
        CUR.clear()
        return orig_rendered(self, started)
    search_runs.Searcher._search_rendered = rendered
    from textual.screen import Screen
    orig_refresh_layout = Screen._on_timer_update
    PAINT = {}
    def refresh_layout(self, *a, **k):
        t = time.perf_counter()
        lay = bool(self._layout_required)
        r = orig_refresh_layout(self, *a, **k)
        h = getattr(self, "_handled_at", None)
        if h is not None and getattr(self, "_paint_for", None) != h:
            self._paint_for = h
            e = time.perf_counter()
            final = self.search_bar.value in ui_latency.QUERIES
            tag = "" if final else "[other] "
            STAGES.setdefault(tag + "paint: handler end -> first paint done", []).append((e - h) * 1000)
            STAGES.setdefault(tag + "paint: that paint's own time", []).append((e - t) * 1000)
            STAGES.setdefault(tag + "paint: with a layout (1=yes)", []).append(1.0 if lay else 0.0)
            STAGES.setdefault(tag + "TOTAL to first paint", []).append((e - self._search_started) * 1000)
        return r
    Screen._on_timer_update = refresh_layout
    # reader async render timing
    orig_show_now = reader_mod.Reader._show_hit_now
    async def show_now(self, hit):
        t = time.perf_counter()
        try:
            return await orig_show_now(self, hit)
        finally:
            rec("reader._show_hit_now (async, wall)", (time.perf_counter() - t) * 1000)
    reader_mod.Reader._show_hit_now = show_now

    app = PmsApp(home=home, first_run_sample=False, read_clipboard=False)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.search_screen
        while screen.model_state == "loading":
            await pilot.pause(0.05)
        await app.wait_for_work()
        await pilot.pause()
        prof = None
        if prof_out:
            from pyinstrument import Profiler
            prof = Profiler(interval=0.0005, async_mode="disabled")
            prof.start()
        for q in ui_latency.QUERIES:
            await pilot.press("ctrl+u")
            await pilot.pause(0.2)
            await app.wait_for_work()
            await pilot.pause()
            CUR.clear()
            await ui_latency.type_query(pilot, app, q)
            await pilot.pause()
        if prof:
            prof.stop()
            prof.last_session.save(prof_out)
    print(f"load {os.getloadavg()}")
    if "--samples" in sys.argv:
        # frames aggregated by innermost pms/textual function chain (top 25 partial stacks)
        agg = collections.Counter()
        for k3, v in SAMPLES.items():
            parts = k3.split(" < ")
            agg[" < ".join(parts[:int(os.environ.get("DEPTH", "6"))])] += v
        tot = sum(agg.values())
        for k3, v in agg.most_common(30):
            print(f"{v:5d} {100*v/tot:5.1f}%  {k3[:300]}")
    n = len(STAGES.get("TOTAL (debounce -> rendered)", []))
    print(f"searches rendered (incl. empty-query/prefix renders): {n}")
    for k2, v in sorted(STAGES.items(), key=lambda kv: kv[0].startswith("[")):
        print(f"{k2:45s} n={len(v):3d} median {statistics.median(v):6.1f}  p90 {sorted(v)[int(len(v)*0.9)-1]:6.1f}")

if __name__ == "__main__":
    out = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--pyinstrument" else None
    asyncio.run(main(Path(sys.argv[1]), out))
