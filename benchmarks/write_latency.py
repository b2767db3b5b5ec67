"""How long an agent's write takes to be found, through ``pms-tui mcp --allow-writes`` and the
MCP SDK's own client over stdio.

    python benchmarks/write_latency.py [--rounds 20] [--corpus DIR]

A copy of the Obsidian help vault (173 notes, ``../shared/corpora/markdown/obsidian-help``,
copied into a temporary folder: the shared corpus is never written) is indexed with the real
model, made writable, and the server started. Each round then times, from the client's call:

- create_note -> the answer (the note is indexed by its words inside the call), and a BM25
  search for the note's own made-up word answered with it (call to searchable by words);
- create_note -> the first vector-lane search (its own sentence as the query) that returns
  it, polled every 50 ms (call to searchable by meaning: the embedding runs behind the answer);
- edit_note (append, named by the version get gave) -> the answer, and get -> the answer;
- move_note of a note with a backlink (the link rewritten) -> the answer.

It prints p50/p95/max of each and the load average before and after (the machine is shared).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from corpora import MARKDOWN

CORPUS = MARKDOWN / "obsidian-help"
WORDS = ["velvet", "orchard", "lantern", "glacier", "meadow", "harbor", "falcon", "quartz", "ember", "willow"]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def prepare(corpus: Path, root: Path) -> Path:
    from pms_tui.core.kb import KnowledgeBase

    folder = root / "vault"
    shutil.copytree(corpus, folder, ignore=shutil.ignore_patterns(".*"))
    (folder / "bench").mkdir()
    with KnowledgeBase(home=root / "home") as kb:
        kb.collections.create(folder, name="vault")
        kb.collections.set_writable("vault", True)
        started = time.perf_counter()
        report = kb.sync()
        print(f"indexed {report.summary} in {time.perf_counter() - started:.0f} s", flush=True)
    return root / "home"


async def measure(home: Path, rounds: int) -> dict[str, list[float]]:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "pms_tui", "--home", str(home), "mcp", "--allow-writes"],
                                   env=dict(os.environ))
    times: dict[str, list[float]] = {k: [] for k in ("create", "by_words", "by_meaning", "get", "append", "move")}
    with open(os.devnull, "w") as devnull:
        async with Client(stdio_client(params, errlog=devnull)) as client:
            async def call(name: str, args: dict) -> dict:
                result = await client.call_tool(name, args)
                if result.is_error:
                    raise RuntimeError(result.content[0].text)
                return result.structured_content

            await call("search", {"query": "warm up the model", "k": 3})  # the model is loaded
            for i in range(rounds):
                word = f"{WORDS[i % len(WORDS)]}zq{i}"
                sentence = (f"The {WORDS[i % len(WORDS)]} expedition number {i} crossed the {WORDS[(i + 3) % 10]} "
                            f"valley at dawn and mapped the {WORDS[(i + 6) % 10]} caves.")
                t0 = time.perf_counter()
                created = await call("create_note", {"title": f"Bench note {i}", "folder": "bench",
                                                     "body": f"{sentence}\n\nIts code word is {word}."})
                t1 = time.perf_counter()
                hits = (await call("search", {"query": word, "k": 3, "mode": "bm25"}))["hits"]
                t2 = time.perf_counter()
                assert hits and hits[0]["id"] == created["id"], hits
                times["create"].append((t1 - t0) * 1000)
                times["by_words"].append((t2 - t0) * 1000)
                deadline = t0 + 120
                while time.perf_counter() < deadline:
                    found = (await call("search", {"query": sentence, "k": 5, "mode": "vector"}))["hits"]
                    if created["id"] in [h["id"] for h in found]:
                        times["by_meaning"].append((time.perf_counter() - t0) * 1000)
                        break
                    await asyncio.sleep(0.05)
                t3 = time.perf_counter()
                version = (await call("get", {"note": created["id"]}))["version"]
                t4 = time.perf_counter()
                await call("edit_note", {"note": created["id"], "version": version, "action": "append",
                                         "text": f"Appended in round {i}."})
                t5 = time.perf_counter()
                times["get"].append((t4 - t3) * 1000)
                times["append"].append((t5 - t4) * 1000)
                if i % 4 == 0:  # a note with a backlink, renamed: its link rewritten in the same call
                    linker = await call("create_note", {"title": f"Links to {i}", "folder": "bench",
                                                        "body": f"See [[{created['path'].rsplit('/', 1)[1][:-3]}]]."})
                    await call("sync", {})  # its link resolved
                    version = (await call("get", {"note": created["id"]}))["version"]
                    t6 = time.perf_counter()
                    moved = await call("move_note", {"note": created["id"], "version": version,
                                                     "to": f"bench/renamed-{i}"})
                    times["move"].append((time.perf_counter() - t6) * 1000)
                    assert moved["links_rewritten_in"] == [linker["path"]], moved
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args()
    if not args.corpus.is_dir():
        print(f"{args.corpus} is absent: nothing measured.")
        return 0
    load_before = os.getloadavg()
    print(f"load average before: {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f} "
          f"({os.cpu_count()} cores)")
    with tempfile.TemporaryDirectory(prefix="pms-write-latency-") as tmp:
        home = prepare(args.corpus, Path(tmp))
        times = asyncio.run(measure(home, args.rounds))
    labels = {"create": "create_note -> answered", "by_words": "create_note -> found by words",
              "by_meaning": "create_note -> found by meaning", "get": "get (with its version)",
              "append": "edit_note append -> answered", "move": "move_note, 1 link rewritten"}
    for key, label in labels.items():
        values = times[key]
        if values:
            print(f"{label:<34} n={len(values):>3}  p50 {pct(values, 0.5):7.1f} ms  p95 {pct(values, 0.95):7.1f} ms  "
                  f"max {max(values):7.1f} ms")
    missed = args.rounds - len(times["by_meaning"])
    if missed:
        print(f"{missed} notes were not found by meaning within 120 s")
    load_after = os.getloadavg()
    print(f"load average after: {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")
    print(json.dumps({f"{k}_p50_ms": round(statistics.median(v), 1) for k, v in times.items() if v}))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import doc_sections

    sys.exit(doc_sections.run_main(main, "benchmarks/write_latency.py"))
