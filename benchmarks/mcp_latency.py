"""``pms-tui mcp`` latency as an agent sees it, through the MCP SDK's own client over stdio.

    python benchmarks/mcp_latency.py [--home DIR] [--corpus DIR] [--starts 3]

On the tldr pages (7,425 notes; ``../shared/corpora/markdown/tldr-pages-en``), indexed once
into ``--home`` (text and vectors: minutes the first time, then reused), it prints:

- cold starts: process spawn -> connected (server/discover), and -> the first search answered with both
  lanes (it waits for the model, which loads while the SDK starts);
- warm search p50/p95/max end to end (the client's call to the answer in hand), over the
  known-item queries of docs/known-item-tldr.jsonl plus short keyword queries, each asked
  once (query vectors not cached), then again (cached); a get of each first hit;
- the server's RSS;
- the same search as a one-shot ``pms-tui search --json`` process, side by side;
- the load average before and after (the machine is shared: read the numbers with it).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from corpora import MARKDOWN

REPO = Path(__file__).resolve().parents[1]
CORPUS = MARKDOWN / "tldr-pages-en"
KEYWORDS = [
    "extract tar archive", "git rebase interactive", "ffmpeg convert video", "find files by name",
    "docker remove container", "ssh port forwarding", "grep recursive", "change file permissions",
    "kill process by name", "disk usage", "curl post json", "rsync over ssh", "zip a folder",
    "list open ports", "python virtual environment", "compress image", "mount usb drive",
    "create user linux", "show calendar", "download youtube video", "sort numbers", "count lines",
    "replace text in files", "schedule a job cron", "show network interfaces", "git undo commit",
    "npm install package", "kubectl get pods", "convert pdf to image", "watch a command",
]


def queries() -> list[str]:
    known = REPO / "docs" / "known-item-tldr.jsonl"
    items = [json.loads(line)["query"] for line in known.read_text().splitlines() if line.strip()]
    return items + KEYWORDS


def ensure_index(home: Path, corpus: Path) -> None:
    from pms_tui.core.kb import KnowledgeBase

    with KnowledgeBase(home=home) as kb:
        if not kb.collections.list():
            kb.collections.create(corpus, name="tldr", description="tldr pages: short examples of command-line tools")
        pending = kb.check_sync_status()
        if pending.to_add or pending.to_update or pending.to_delete or kb.index.vectors_pending:
            print(f"indexing {corpus} into {home} (text and vectors; minutes the first time) ...", flush=True)
            report = kb.sync()
            print(report.summary, flush=True)
        stats = kb.stats()
    print(f"index: {stats['documents']:,} notes, {stats['chunks']:,} chunks, {stats['vectors_pending']} vectors pending")


def server_proc() -> Path | None:
    """/proc/PID of this process's child running ``mcp`` (the server)."""
    me = str(os.getpid())
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            ppid = stat.rsplit(")", 1)[1].split()[1]
            cmd = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if ppid == me and b"mcp" in cmd:
            return entry
    return None


def children_rss_mb() -> float | None:
    """RSS of the server."""
    proc = server_proc()
    if proc is None:
        return None
    for line in (proc / "status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return None


def server_cpu_s() -> float:
    """CPU seconds (user + system, all threads) the server has used: unlike wall time, not
    inflated by other programs waiting for the same cores."""
    proc = server_proc()
    if proc is None:
        return float("nan")
    fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


async def session_run(home: Path, work):
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "pms_tui", "--home", str(home), "mcp"],
                                   env=dict(os.environ))
    spawned = time.perf_counter()
    with open(os.devnull, "w") as devnull:
        # connected as the SDK's client connects: server/discover, the current protocol revision
        async with Client(stdio_client(params, errlog=devnull)) as client:
            return await work(client, spawned, time.perf_counter())


async def cold_start(home: Path, query: str) -> dict:
    async def work(session, spawned, initialized):
        result = await session.call_tool("search", {"query": query, "k": 10})
        answered = time.perf_counter()
        return {"initialize_s": initialized - spawned, "first_search_s": answered - spawned, "cpu_s": server_cpu_s(),
                "first_call_s": answered - initialized, "lanes": result.structured_content["lanes"]}

    return await session_run(home, work)


