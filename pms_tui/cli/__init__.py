"""The command line: ``pms-tui`` opens the terminal UI; subcommands serve scripts and tests.

Every error ends as one sentence on stderr and a non-zero exit, never a traceback. A short
function per subcommand and the parser naming them; the link graph's commands are in ``graph``,
doctor, repair and compact in ``upkeep``, progress and waiting messages in ``progress``.
"""

from __future__ import annotations

import argparse
import sys
import time

from .parsing import Parser, search_description
from .progress import tell_upgrade, tell_waiting, upgrade_index
from ..core.errors import UsageError, describe
from ..core.results import MODES
from .clip import add_parser as add_clip_parser
from .graph import NOTE_HELP, add_parsers as add_graph_parsers, link_summary
from .output import add_json_option, emit, print_json, say
from .upkeep import add_parsers as add_upkeep_parsers
from .writes import add_parsers as add_write_parsers
from ..core.results import no_collections_notice, note_id
from ..core.safe_text import safe_text


def _kb(args):
    """The command's KnowledgeBase. A search that embeds its query starts the query-vector
    service first, before the engine is imported: the vector is made meanwhile."""
    query, helper = getattr(args, "query", None), None
    if query and getattr(args, "mode", "bm25") in ("hybrid", "vector"):
        from ..core.query_vectors import start

        helper = start(args.home, query)
    from ..core.kb import KnowledgeBase

    kb = KnowledgeBase(home=args.home, upgrade_progress=tell_upgrade)
    if helper is not None:
        kb.model.expect_query_vector(helper)
    for warning in kb.settings.warnings:
        say(f"pms-tui: {warning}", file=sys.stderr)
    kb.index.on_writer_wait = tell_waiting  # a second writer waits its turn, and says for whom
    return kb


def _cancel_on_ctrl_c(work):
    """Run ``work(cancel)`` with the first ctrl+c setting ``cancel`` (the sync stops at the
    next note or embedding run, keeping what it wrote) and a second one interrupting."""
    import signal
    import threading

    cancel = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        return work(cancel)

    def on_sigint(signum, frame):
        if cancel.is_set():
            raise KeyboardInterrupt
        cancel.set()

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        return work(cancel)
    finally:
        signal.signal(signal.SIGINT, previous)


def _sync_with_bar(args, run) -> int:
    from .progress import SyncProgressBar

    def work(cancel):
        with SyncProgressBar(quiet=args.quiet) as bar:
            return run(bar, cancel)

    report = _cancel_on_ctrl_c(work)
    emit(args, report, lambda: say_report(report))
    if report.cancelled:
        left = f" ({report.vectors_pending} chunk texts still to embed)" if report.vectors_pending else ""
        print(f"Stopped: everything written so far is kept and the index is consistent; "
              f"run `pms-tui sync` to finish{left}.", file=sys.stderr)
        return 130
    return 0


# -- commands -------------------------------------------------------------------------------
def cmd_add(args) -> int:
    with _kb(args) as kb:
        col = kb.collections.create(args.path, name=args.name, description=args.description or "")
        notes, documents = col.file_counts()
        held = f"{notes} note{'s' * (notes != 1)}" + (f", {documents} document{'s' * (documents != 1)}" if documents else "")
        say(f"Added collection {col.name!r} ({col.path}, {held}). Run `pms-tui sync` to index it.")
        notice = kb.scope.guide_notice()  # the guide steps aside: said once, here or in the app
        if notice:
            say(notice)
    return 0


def cmd_collections(args) -> int:
    with _kb(args) as kb:
        for name, writable in [(n, True) for n in args.writable] + [(n, False) for n in args.read_only]:
            col = kb.collections.set_writable(name, writable)
            say(f"Agents may now write notes in {col.name!r}." if writable
                else f"{col.name!r} is read-only for agents.")
        if args.writable or args.read_only:
            return 0
        from ..core.results import CollectionSummary

        rows = CollectionSummary.all_of(kb)

        def human() -> None:
            if not rows:
                say(no_collections_notice())
            for r in rows:
                missing = "  (folder missing)" if not r.folder_exists else ""
                if not r.default_search:
                    missing += f"  (searched only when asked: in:{r.name})"
                missing += "  (writable)" if r.writable else ""
                say(f"{r.name:<20} {r.folder}{missing}")
                kinds = f" ({r.notes} notes, {r.documents} documents)" if r.documents else ""
                synced = time.strftime("%Y-%m-%d %H:%M", time.localtime(r.last_sync)) if r.last_sync else "never"
                say(f"{'':<20} {r.files} files{kinds}, {r.indexed} indexed, {r.chunks} chunks, last sync {synced}")

        emit(args, rows, human)
    return 0


