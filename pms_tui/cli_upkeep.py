"""Looking after the index on the command line: ``pms-tui doctor`` (what works, what is
damaged), ``repair`` (rebuild what is damaged from the notes) and ``compact`` (rewrite the
file without its free space).

The printing helpers it needs from ``cli`` are handed in by ``add_parsers``, so this module
never imports ``cli`` (no import cycle).
"""

from __future__ import annotations

from collections.abc import Callable

from .cli_progress import tell_waiting
from .core.errors import describe


def add_parsers(sub, say: Callable, print_report: Callable) -> None:
    def doctor(args) -> int:
        from .core.kb import Check, KnowledgeBase, environment_checks

        try:
            kb = KnowledgeBase(home=args.home)
        except Exception as exc:
            checks = [*environment_checks(), Check("home", False, describe(exc)),
                      Check("repair", False, "if the index is damaged, `pms-tui repair` rebuilds it from your notes")]
        else:
            with kb:
                checks = kb.diagnose()
        for check in checks:
            say(f"{'ok ' if check.ok else 'BAD'}  {check.label:<14} {check.detail}")
        return 0 if all(check.ok for check in checks) else 1

    def repair(args) -> int:
        from .cli_progress import SyncProgressBar
        from .core.kb import repair_home

        with SyncProgressBar(quiet=False) as bar:
            steps, report = repair_home(args.home, progress=bar, wait=True, on_wait=tell_waiting)
        for step in steps:
            say(f"  {step}")
        print_report(report, False)
        return 0

    def compact(args) -> int:
        from .core.kb import compact_home

        say("Compacting the index (a copy is written, then replaces it)...")
        before, after = compact_home(args.home, wait=True, on_wait=tell_waiting)
        saved = before.bytes - after.bytes
        say(f"{before.describe()} -> {after.describe()}" + (f" ({saved / 1e6:.1f} MB smaller)" if saved > 0 else ""))
        return 0

    p = sub.add_parser("doctor", help="check the driver, FTS5, sqlite-vec, the model, paths and the index's health")
    p.set_defaults(func=doctor)
    p = sub.add_parser("repair", help="rebuild a damaged index from the notes, keeping the intact vectors")
    p.set_defaults(func=repair)
    p = sub.add_parser("compact", help="rewrite the index file without its free space (close the app first)")
    p.set_defaults(func=compact)