async def warm(home: Path, items: list[str]) -> dict:
    async def work(session, spawned, initialized):
        await session.call_tool("search", {"query": "warm up", "k": 10})  # the model is loaded
        out: dict[str, list[float]] = {"search_uncached": [], "search_cached": [], "get": [], "engine_uncached": []}
        first_ids = []
        cpu = {}
        for key in ("search_uncached", "search_cached"):
            cpu_before = server_cpu_s()
            for query in items:
                began = time.perf_counter()
                result = await session.call_tool("search", {"query": query, "k": 10})
                out[key].append((time.perf_counter() - began) * 1000)
                assert not result.is_error, result.content[0].text
                if key == "search_uncached":
                    out["engine_uncached"].append(result.structured_content["ms"])  # kb.search inside the server
                    if result.structured_content["hits"]:
                        first_ids.append(result.structured_content["hits"][0]["id"])
            cpu[key] = (server_cpu_s() - cpu_before) / len(items) * 1000
        for note in first_ids:
            began = time.perf_counter()
            result = await session.call_tool("get", {"note": note})
            out["get"].append((time.perf_counter() - began) * 1000)
            assert not result.is_error
        rss = children_rss_mb()
        return out, rss, cpu

    return await session_run(home, work)


def one_shot(home: Path, query: str, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        subprocess.run([sys.executable, "-m", "pms_tui", "--home", str(home), "search", query, "-k", "10", "--json"],
                       check=True, capture_output=True)
        times.append(time.perf_counter() - began)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, default=Path("/tmp/mcp-bench-tldr"))
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--starts", type=int, default=3, help="cold starts measured")
    parser.add_argument("--one-shots", type=int, default=5, help="one-shot CLI searches measured")
    args = parser.parse_args()
    if not args.corpus.is_dir() and not (args.home / "index.sqlite").exists():
        print(f"skipped: {args.corpus} is not here")
        return 0
    load_before = os.getloadavg()
    ensure_index(args.home, args.corpus)
    items = queries()
    print(f"load average before: {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f} "
          f"({os.cpu_count()} cores)")

    starts = [asyncio.run(cold_start(args.home, items[i % len(items)])) for i in range(args.starts)]
    for i, s in enumerate(starts, 1):
        print(f"cold start {i}: connected {s['initialize_s']:.2f} s after spawn; the first search (waiting for "
              f"the model) answered {s['first_call_s']:.2f} s after that, {s['first_search_s']:.2f} s after spawn "
              f"(lanes: {', '.join(s['lanes'])}); server CPU until then {s['cpu_s']:.2f} s")
    print(f"cold start median: connected {statistics.median(s['initialize_s'] for s in starts):.2f} s, "
          f"first call {statistics.median(s['first_call_s'] for s in starts):.2f} s, "
          f"spawn to first answer {statistics.median(s['first_search_s'] for s in starts):.2f} s")

    timings, rss, cpu = asyncio.run(warm(args.home, items))
    for key, label in (("search_uncached", "search, new queries"), ("engine_uncached", "... of it kb.search"),
                       ("search_cached", "search, repeated"), ("get", "get (first hit's note)")):
        values = timings[key]
        print(f"warm {label:<24} n={len(values):>3}  p50 {pct(values, 0.5):6.1f} ms  p95 {pct(values, 0.95):6.1f} ms  "
              f"max {max(values):6.1f} ms")
    print(f"server CPU per search (all threads): new queries {cpu['search_uncached']:.1f} ms, "
          f"repeated {cpu['search_cached']:.1f} ms")
    print(f"server RSS after {len(items) * 2} searches: {rss:.0f} MB" if rss else "server RSS: not found")

    shots = one_shot(args.home, items[0], args.one_shots)
    print(f"one-shot `pms-tui search --json` (new process each time) n={len(shots)}: median "
          f"{statistics.median(shots):.2f} s, min {min(shots):.2f} s  vs  server p50 "
          f"{pct(timings['search_uncached'], 0.5):.1f} ms")
    load_after = os.getloadavg()
    print(f"load average after: {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")
    print(json.dumps({
        "cold_initialize_s": [round(s["initialize_s"], 3) for s in starts],
        "cold_first_search_s": [round(s["first_search_s"], 3) for s in starts],
        "cold_first_call_s": [round(s["first_call_s"], 3) for s in starts],
        **{f"{key}_p50_ms": round(pct(v, 0.5), 1) for key, v in timings.items()},
        **{f"{key}_p95_ms": round(pct(v, 0.95), 1) for key, v in timings.items()},
        "cold_server_cpu_s": [round(s["cpu_s"], 2) for s in starts],
        **{f"server_cpu_per_{key}_ms": round(v, 1) for key, v in cpu.items()},
        "server_rss_mb": round(rss or 0), "one_shot_cli_s": [round(t, 3) for t in shots],
        "load_before": [round(x, 2) for x in load_before], "load_after": [round(x, 2) for x in load_after],
    }))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import doc_sections

    sys.exit(doc_sections.run_main(main, "benchmarks/mcp_latency.py"))
