"""Looking after the index on the command line: ``pms-tui doctor`` (what works, what is
damaged), ``repair`` (rebuild what is damaged from the notes) and ``compact`` (rewrite the
file without its free space).

A sync report's lines are handed in by ``add_parsers``, so this module never imports ``cli``
(no import cycle); ``doctor --json`` prints each check's ``to_json``.
"""

from __future__ import annotations

from collections.abc import Callable

from .output import add_json_option, emit, say
from .progress import tell_waiting
from ..core.errors import describe


def print_mcp_clients(home: str | None, say: Callable) -> None:
    """One line per agent: where its config runs pms-tui, and with which home, or that it does not."""
    from pathlib import Path

    from ..core.config import default_home
    from ..mcp_server.clients import configured

    this_home = str((Path(home).expanduser() if home else default_home()).absolute())
    for found in configured():
        client = found.target.name
        if found.name is None:
            status = "BAD" if found.problem else "   "
            text = found.problem or f"{client}: not configured (`pms-tui mcp install {found.target.key}`)"
        else:
            status = "BAD" if found.problem else "ok "
            which = "this home" if found.home == this_home else f"the home {found.home}"
            text = f"{client}: {found.name!r} with {which}, in {found.path}"
            if found.problem:
                text += f"; {found.problem}: run `pms-tui mcp install {found.target.key}` again"
        say(f"{status}  {'mcp client':<14} {text}")


def add_parsers(sub, say_report: Callable) -> None:
    def doctor(args) -> int:
        from ..core.kb import Check, KnowledgeBase, environment_checks

        try:
            kb = KnowledgeBase(home=args.home)
        except Exception as exc:
            checks = [*environment_checks(), Check("home", False, describe(exc)),
                      Check("repair", False, "if the index is damaged, `pms-tui repair` rebuilds it from your notes")]
        else:
            with kb:
                checks = kb.doctor.checks()
        def human() -> None:
            for check in checks:
                say(f"{'ok ' if check.ok else 'BAD'}  {check.label:<14} {check.detail}")
            print_mcp_clients(args.home, say)  # information: it does not change the exit status

        emit(args, checks, human)
        return 0 if all(check.ok for check in checks) else 1

    def repair(args) -> int:
        from .progress import SyncProgressBar
        from ..core.kb import repair_home

        with SyncProgressBar(quiet=False) as bar:
            steps, report = repair_home(args.home, progress=bar, wait=True, on_wait=tell_waiting)
        for step in steps:
            say(f"  {step}")
        say_report(report)
        return 0

    def compact(args) -> int:
        from ..core.kb import compact_home

        say("Compacting the index (a copy is written, then replaces it)...")
        before, after = compact_home(args.home, wait=True, on_wait=tell_waiting)
        saved = before.bytes - after.bytes
        say(f"{before.describe()} -> {after.describe()}" + (f" ({saved / 1e6:.1f} MB smaller)" if saved > 0 else ""))
        return 0

    p = sub.add_parser("doctor", help="check the driver, FTS5, sqlite-vec, the model, paths and the index's health")
    add_json_option(p, "the checks as JSON (label, ok, detail each)")
    p.set_defaults(func=doctor)
    p = sub.add_parser("repair", help="rebuild a damaged index from the notes, keeping the intact vectors")
    p.set_defaults(func=repair)
    p = sub.add_parser("compact", help="rewrite the index file without its free space (close the app first)")
    p.set_defaults(func=compact)
