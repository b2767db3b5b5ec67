#!/usr/bin/env python
"""Clipping a big page: each stage's seconds and the peak memory of `pms-tui clip`'s work.

    python benchmarks/big_clip.py                 # a 4.8 MB page and a 0.76 MB one
    python benchmarks/big_clip.py --mb 10 --embed-seconds 60
    python benchmarks/big_clip.py --both --write-doc   # its section of docs/benchmarks.md

The page is a one-page reference manual made of real text: the PowerShell docs of the shared
corpora (``markdown/powershell-docs``) rendered to HTML by markdown-it-py, one section per
page, under a navigation bar and a sidebar of 600 links, as a documentation site's "print
this manual" page is. It is served from 127.0.0.1 (``tests/webserver.py``) and clipped by a
child process (a fresh interpreter, the real model) into an empty collection:
``KnowledgeBase.clipper.clip`` with its progress timing the stages (fetching, extracting, writing,
indexing the text, embedding). The embedding runs ``--embed-seconds`` and is then stopped as
ctrl+c stops it (the note stays whole; the next sync embeds the rest), so its rate and the
time the whole embedding would take are shown rather than waited for. The kernel's peak RSS
of the child (``RUSAGE_CHILDREN``; the model's load included) is printed beside the RSS when
the text was indexed, before the model loads. ``--both`` also extracts the page with
trafilatura's fallbacks (what pages under ``FAST_FROM_CHARS`` get) to show what ``fast`` saves.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

from corpora import MARKDOWN  # noqa: E402

CHILD = """
import json, resource, sys, threading, time
from pms_tui.core.kb import KnowledgeBase
home, url, embed_seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
cancel = threading.Event()
marks, rss, totals = {}, {}, {}
start = time.perf_counter()
def progress(done, total, stage):
    now = time.perf_counter()
    if stage not in marks:
        marks[stage] = now - start
        rss[stage] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    if stage == "embedding":
        totals["embedding"], totals["embedded"] = total, done
        if now - start - marks["embedding"] >= embed_seconds:
            cancel.set()
with KnowledgeBase(home=home) as kb:
    result = kb.clipper.clip(url, "web", progress=progress, cancel=cancel)
    marks.setdefault("done", time.perf_counter() - start)
    chunks = kb.stats()["chunks"]
print(json.dumps({"marks": marks, "rss": rss, "totals": totals, "chunks": chunks, "stopped": result.stopped,
                  "note_bytes": result.path.stat().st_size}))