def cmd_remove(args) -> int:
    with _kb(args) as kb:
        kb.collections.delete(args.name)
        say(f"Removed collection {args.name!r} from the index; its files were not touched.")
    return 0


def cmd_status(args) -> int:
    from ..core.results import IndexStatus, SyncStatus

    with _kb(args) as kb:
        status = IndexStatus.of(kb, args.collection)
        if args.json:
            emit(args, status)
            return 0
        if not status.plans:
            say(no_collections_notice())
            return 0
        total = SyncStatus(status.pending("to_add"), status.pending("to_delete"), status.pending("to_update"),
                           skipped=status.pending("skipped"))
        say(total.summary)
        if status.vectors_pending:
            how = (f"pms-tui (pid {status.embedding_by}) is embedding them now" if status.embedding_by
                   else "`pms-tui sync` embeds them")
            say(f"  {status.vectors_pending} chunk texts are waiting for their vectors (searchable by their words "
                f"already); {how}.")
        for col in status.collections:
            part = status.plans[col.name]
            note = "" if col.folder_exists else "  (folder missing)"
            skipped = f", {len(part.skipped)} skipped" if part.skipped else ""
            say(f"  {col.name}: +{len(part.to_add)} new, ~{len(part.to_update)} modified, "
                  f"-{len(part.to_delete)} deleted{skipped}{note}; {link_summary(status.links.get(col.name, {}))}")
            counted = status.documents.get(col.name)
            if counted is not None and (counted.indexed or counted.skipped):
                say(f"    {counted.describe()}")
                if not args.verbose:  # (-v lists every skipped file below)
                    for rel, why in counted.skipped:
                        say(f"    ! {note_id(col.name, rel)}: {why}")
        if args.verbose:
            for label, items in (("+", total.to_add), ("~", total.to_update), ("-", total.to_delete)):
                for item in items:
                    say(f"    {label} {item}")
            for item, why in total.skipped:
                say(f"    ! {item}: {why}")
    return 0


def say_report(report) -> None:
    """A sync's (or reindex's, repair's) report as lines of text."""
    say(report.summary)
    for problem in report.problems:
        say(f"  ! {problem}")
    for path in report.documents:
        say(f"  read {path}")
    for path, reason in report.skipped:
        say(f"  skipped {path}: {reason}")


def cmd_sync(args) -> int:
    with _kb(args) as kb:
        if not kb.collections.list():
            say(no_collections_notice())
            return 0
        return _sync_with_bar(args, lambda bar, cancel: kb.sync(progress=bar, collections=args.collection,
                              cancel=cancel, on_wait=tell_waiting, embed=not args.no_embed,
                              retry_skipped=args.retry_skipped))


def cmd_watch(args) -> int:
    """Sync once, then index notes as they are saved until ctrl+c (the app does the same)."""
    import threading

    with _kb(args) as kb:
        if not kb.collections.list():
            say(no_collections_notice())
            return 0
        code = _sync_with_bar(args, lambda bar, cancel: kb.sync(progress=bar, cancel=cancel, on_wait=tell_waiting))
        if code:
            return code
        stop = threading.Event()

        def on_mode(text: str) -> None:
            say(f"{text[0].upper()}{text[1:]}: {len(kb.collections.list())} collection(s); ctrl+c stops.",
                file=sys.stderr)

        def on_sync(report) -> None:
            if report.changed or report.skipped:
                say_report(report)  # through say(): a path from the folder is sanitised
                sys.stdout.flush()

        watcher = threading.Thread(target=kb.index.watch, args=(stop,), kwargs={"on_sync": on_sync, "on_mode": on_mode},
                                   name="pms-watch", daemon=True)
        watcher.start()
        try:
            while watcher.is_alive():
                watcher.join(0.5)
        except KeyboardInterrupt:
            stop.set()
            watcher.join(10)
            print("Stopped watching; the index is consistent.", file=sys.stderr)
    return 0


def cmd_reindex(args) -> int:
    with _kb(args) as kb:
        return _sync_with_bar(args, lambda bar, cancel: kb.reindex(progress=bar, cancel=cancel))


def _plain_snippet(text: str) -> str:
    from ..core.results import SNIPPET_CLOSE, SNIPPET_OPEN

    text = safe_text(" ".join(text.split()))
    if sys.stdout.isatty():
        return text.replace(SNIPPET_OPEN, "\x1b[1;33m").replace(SNIPPET_CLOSE, "\x1b[0m")
    return text.replace(SNIPPET_OPEN, "*").replace(SNIPPET_CLOSE, "*")


