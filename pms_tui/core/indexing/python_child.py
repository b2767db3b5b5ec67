"""Every Python child process the product starts: started here, isolated and bounded.

Why isolated: ``python -m module`` puts the folder it was started in first on ``sys.path``, and
the user site and ``PYTHON*`` variables add more; a ``json.py``, ``re.py`` or ``select.py`` in
the folder a sync, the app or the MCP server was started from (any Python project has such
names) would then run inside the child. The child therefore starts with ``-I`` (isolated:
``-E -s -P``): no working folder or script folder on the path, no user site, no ``PYTHON*``
variable. It finds pms-tui and its readers in the interpreter's own site-packages, where an
install puts them, editable or not. The limit of this: pms-tui run from a source tree that
was never installed (found through ``PYTHONPATH`` only) reads no document; ``pip install -e .``.

Why bounded: the child reads a stranger's file (a zip bomb inside a .docx, deeply nested PDF
objects, a parser that loops or crashes), so it can cost at most itself. It limits its own
address space and CPU time (``limited``, first thing, before it imports a reader) and is killed
here past a wall-clock limit or when the caller cancels. Resource limits are not set by the
parent (a ``preexec_fn`` is unsafe in a process with threads, as the app and the watcher are).

The protocol: the child prints one JSON object on stdout; its stderr is dropped.

(The one-shot search's query-vector helper is a ``fork`` without ``exec``: it runs no new
interpreter and imports only what its parent's path, already fixed at start, finds.)
"""

from __future__ import annotations

import json
import signal
import sys
import threading
from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """What one child may use: CPU seconds and bytes of address space (0: none of its own);
    the wall clock allows twice the CPU time (a file on a slow disk) plus the start."""

    cpu_seconds: int
    memory_bytes: int

    @property
    def wall_seconds(self) -> int:
        return 2 * self.cpu_seconds + 10


class ChildFailed(Exception):
    """The child gave no answer; the message says why in one sentence. ``passing``: a cause
    that can pass (a limit hit under load, a crash, a cancelled sync), worth another try."""

    def __init__(self, message: str, passing: bool = True) -> None:
        super().__init__(message)
        self.passing = passing


def command(module: str, *args: str) -> list[str]:
    """The isolated command line that runs ``module`` with this interpreter (see the module's
    docstring for why ``-I``)."""
    return [sys.executable, "-I", "-m", module, *args]


def run_json(module: str, args: list[str], limits: Limits, what: str,
             cancel: threading.Event | None = None) -> dict:
    """Run ``python -I -m module CPU MEMORY args...`` and return the JSON object it prints;
    ChildFailed when it could not start, was stopped (a limit, a crash, ``cancel``) or printed
    nothing usable. ``what`` names the child in the reasons ("the document reader")."""
    import subprocess  # here: a search that starts no child does not import it

    argv = command(module, str(limits.cpu_seconds), str(limits.memory_bytes), *args)
    try:
        child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, start_new_session=True)
    except OSError as exc:
        raise ChildFailed(f"{what} could not start ({exc.strerror or exc})") from None
    wall = limits.wall_seconds
    waited = 0.0
    while True:
        try:
            out, _ = child.communicate(timeout=0.5)
            break
        except subprocess.TimeoutExpired:
            waited += 0.5
            if waited >= wall or (cancel is not None and cancel.is_set()):
                _kill_group(child)
                child.communicate()
                if waited >= wall:
                    raise ChildFailed(f"reading it took longer than {wall} s (the limit per document); "
                                      "it was stopped") from None
                raise ChildFailed("the sync was cancelled while it was read") from None
    if child.returncode != 0 or not out:
        raise ChildFailed(_stopped(what, child.returncode, limits))
    try:
        result = json.loads(out.decode("utf-8", "replace"))
    except ValueError:
        raise ChildFailed(f"{what} gave no answer it could use") from None
    if not isinstance(result, dict):
        raise ChildFailed(f"{what} gave no answer it could use")
    if result.get("limit") == "memory":
        raise ChildFailed(memory_reason(limits))
    return result


def _kill_group(child) -> None:
    """The child and what it started (a reader may run Tesseract): it leads a session of its own."""
    import os

    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (AttributeError, OSError):  # Windows, or already gone
        child.kill()


def memory_reason(limits: Limits) -> str:
    return (f"needs more than {limits.memory_bytes / 1e6:,.0f} MB of memory to read (the limit per "
            "document); a damaged or hostile file?")


def _stopped(what: str, code: int | None, limits: Limits) -> str:
    if code is not None and code < 0:
        sig = -code
        if sig == getattr(signal, "SIGXCPU", -1):
            return (f"reading it took more than {limits.cpu_seconds} s of CPU time (the limit per document); "
                    "it was stopped")
        if sig == signal.SIGKILL:  # the CPU limit's hard stop, or the system out of memory
            return (f"{what} was killed (SIGKILL) while reading it: over {limits.cpu_seconds} s of CPU time "
                    "or out of memory; a damaged or hostile file?")
        if sig in (signal.SIGSEGV, getattr(signal, "SIGBUS", -1), signal.SIGABRT):
            return (f"{what} crashed on it ({signal.Signals(sig).name}, often out of memory: "
                    f"the limit is {limits.memory_bytes / 1e6:,.0f} MB); a damaged or hostile file?")
        return f"{what} was stopped ({signal.Signals(sig).name})"
    return f"{what} failed (exit status {code})"


# -- the child's half ---------------------------------------------------------------------------
def limited(argv: list[str]) -> list[str]:
    """In the child, first thing: apply the limits its parent passed (``argv[1:3]``) and return
    the rest of its arguments."""
    set_limits(int(argv[1]), int(argv[2]))
    return argv[3:]


def set_limits(cpu_seconds: int, memory_bytes: int) -> None:
    try:
        import resource
    except ImportError:  # Windows: the parent's wall-clock limit still applies
        return
    for kind, value in ((getattr(resource, "RLIMIT_AS", None), memory_bytes),
                        (resource.RLIMIT_CPU, cpu_seconds)):
        if kind is None or value <= 0:
            continue
        try:
            hard = resource.getrlimit(kind)[1]
            soft = value if hard == resource.RLIM_INFINITY else min(value, hard)
            # CPU: SIGXCPU at the soft limit, SIGKILL a second later should it be caught
            resource.setrlimit(kind, (soft, soft + 1 if kind == resource.RLIMIT_CPU and
                                      hard == resource.RLIM_INFINITY else hard))
        except (ValueError, OSError):
            pass  # a platform that does not enforce it (macOS's RLIMIT_AS): the wall clock still does
