"""Soak: one KnowledgeBase answers thousands of varied queries while the index changes.

    python benchmarks/soak.py [--queries 20000] [--notes 300] [--json FILE]

One process keeps one ``KnowledgeBase`` and searches from a new thread per query, as the app's
workers do: short queries, pasted paragraphs (SciFact abstracts when the corpus is there),
queries typed prefix by prefix, the search language's filters, other languages (tldr pages in
seven) and hostile text. Meanwhile notes are edited, created, renamed and deleted, a
``pms-tui watch`` process indexes them as they are saved, this process syncs and clips pages
from a server on 127.0.0.1, and a second process searches the same index.

It prints, beside its goals: exceptions (goal 0), RSS after warm-up and at the end
(growth <= 10 %), latency p50/p95 of the first and last thousand queries (no drift beyond
noise), open file descriptors and threads after warm-up and at the end (equal), and whether the
last edits are found. ``tests/soak`` runs it short in the default suite and whole under
``-m slow``. Nothing here asserts a time: the figures are for people to read.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from corpora import CORPORA

REPO = Path(__file__).resolve().parents[1]
WARM_UP = 1000  # queries before the "start" figures are taken
SAMPLE_EVERY = 500  # queries between samples of RSS, descriptors and threads

SHORT = [
    "undo the last commit", "rename a branch", "list open ports", "extract a tar archive",
    "python virtual environment", "find large files", "docker compose logs", "git stash pop",
    "vim search and replace", "postgres index", "ssh tunnel", "kill a process", "disk usage",
    "json pretty print", "rebase interactive", "http headers curl", "cron every minute",
    "sort unique lines", "zip a folder", "change file permissions", "react state hook",
    "sql join", "environment variables", "symbolic link", "regular expression groups",
]
FILTERS = [
    "tag:git reset", "path:git/ branch", "in:notes commit", "title:vim", "after:2020 docker",
    "before:2030 python", 'rebase -"force push"', '"git reset"', "-draft search", "tag:",
    "path:", "after:7d", "in:nosuch words", "title:", 'tag:git -tag:draft "undo"',
]
HOSTILE = [
    "AND OR NOT", "NEAR(a b, 3)", '"unbalanced', "* ^ :", "col:value", "(((((", ")))))",
    "'; DROP TABLE chunks; --", "\x00\x01\x1b[31mred", "a" * 5000, "🙂 🚀 🙃", "-", "--", '""',
    "tag:\x00", "path:../../etc/passwd", "after:99999", "before:-1", "NEAR", "*a*", "\u202eevil",
    "x " * 2000, "\\", "%s %d {0}", "title:\"", "-\"", "OR", "^start",
]
OTHER_LANGUAGES = [
    "数据库索引", "压缩文件", "ファイルを圧縮する", "プロセスを終了", "Datei komprimieren",
    "Prozess beenden", "comprimir archivo", "afficher les fichiers", "сжать файл", "파일 압축",
]
NOTE_WORDS = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike "
              "november oscar papa quebec romeo sierra tango uniform victor whiskey").split()


# -- the material ----------------------------------------------------------------------------
def scifact_paragraphs(limit: int = 400) -> list[str]:
    path = CORPORA / "beir" / "scifact" / "corpus.jsonl.gz"
    if not path.exists():
        rng = random.Random(1)
        return [" ".join(rng.choice(NOTE_WORDS) for _ in range(rng.randint(80, 300))) for _ in range(50)]
    out = []
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            doc = json.loads(line)
            out.append((doc["title"] + " " + doc["text"])[:3000])
            if len(out) >= limit:
                break
    return out


def i18n_lines(limit: int = 200) -> list[str]:
    root = CORPORA / "markdown" / "tldr-pages-i18n"
    lines = list(OTHER_LANGUAGES)
    if root.is_dir():
        for lang in ("pages.zh", "pages.ja", "pages.de", "pages.ru", "pages.ko", "pages.es", "pages.fr"):
            for path in sorted((root / lang / "common").glob("*.md"))[: limit // 7]:
                for text in path.read_text(encoding="utf-8").splitlines():
                    if text.startswith("- "):
                        lines.append(text[2:].rstrip(":："))
                        break
    return lines


def make_notes(folder: Path, count: int) -> None:
    """A notes folder: the first ``count`` TIL notes when the corpus is there, else written."""
    til = CORPORA / "markdown" / "jbranchaud-til"
    folder.mkdir(parents=True, exist_ok=True)
    if til.is_dir():
        for path in sorted(til.glob("*/*.md"))[:count]:
            target = folder / path.relative_to(til)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
        return
    rng = random.Random(2)
    for i in range(count):
        words = " ".join(rng.choice(NOTE_WORDS) for _ in range(120))
        (folder / f"note{i}.md").write_text(f"---\ntags: [git]\n---\n# Note {i}\n\n## Part\n\n{words}\n",
                                            encoding="utf-8")


class Queries:
    """The query stream: each item is (text, mode, kind); a typed query yields its prefixes."""

    def __init__(self, seed: int = 7):
        self.rng = random.Random(seed)
        self.paragraphs = scifact_paragraphs()
        self.languages = i18n_lines()

    def __iter__(self):
        """Of the queries asked, about 26 % short, 9 % paragraphs, 44 % typed prefixes (a typed
        query yields ~15), 7 % filtered, 6 % in other languages, 7 % hostile."""
        rng = self.rng
        while True:
            roll = rng.random()
            mode = "hybrid" if rng.random() < 0.8 else rng.choice(("bm25", "vector"))
            if roll < 0.45:
                yield rng.choice(SHORT), mode, "short"
            elif roll < 0.60:
                words = self.rng.choice(self.paragraphs).split()
                start = rng.randrange(max(1, len(words) - 60))
                yield " ".join(words[start : start + rng.randint(40, 400)]), mode, "paragraph"
            elif roll < 0.65:
                text = rng.choice(SHORT + self.languages[:20])
                for end in range(1, len(text) + 1):
                    yield text[:end], "hybrid", "typed"
            elif roll < 0.77:
                yield rng.choice(FILTERS), mode, "filter"
            elif roll < 0.88:
                yield rng.choice(self.languages), mode, "language"
            else:
                yield rng.choice(HOSTILE), mode, "hostile"


# -- what changes the index meanwhile ----------------------------------------------------------
class ClipServer:
    """Article pages on 127.0.0.1, each with a word of its own."""

    def __init__(self) -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - the stdlib's name
                n = self.path.rsplit("/", 1)[-1]
                body = (f"<html><head><title>Clipped page {n}</title></head><body><article>"
                        f"<h1>Clipped page {n}</h1>" + "".join(
                            f"<p>Paragraph {i} of page {n} about clipword{n} and soak testing, with "
                            f"enough prose for an extractor to keep it as the main text.</p>"
                            for i in range(6)) + "</article></body></html>").encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):  # quiet
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, name="soak-clip-server", daemon=True)
        self.thread.start()

    def url(self, n: int) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/page/{n}"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


class Editor(threading.Thread):
    """Edits, creates, renames and deletes notes in one folder, remembering which unique word
    each live note holds (the watch process indexes them)."""

    def __init__(self, folder: Path, interval: float):
        super().__init__(name="soak-editor", daemon=True)
        self.folder, self.interval = folder, interval
        self.stop = threading.Event()
        self.live: dict[str, str] = {}  # relative path -> its unique word
        self.gone: set[str] = set()  # unique words of deleted notes
        self.edits = 0
        self.rng = random.Random(3)

    def _write(self, rel: str) -> None:
        word = f"soakword{self.edits}x"
        self.edits += 1
        (self.folder / rel).write_text(f"# Edited {rel}\n\nThis note holds {word} and some text.\n",
                                       encoding="utf-8")
        if rel in self.live:
            self.gone.add(self.live[rel])
        self.live[rel] = word

    def run(self) -> None:
        while not self.stop.wait(self.interval):
            roll = self.rng.random()
            names = sorted(self.live)
            if roll < 0.4 or len(names) < 5:
                self._write(f"edit{self.edits}.md")
            elif roll < 0.75:
                self._write(self.rng.choice(names))
            elif roll < 0.9:
                old = self.rng.choice(names)
                new = f"renamed{self.edits}.md"
                self.edits += 1
                (self.folder / old).rename(self.folder / new)
                self.live[new] = self.live.pop(old)
            else:
                old = self.rng.choice(names)
                (self.folder / old).unlink()
                self.gone.add(self.live.pop(old))


READER = """
import json, sys, time, random
from pms_tui.core.kb import KnowledgeBase
from pathlib import Path
home, stop_file = sys.argv[1], Path(sys.argv[2])
queries = ["undo commit", "git", "python", "clipword", "soakword", "database index", "tar archive"]
errors, count = [], 0
with KnowledgeBase(home=home) as kb:
    while not stop_file.exists():
        try:
            kb.search(random.choice(queries), k=10, mode="bm25")
        except Exception as exc:
            errors.append(f"{type(exc).__name__}: {exc}")
        count += 1
