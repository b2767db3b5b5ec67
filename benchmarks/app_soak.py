"""App soak: the terminal app typed at for a long time through Textual's Pilot.

    python benchmarks/app_soak.py [--minutes 60] [--notes 300] [--json FILE]

Queries are typed key by key into the search bar, as a person types them; between queries the
results are walked (down, up, the whole note and back, the evidence panel), the mode and the
view are switched, help is opened and closed. Every error the app shows (a notification of
severity "error") and any exception that ends the app are counted. It prints, beside its goals:
errors (goal 0), RSS after warm-up and at the end (no growth beyond noise), and the
keystroke-to-results time of the first and the last hundred queries (the last as fast as the
first). ``tests/tui/test_app_soak.py`` runs it for half a minute; the full hour runs under
``-m slow``. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ui_latency import type_query  # noqa: E402
from soak import SHORT, FILTERS, HOSTILE, OTHER_LANGUAGES, make_notes, open_fds, percentile, rss_mb  # noqa: E402

WARM_UP = 20  # queries before the "start" figures are taken (or a fifth of the time, if sooner)
SAMPLE_EVERY = 25  # queries between samples


def typed_queries(seed: int):
    rng = random.Random(seed)
    pool = SHORT * 4 + FILTERS + OTHER_LANGUAGES + [h for h in HOSTILE if len(h) < 80 and h.isprintable()]
    while True:
        yield rng.choice(pool)


def watch_errors(app) -> list[str]:
    """Every error the app shows from now on (a notification of severity "error"), in a list
    that fills as they come."""
    shown_errors: list[str] = []
    original_notify = app.notify

    def notify(message: str, *, severity: str = "information", **kw) -> None:
        if severity == "error":
            shown_errors.append(str(message))
        original_notify(message, severity=severity, **kw)

    app.notify = notify  # type: ignore[method-assign]
    return shown_errors


async def _soak(home: Path, minutes: float, seed: int) -> dict:
    from pms_tui.tui.app import PmsApp

    app = PmsApp(home=home, first_run_sample=False, read_clipboard=False)
    shown_errors = watch_errors(app)
    latencies: list[float] = []
    samples: list[dict] = []
    result: dict = {}
    crash = None
    warm_up = None
    rng = random.Random(seed)
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.search_screen
            while screen.model_state == "loading" or app.first_screen_ms is None:
                await pilot.pause(0.05)
            await app.wait_for_work()
            begun = time.monotonic()
            stop, warm_until = begun + minutes * 60, begun + minutes * 12
            queries = typed_queries(seed)
            n = 0
            while time.monotonic() < stop:
                query = next(queries)
                await pilot.press("ctrl+u")
                latencies.append(await type_query(pilot, app, query))
                n += 1
                roll = rng.random()
                if roll < 0.3:  # read: walk the results, the whole note and back
                    for key in ("down", "down", "up", "ctrl+r", "ctrl+r"):
                        await pilot.press(key)
                elif roll < 0.4:
                    await pilot.press("f4")
                    await app.wait_for_work()
                    await pilot.press("f4")
                elif roll < 0.45:
                    await pilot.press("ctrl+t")  # mode: hybrid -> bm25 -> vector -> hybrid
                elif roll < 0.5:
                    await pilot.press("f3")
                elif roll < 0.52:
                    await pilot.press("f1")
                    await pilot.pause(0.05)
                    await pilot.press("escape")
                await pilot.press("escape")  # back to the search bar
                if warm_up is None and (n == WARM_UP or time.monotonic() >= warm_until):
                    warm_up = n
                    result["after_warm_up"] = {"rss_mb": round(rss_mb(), 1), "fds": open_fds()}
                if n % SAMPLE_EVERY == 0:
                    samples.append({"queries": n, "rss_mb": round(rss_mb(), 1), "fds": open_fds()})
            await app.wait_for_work()
            result["end"] = {"rss_mb": round(rss_mb(), 1), "fds": open_fds()}
    except Exception:  # noqa: BLE001 - the figure this run exists for
        crash = traceback.format_exc(limit=6)
    warm_up = warm_up or 0
    span = min(100, max(1, (len(latencies) - warm_up) // 2))
    first, last = latencies[warm_up : warm_up + span], latencies[-span:]
    warm = result.get("after_warm_up") or result.get("end") or {"rss_mb": float("nan"), "fds": -1}
    end = result.get("end") or warm
    result.update({
        "minutes": minutes, "queries": len(latencies), "errors_shown": len(shown_errors),
        "errors": shown_errors[:5], "crash": crash, "span": span,
        "first_p50_ms": round(statistics.median(first), 1) if first else None,
        "first_p95_ms": round(percentile(first, 0.95), 1),
        "last_p50_ms": round(statistics.median(last), 1) if last else None,
        "last_p95_ms": round(percentile(last, 0.95), 1),
        "rss_growth_after_warm_up": round(end["rss_mb"] / warm["rss_mb"] - 1, 4),
        "after_warm_up": warm, "end": end, "samples": samples,
        "load_average": [round(x, 2) for x in os.getloadavg()],
    })
    return result


def run(minutes: float = 60, notes: int = 300, seed: int = 11) -> dict:
    from pms_tui.core.kb import KnowledgeBase

    tmp = Path(tempfile.mkdtemp(prefix="pms-app-soak-"))
    try:
        make_notes(tmp / "notes", notes)
        with KnowledgeBase(home=tmp / "home") as kb:
            kb.collections.create(tmp / "notes", name="notes")
            kb.sync()
        result = asyncio.run(_soak(tmp / "home", minutes, seed))
        result["notes"] = notes
        return result
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def report(r: dict) -> str:
    return "\n".join([
        f"app soak: {r['queries']} queries typed in {r['minutes']} min over {r['notes']} notes "
        f"(load average {r['load_average']})",
        f"  errors shown: {r['errors_shown']} (goal 0); the app ended with an exception: {'yes' if r['crash'] else 'no'}",
        f"  RSS after warm-up / end: {r['after_warm_up']['rss_mb']} / {r['end']['rss_mb']} MB, growth "
        f"{r['rss_growth_after_warm_up'] * 100:+.1f} %",
        f"  keystroke to results, first {r['span']} after warm-up: p50 {r['first_p50_ms']} ms, "
        f"p95 {r['first_p95_ms']} ms; last {r['span']}: p50 {r['last_p50_ms']} ms, p95 {r['last_p95_ms']} ms",
        f"  open descriptors after warm-up / end: {r['after_warm_up']['fds']} / {r['end']['fds']}",
    ])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=60)
    parser.add_argument("--notes", type=int, default=300)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)
    result = run(args.minutes, args.notes, args.seed)
    print(report(result))
    if result["crash"]:
        print(result["crash"], file=sys.stderr)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0 if not result["crash"] and not result["errors_shown"] else 1


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import doc_sections

    sys.exit(doc_sections.run_main(main, "benchmarks/app_soak.py"))
