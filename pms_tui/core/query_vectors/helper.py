"""A one-shot search's query vector, embedded in a helper process while the search opens the
index and ranks BM25 (``start``, called by the CLI before it imports the rest of the engine).

A one-shot hybrid search used to spend most of its time loading the model: importing
fastembed (its package imports every model family it has, huggingface_hub, requests and httpx)
took about 0.45 s of CPU and opening the ONNX session 0.2 s, against about 0.3 s for the rest
of the search (importing the engine, opening the index, both lanes). The helper now embeds the
bundled model's query without importing fastembed (``model``: the same
ONNX file, tokenizer settings and pooling, so the same vector; about 0.25 s of CPU with a
session opened from a graph optimised once and kept on disk). Importing is Python work that
holds the GIL, so a thread cannot overlap it with the rest; a process forked before the engine
is imported can, on a second core. The child embeds the query
(``embedding.query_vector``) and writes ``text``, a newline and the float32 vector
to a pipe; the search takes it from a future (``kb.model.expect_query_vector``). Whatever goes wrong
in the child (a missing model, a kill), the search embeds the query itself with fastembed.

Before forking, a search asks a running app or `pms-tui mcp` of the same home for the vector
(``service``: a Unix socket in the home; the same vector, from a model already
loaded); the helper is forked only when none answers.

The vectors the helper made (or a server gave) are kept in ``<home>/cache/query-vectors/`` (the newest
``CACHE_FILES``, one small file each, named by a hash of the model, its window and the query):
the same query again (a script, an editor plugin, the shell's history) needs no model at all.

Linux only (a fork without exec is not safe on macOS); ``PMS_TUI_QUERY_HELPER=0`` turns it off.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import signal
import sys
import threading
from concurrent.futures import Future
from pathlib import Path

CACHE_FILES = 1000  # query vectors kept on disk, the oldest dropped first


def start(home: str | None, query: str) -> Future | None:
    """The query's vector as a future (for ``KnowledgeBase.model.expect_query_vector``): from the
    disk cache, a running app or `pms-tui mcp` of the home, or a helper forked now (before any
    thread starts); None where none can be used."""
    if not sys.platform.startswith("linux") or os.environ.get("PMS_TUI_QUERY_HELPER", "1") == "0":
        return None
    if threading.active_count() > 1:  # forking a threaded process is not safe
        return None
    cached = _cache_file(home, query)
    if cached is not None:
        try:
            known = _decoded(cached.read_bytes())
        except OSError:
            known = None
        if known is None:  # a running app or `pms-tui mcp` of this home may have the model loaded
            served = _ask_server(home, query)
            known = _decoded(served) if served else None
            if known is not None and served:
                _remember(cached, served)
        if known is not None:
            future: Future = Future()
            future.set_result(known)
            return future
    read_end, write_end = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return None
    if pid == 0:  # pragma: no cover - the child (its coverage is not collected)
        os.close(read_end)
        _child(home, query, write_end)
    os.close(write_end)
    future = Future()
    threading.Thread(target=_collect, args=(read_end, pid, future, cached), name="pms-query-vector",
                     daemon=True).start()
    atexit.register(_stop, pid, future)
    return future


def _child(home: str | None, query: str, out: int) -> None:  # pragma: no cover - runs in the child
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # ctrl+c ends it with the search
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)  # nothing of the child's reaches the terminal
        os.dup2(devnull, 2)
        from .embedding import query_vector

        text, vector = query_vector(query, home)
        payload = json.dumps(text).encode("utf-8") + b"\n" + vector.astype("<f4").tobytes()
        view = memoryview(payload)
        while view:
            view = view[os.write(out, view):]
        code = 0
    except BaseException:  # noqa: BLE001 - the parent embeds the query itself
        pass
    finally:
        os._exit(code)  # no atexit handlers, no flushing of the parent's buffers


def _collect(read_end: int, pid: int, future: Future, cache: Path | None = None) -> None:
    chunks = []
    try:
        while data := os.read(read_end, 65536):
            chunks.append(data)
    finally:
        os.close(read_end)
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
    payload = b"".join(chunks)
    result = _decoded(payload)
    if result is None:
        future.set_exception(RuntimeError("the query helper gave no vector"))
        return
    future.set_result(result)
    if cache is not None:
        _remember(cache, payload)


def _decoded(payload: bytes):
    """``(text, vector)`` from ``text`` as JSON, a newline and float32 bytes; None if malformed."""
    head, sep, body = payload.partition(b"\n")
    if not sep or not body or len(body) % 4:
        return None
    try:
        text = json.loads(head)
    except ValueError:
        return None
    import numpy as np

    return (text, np.frombuffer(body, dtype="<f4").copy()) if isinstance(text, str) else None


def _cache_file(home: str | None, query: str) -> Path | None:
    """Where the vector of ``query`` under this home's model is kept (None: no readable config)."""
    try:
        from ..config import default_home, load_settings

        root = Path(home).expanduser() if home else default_home()
        settings = load_settings(root)
    except Exception:  # noqa: BLE001 - a broken config: the search says so itself
        return None
    key = f"{settings.model}\0{settings.max_tokens}\0{query}".encode("utf-8", "surrogatepass")
    return root / "cache" / "query-vectors" / f"{hashlib.sha256(key).hexdigest()}.vec"


def _ask_server(home: str | None, query: str) -> bytes | None:
    """The query's vector from a running app or `pms-tui mcp` of this home (``service``)."""
    try:
        from ..config import default_home, load_settings
        from .service import ask

        root = Path(home).expanduser() if home else default_home()
        settings = load_settings(root)
        return ask(root, query, settings.model, settings.max_tokens)
    except Exception:  # noqa: BLE001 - the helper embeds the query instead
        return None


def _remember(path: Path, payload: bytes) -> None:
    """Keep the vector (written whole or not at all), and only the newest CACHE_FILES."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(payload)
        os.replace(tmp, path)
        files = list(path.parent.glob("*.vec"))
        if len(files) > CACHE_FILES:
            files.sort(key=lambda p: p.stat().st_mtime)
            for old in files[: len(files) - CACHE_FILES]:
                old.unlink(missing_ok=True)
    except OSError:  # a read-only home: the next search embeds the query again
        pass


def _stop(pid: int, future: Future) -> None:
    """At exit: a helper still working (the search failed or needed no vector) is ended."""
    if not future.done():
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            pass