def cmd_search(args) -> int:
    with _kb(args) as kb:
        started = time.perf_counter()
        result = kb.search(args.query, k=args.k, mode=args.mode, collections=args.collection)
        elapsed = (time.perf_counter() - started) * 1000
        if args.min_score is not None:  # for scripts
            result = result.keeping(lambda hit: hit.score >= args.min_score)
        if args.json:  # the engine's schema; each hit with its passage's text and evidence
            print_json(result.to_json(evidence=lambda hit: kb.searcher.evidence(result, hit)))
            return 0
        for item in result.query.ignored:
            say(f"ignored {item.text}: {item.reason}", file=sys.stderr)
        if not result:
            say(kb.searcher.empty_index_notice() or "No matches.")
            return 0
        if result.weak:
            say("No note matches well; the nearest:")
        for i, h in enumerate(result, 1):
            ranks = "bm25 {}  vec {}".format(*(f"#{r}" if r else "-" for r in (h.bm25_rank, h.vector_rank)))
            say(f"{i:>2}. {h.score:.2f}  {ranks}  {note_id(h.collection, h.relpath)}:{h.start_line}")
            crumb = " › ".join(h.heading_path)
            say(f"    {h.title}" + (f"  ({crumb})" if crumb and crumb != h.title else ""))
            print(f"    {_plain_snippet(h.snippet)}")  # sanitised inside
            if args.explain:
                for line in kb.searcher.evidence(result, h).lines():
                    say(f"      {line}")
        chips = " ".join(result.query.chips())
        say(f"({len(result)} hit{'' if len(result) == 1 else 's'} in {elapsed:.0f} ms; lanes: {', '.join(result.lanes) or 'none'}"
            f"{'; filters: ' + chips if chips else ''}{''.join('; ' + n for n in result.notes)})", file=sys.stderr)
    return 0


def cmd_explain(args) -> int:
    with _kb(args) as kb:
        explanation = kb.searcher.explain(args.query, args.note, collections=args.collection)
        emit(args, explanation, lambda: say("\n".join(explanation.lines())))
    return 0


def cmd_show(args) -> int:
    with _kb(args) as kb:
        note = kb.notes.note(args.target)  # collection/path, a path or a name, with :LINE or :START-END
        read = kb.notes.read(note)  # from inside its folder; a line past the end is an error
        if args.json:  # the lines named (or the whole note), as MCP get gives them
            print_json(read.to_json(kb))
            return 0
        first, last = read.first, read.last
        chunks = kb.chunks_of(note.collection, note.relpath)
        if note.start_line is not None:
            chunks = [c for c in chunks if c.end_line >= first and c.start_line <= last] or chunks[:1]
        printed: list[str] = []  # the lines printed so far, to the last line of ``last_line``
        last_line = 0
        for c in chunks:
            lines, start = c.text.split("\n"), c.start_line
            overlap = last_line - c.start_line + 1  # passages share lines at their seams
            if 0 < overlap < len(lines) and lines[:overlap] == printed[-overlap:]:
                lines, start = lines[overlap:], start + overlap  # each line of the note once
            elif overlap >= len(lines) > 0 and lines == printed[-overlap:][:len(lines)]:
                continue
            crumb = " › ".join(c.heading_path)
            say(f"── {note.id}:{start}-{c.end_line}  {crumb}")
            say("\n".join(lines))
            say()
            printed, last_line = printed + lines, max(last_line, c.end_line)
    return 0


def cmd_eval(args) -> int:
    from ..eval.cli import run_eval

    return run_eval(args)


def cmd_tui(args) -> int:
    try:
        from ..tui.app import run_app
    except ImportError as exc:
        raise UsageError(f"The terminal UI cannot start: {exc}.") from None
    upgrade_index(args.home)
    return run_app(home=args.home) or 0


