"""One measurement in a fresh Python process (benchmarks/run.py's parts, and an earlier
commit's in side_by_side.py): its own process group, so a part that hangs (and anything it
started) is stopped as a whole after its timeout; its result is the last line it prints, as
JSON, stamped with the load average before and after and when it was measured."""

from __future__ import annotations

import datetime as dt
import json
import os
import signal
import subprocess
import time


def run_json(argv: list[str], *, label: str, timeout: float, cwd: str, env: dict | None = None,
             load: float | None = None) -> dict:
    load = os.getloadavg()[0] if load is None else load
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, cwd=cwd, env=env, start_new_session=True)
    try:
        stdout, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise RuntimeError(f"worker {label} did not finish in {timeout:.0f} s") from None
    if proc.returncode != 0:
        raise RuntimeError(f"worker {label} failed (exit {proc.returncode})")
    result = json.loads(stdout.strip().splitlines()[-1])
    result["load_at_start"] = round(load, 2)
    result["load_at_end"] = round(os.getloadavg()[0], 2)
    result["measured_at"] = dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    result["wall_seconds"] = round(time.perf_counter() - started, 1)
    return result