"""

EXTRACT = """
import json, resource, sys, time
from pms_tui.core.clip import html_to_markdown as h2m
html = open(sys.argv[1], encoding="utf-8").read()
h2m.FAST_FROM_CHARS = 0 if sys.argv[2] == "fast" else 10 ** 12
start = time.perf_counter()
page = h2m.extract_from_html(html, "https://docs.example.org/manual")
print(json.dumps({"seconds": time.perf_counter() - start, "chars": len(page.content),
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}))
"""


def manual_page(size: int) -> str:
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark").enable("table")
    files = sorted((MARKDOWN / "powershell-docs").rglob("*.md"))
    head = ("<!doctype html><html><head><meta charset='utf-8'><title>PowerShell reference, one page</title>"
            "<script>window.dataLayer=[];function gtag(){dataLayer.push(arguments)}</script></head><body>"
            "<header><nav><ul>" + "".join(f"<li><a href='/docs/{i}'>Section {i}</a></li>" for i in range(200))
            + "</ul></nav></header><div class='sidebar'><ul>"
            + "".join(f"<li><a href='#s{i}'>{f.stem}</a></li>" for i, f in enumerate(files[:600]))
            + "</ul></div><main><article>")
    parts, total = [head], len(head)
    for i, path in enumerate(files):
        text = path.read_text(encoding="utf-8", errors="replace")
        if text.startswith("---"):
            text = text.split("---", 2)[-1]
        section = (f"<section id='s{i}'>{md.render(text)}<div class='feedback'>"
                   "<a href='/feedback'>Was this page helpful?</a></div></section>")
        parts.append(section)
        total += len(section)
        if total >= size:
            break
    parts.append("</article></main><footer><p>All rights reserved</p></footer></body></html>")
    return "".join(parts)


def clip_once(page: bytes, embed_seconds: float) -> dict:
    from tests.webserver import LocalWebServer

    site = LocalWebServer().start()
    try:
        url = site.add("/manual", page)
        with tempfile.TemporaryDirectory(prefix="pms-big-clip-") as tmp:
            home, folder = Path(tmp) / "home", Path(tmp) / "web"
            folder.mkdir()
            env = {k: v for k, v in os.environ.items() if not k.startswith("PMS_TUI_")}
            subprocess.run([sys.executable, "-m", "pms_tui", "--home", str(home), "add", str(folder), "--name", "web"],
                           check=True, capture_output=True, env=env)
            # a launcher of its own per run: RUSAGE_CHILDREN keeps the largest child's peak
            out = subprocess.run([sys.executable, "-c", _launch(CHILD), str(home), url, str(embed_seconds)],
                                 check=True, capture_output=True, env=env, cwd=str(REPO), text=True).stdout
    finally:
        site.stop()
    return json.loads(out.strip().splitlines()[-1])


def extract_once(path: Path, how: str) -> dict:
    out = subprocess.run([sys.executable, "-c", EXTRACT, str(path), how], check=True, capture_output=True,
                         cwd=str(REPO), text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def _launch(code: str) -> str:
    """``code`` run in a grandchild whose peak RSS the launcher adds to what it prints."""
    return ("import json, resource, subprocess, sys\n"
            f"out = subprocess.run([sys.executable, '-c', {code!r}, *sys.argv[1:]], check=True, capture_output=True, "
            "text=True).stdout.strip().splitlines()[-1]\n"
            "facts = json.loads(out)\n"
            "facts['peak_rss_mb'] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024\n"
            "print(json.dumps(facts))\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, nargs="*", default=[4.8, 0.76], help="page sizes (MB of HTML)")
    parser.add_argument("--embed-seconds", type=float, default=30.0, help="embedding measured, then stopped")
    parser.add_argument("--both", action="store_true", help="also extract with trafilatura's fallbacks")
    args = parser.parse_args()
    if not (MARKDOWN / "powershell-docs").is_dir():
        print(f"{MARKDOWN / 'powershell-docs'} is absent: nothing measured.")
        return 0
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'page MB':>7} {'note MB':>7} {'fetch s':>7} {'extract s':>9} {'write s':>7} {'text s':>7} "
          f"{'RSS text MB':>11} {'passages':>8} {'embed /s':>8} {'embed all s':>11} {'peak RSS MB':>11}")
    for mb in args.mb:
        page = manual_page(int(mb * 1_000_000)).encode("utf-8")
        r = clip_once(page, args.embed_seconds)
        m, rss, totals = r["marks"], r["rss"], r["totals"]
        ends = {"fetching": "extracting", "extracting": "writing", "writing": "indexing",
                "indexing": "embedding" if "embedding" in m else "done"}
        took = {stage: m.get(end, m["done"]) - m[stage] for stage, end in ends.items() if stage in m}
        embedded = totals.get("embedded", 0)
        seconds = m["done"] - m["embedding"] if "embedding" in m else 0.0
        rate = embedded / seconds if seconds > 0 else 0.0
        whole = totals.get("embedding", 0) / rate if rate else 0.0
        print(f"{len(page) / 1e6:>7.2f} {r['note_bytes'] / 1e6:>7.2f} {took.get('fetching', 0):>7.2f} "
              f"{took.get('extracting', 0):>9.1f} {took.get('writing', 0):>7.2f} {took.get('indexing', 0):>7.1f} "
              f"{rss.get('indexing', 0):>11} {totals.get('embedding', r['chunks']):>8} {rate:>8.1f} {whole:>11.0f} "
              f"{r['peak_rss_mb']:>11}", flush=True)
        if args.both:
            with tempfile.NamedTemporaryFile("wb", suffix=".html", delete=False) as handle:
                handle.write(page)
            try:
                for how in ("fast", "full"):
                    e = extract_once(Path(handle.name), how)
                    label = "own extractor" if how == "fast" else "with fallbacks"
                    print(f"        extraction alone, {label}: {e['seconds']:.1f} s, {e['chars']:,} characters, "
                          f"peak RSS {e['rss_mb']} MB", flush=True)
            finally:
                os.unlink(handle.name)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    import doc_sections

    sys.exit(doc_sections.run_main(main, "benchmarks/big_clip.py"))