# -- parser ---------------------------------------------------------------------------------
class _VersionAction(argparse.Action):
    """``--version``: the package's version is read only when asked (importlib.metadata and the
    email parser it brings would otherwise be part of every ``pms-tui`` start, the app's included)."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        from .. import __version__

        print(f"{parser.prog} {__version__}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pms-tui", description="Private, local search for your Markdown notes. "
                                     "With no command, opens the terminal UI.")
    parser.add_argument("--home", help="folder of the index and config.toml (default: PMS_TUI_HOME or user data dir)")
    parser.add_argument("--version", action=_VersionAction, nargs=0, help="show the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    p = sub.add_parser("add", help="add a folder of notes as a collection")
    p.add_argument("path")
    p.add_argument("--name", help="collection name (default: the folder name)")
    p.add_argument("--description", default="")
    p.set_defaults(func=cmd_add)
    p = sub.add_parser("collections", help="list collections (--writable NAME: agents may write in it)")
    add_json_option(p)
    p.add_argument("--writable", action="append", default=[], metavar="NAME", help="let agents write notes in it")
    p.add_argument("--read-only", action="append", default=[], metavar="NAME", help="no writes in it (the default)")
    p.set_defaults(func=cmd_collections)
    p = sub.add_parser("remove", help="forget a collection (its files are not touched)")
    p.add_argument("name")
    p.set_defaults(func=cmd_remove)
    p = sub.add_parser("status", help="what a sync would change")
    p.add_argument("-c", "--collection", action="append")
    p.add_argument("-v", "--verbose", action="store_true", help="list the files")
    add_json_option(p)
    p.set_defaults(func=cmd_status)
    p = sub.add_parser("sync", help="index what changed (ctrl+c stops; the next sync carries on)")
    p.add_argument("-c", "--collection", action="append")
    add_json_option(p)
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.add_argument("--no-embed", action="store_true", help="text only; the next sync embeds the vectors")
    p.add_argument("--retry-skipped", action="store_true",
                   help="try every skipped file again now (a skip that can pass is retried on its own, later)")
    p.set_defaults(func=cmd_sync)
    p = sub.add_parser("watch", help="sync, then index notes as they are saved (ctrl+c stops)")
    add_json_option(p, "the first sync's report as JSON")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar for the first sync")
    p.set_defaults(func=cmd_watch)

    p = sub.add_parser("reindex", help="re-embed everything (after a model change)")
    add_json_option(p)
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_reindex)

    p = sub.add_parser("search", help="hybrid search (the search language: see the README)")
    p.describe = search_description
    p.add_argument("query")
    p.add_argument("-k", type=int, default=10)
    p.add_argument("-c", "--collection", action="append")
    # not argparse's choices: the engine checks the mode, with the sentence every front end gives
    p.add_argument("--mode", default="hybrid", metavar="{" + ",".join(MODES) + "}")
    add_json_option(p, "the search's answer as JSON: the parsed query, and each hit with its text and evidence")
    p.add_argument("--explain", action="store_true", help="print why each hit ranks where it does")
    p.add_argument("--min-score", type=float, metavar="X", help="drop hits whose fused score (0..1) is below X")
    p.set_defaults(func=cmd_search)
    p = sub.add_parser("explain", help="where a note ranks for a query, lane by lane, and why")
    p.add_argument("query")
    p.add_argument("note", help=NOTE_HELP)
    p.add_argument("-c", "--collection", action="append")
    add_json_option(p)
    p.set_defaults(func=cmd_explain)

    add_graph_parsers(sub, _kb)  # links, backlinks, related
    p = sub.add_parser("show", help="print an indexed note, or its passages at NOTE:LINE or NOTE:START-END")
    p.add_argument("target", metavar="NOTE[:LINE]", help=NOTE_HELP)
    add_json_option(p, "the note (or the lines named) as JSON, as MCP get gives it")
    p.set_defaults(func=cmd_show)

    from ..mcp_server.command import add_mcp_parser  # argparse only: the MCP SDK loads when `mcp` runs
    add_mcp_parser(sub)
    add_clip_parser(sub, _kb)

    add_upkeep_parsers(sub, say_report)  # doctor, repair, compact
    add_write_parsers(sub, _kb)  # new, append, section, set, mv, rm, undo, history, recent

    p = sub.add_parser("eval", help="measure retrieval quality")
    eval_sub = p.add_subparsers(dest="eval_kind", metavar="KIND", required=True)
    e = eval_sub.add_parser("beir", help="BEIR-style test collections (corpus.jsonl.gz, topics, qrels)")
    e.add_argument("dir", nargs="+", help="one or more collection folders, each reported, then a summary")
    e.add_argument("--mode", choices=(*MODES, "all"), default="all")
    add_json_option(e, "the report as JSON")
    e.add_argument("--limit", type=int, default=None, help="only the first N queries")
    e = eval_sub.add_parser("known-item", help="known-item queries over a folder of notes")
    e.add_argument("file")
    e.add_argument("--collection", required=True, help="folder of Markdown notes")
    e.add_argument("--mode", choices=(*MODES, "all"), default="all")
    add_json_option(e, "the report as JSON")
    p.set_defaults(func=cmd_eval)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", cmd_tui)
    try:
        return func(args)
    except KeyboardInterrupt:
        print("Interrupted.", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # the last line of defence: one sentence, no traceback
        say(f"pms-tui: {describe(exc)}", file=sys.stderr)
        return 1