print(json.dumps({"queries": count, "errors": errors[:5], "error_count": len(errors)}))
"""


# -- measuring -----------------------------------------------------------------------------
def rss_mb() -> float:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def open_fds() -> int:
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:
        return -1


def native_threads() -> int:
    """The process's threads, the least of a few reads: a thread that has just been joined
    can still be ending in the kernel for a moment."""
    counts = []
    for _ in range(5):
        try:
            for line in Path("/proc/self/status").read_text().splitlines():
                if line.startswith("Threads:"):
                    counts.append(int(line.split()[1]))
        except OSError:
            return threading.active_count()
        time.sleep(0.02)
    return min(counts)


FDS_PER_CONNECTION = 2  # the database file and its WAL (the -shm file is shared per process)


def sample(kb) -> dict:
    """RSS, descriptors, threads and the store's connections. ``other_fds``: descriptors
    besides the store's pooled connections (the pool grows to its cap, then stays)."""
    fds, connections = open_fds(), kb._store.connection_count()
    return {"rss_mb": round(rss_mb(), 1), "fds": fds, "threads": native_threads(),
            "py_threads": threading.active_count(), "connections": connections,
            "other_fds": fds - FDS_PER_CONNECTION * connections}


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def run(queries: int = 20_000, notes: int = 300, seed: int = 7, edit_interval: float = 0.5,
        sync_every: int = 1500, clip_every: int = 2500, keep: Path | None = None) -> dict:
    from pms_tui.core.errors import PmsError
    from pms_tui.core.kb import KnowledgeBase

    tmp = Path(tempfile.mkdtemp(prefix="pms-soak-"))
    home, folder, edits_dir, clips_dir = tmp / "home", tmp / "notes", tmp / "edits", tmp / "clips"
    make_notes(folder, notes)
    edits_dir.mkdir()
    clips_dir.mkdir()
    result: dict = {"queries_asked": queries, "notes": notes}
    kb = KnowledgeBase(home=home)
    processes: list[subprocess.Popen] = []
    editor = Editor(edits_dir, edit_interval)
    server = ClipServer()
    try:
        kb.collections.create(folder, name="notes")
        kb.collections.create(edits_dir, name="edits")
        kb.collections.create(clips_dir, name="clips")
        started = time.perf_counter()
        kb.sync()
        kb.model.load()
        result["first_sync_s"] = round(time.perf_counter() - started, 1)
        env = {**os.environ, "PMS_TUI_HOME": str(home)}
        watch_log = open(tmp / "watch.log", "w")  # noqa: SIM115 - closed below
        processes.append(subprocess.Popen([sys.executable, "-m", "pms_tui", "watch", "--quiet"], env=env,
                                          stdout=watch_log, stderr=subprocess.STDOUT))
        editor.start()
        result["start"] = sample(kb)
        latencies: list[float] = []
        kinds: dict[str, int] = {}
        errors: list[str] = []
        user_errors = 0
        samples: list[dict] = []
        background: list[threading.Thread] = []
        reader = None
        clips = clip_said = 0

        def background_sync() -> None:
            try:
                kb.sync()
            except PmsError:
                pass  # a sync already running, or waiting for the watch process: fine
            except Exception:  # noqa: BLE001 - counted as a failure
                errors.append("sync: " + traceback.format_exc(limit=3))

        warm_up = min(WARM_UP, queries // 3)
        stream = iter(Queries(seed))
        for i in range(queries):
            text, mode, kind = next(stream)
            kinds[kind] = kinds.get(kind, 0) + 1
            box: dict = {}

            def search(text=text, mode=mode, box=box) -> None:
                t0 = time.perf_counter()
                try:
                    kb.search(text, k=10, mode=mode)
                except PmsError as exc:  # a sentence for the person: allowed, counted
                    box["user"] = str(exc)
                except Exception:  # noqa: BLE001 - the figure this run exists for
                    box["error"] = traceback.format_exc(limit=4)
                box["ms"] = (time.perf_counter() - t0) * 1000

            worker = threading.Thread(target=search, name="soak-search")  # one per query, as the app
            worker.start()
            worker.join()
            latencies.append(box["ms"])
            if "error" in box:
                errors.append(f"{kind} {text[:60]!r}: {box['error']}")
            user_errors += "user" in box
            if i == warm_up // 2 and reader is None:
                reader = subprocess.Popen([sys.executable, "-c", READER, str(home), str(tmp / "stop-reader")], env=env,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                processes.append(reader)
            if i and i % sync_every == 0:
                background = [t for t in background if t.is_alive()]
                t = threading.Thread(target=background_sync, name="soak-sync")
                t.start()
                background.append(t)
            if i and i % clip_every == 0:
                try:
                    kb.clipper.clip(server.url(clips), "clips")
                    clips += 1
                except PmsError:  # saved, indexed by the next sync (e.g. "a sync is already running")
                    clips += 1
                    clip_said += 1
            if i + 1 == warm_up:
                for t in background:
                    t.join()
                result["after_warm_up"] = sample(kb)
            if (i + 1) % SAMPLE_EVERY == 0:
                samples.append({"queries": i + 1, **sample(kb)})
        for t in background:
            t.join()
        result["end"] = sample(kb)  # what ran after warm-up still runs: the editor, watch, the reader
        editor.stop.set()
        editor.join()
        # the reader process: stopped, its own count of errors read
        if reader is not None:
            (tmp / "stop-reader").touch()
            out, _ = reader.communicate(timeout=60)
            result["second_reader"] = json.loads(out) if out.strip() else {"terminated": True}
        # the last edits: wait for the watcher, then every live word is found, every gone one not
        kb.sync(collections=["clips"])  # a clip that met a running sync was saved, not yet indexed
        deadline = time.monotonic() + 60
        missing = list(editor.live.values())
        while missing and time.monotonic() < deadline:
            time.sleep(1)
            missing = [w for w in editor.live.values() if not kb.search(w, k=1, mode="bm25")]
        stale = [w for w in editor.gone - set(editor.live.values()) if kb.search(w, k=1, mode="bm25")]
        clip_found = all(kb.search(f"clipword{n}", k=1, mode="bm25") for n in range(clips))
        span = min(1000, len(latencies) // 3)
        first, last = latencies[warm_up : warm_up + span], latencies[-span:]
        warm = result.get("after_warm_up", result["start"])
        result.update({
            "queries": len(latencies), "span": span, "kinds": kinds, "exceptions": len(errors), "errors": errors[:5],
            "user_errors": user_errors, "edits": editor.edits, "clips": clips, "clips_said": clip_said,
            "edits_not_found": len(missing), "deleted_still_found": len(stale), "clips_found": clip_found,
            "first_1000_p50_ms": round(statistics.median(first), 1) if first else None,
            "first_1000_p95_ms": round(percentile(first, 0.95), 1),
            "last_1000_p50_ms": round(statistics.median(last), 1) if last else None,
            "last_1000_p95_ms": round(percentile(last, 0.95), 1),
            "rss_growth_after_warm_up": round(result["end"]["rss_mb"] / warm["rss_mb"] - 1, 4),
            "samples": samples, "load_average": [round(x, 2) for x in os.getloadavg()],
        })
        return result
    finally:
        editor.stop.set()
        for p in processes:
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    p.kill()
        server.stop()
        kb.close()
        if keep is None:
            shutil.rmtree(tmp, ignore_errors=True)


def report(result: dict) -> str:
    warm, end = result.get("after_warm_up", result["start"]), result["end"]
    reader = result.get("second_reader", {})
    lines = [
        f"soak: {result['queries']} queries over {result['notes']} notes + edits + clips "
        f"(load average {result['load_average']})",
        f"  kinds: {result['kinds']}",
        f"  exceptions: {result['exceptions']} (goal 0); one-sentence errors for the person: {result['user_errors']}",
        f"  RSS after warm-up / end: {warm['rss_mb']} / {end['rss_mb']} MB, growth "
        f"{result['rss_growth_after_warm_up'] * 100:+.1f} % (goal <= 10 %)",
        f"  latency, first and last {result['span']} after warm-up: p50 {result['first_1000_p50_ms']} ms, p95 {result['first_1000_p95_ms']} ms; "
        f"then p50 {result['last_1000_p50_ms']} ms, p95 {result['last_1000_p95_ms']} ms (goal: no drift)",
        f"  open descriptors after warm-up / end: {warm['fds']} / {end['fds']}; the store's connections "
        f"{warm['connections']} / {end['connections']} (a pool: at most 4 idle); other descriptors "
        f"{warm['other_fds']} / {end['other_fds']} (goal equal)",
        f"  threads after warm-up / end: {warm['threads']} / {end['threads']} "
        f"(Python {warm['py_threads']} / {end['py_threads']}; goal equal)",
        f"  writes meanwhile: {result['edits']} edits by the watch process, {result['clips']} clips; "
        f"({result['clips_said']} said a sync was running); last edits not found {result['edits_not_found']}, deleted still found {result['deleted_still_found']}, "
        f"clips found {result['clips_found']}",
        f"  second reader process: {reader.get('queries', '?')} queries, {reader.get('error_count', '?')} errors",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=20_000)
    parser.add_argument("--notes", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--edit-interval", type=float, default=0.5, help="seconds between note edits")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)
    result = run(args.queries, args.notes, args.seed, args.edit_interval,
                 sync_every=max(100, args.queries // 12), clip_every=max(150, args.queries // 8))
    print(report(result))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0 if result["exceptions"] == 0 else 1


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import doc_sections

    sys.exit(doc_sections.run_main(main, "benchmarks/soak.py"))
