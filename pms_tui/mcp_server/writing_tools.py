"""The writing tools, off unless the server was started with ``--allow-writes``: ``sync``
indexes what changed in the collections' folders, ``clip`` saves a web page as a note.

They run on the writer thread. A sync indexes the text (searchable at once) and leaves the
vectors to a drain that runs behind it on the same thread, so the call returns in seconds;
another process writing to the index makes it answer at once instead of waiting its turn.
"""

from __future__ import annotations

import os

from ..core.errors import SyncBusyError
from .inert import inert


def sync(runner, args: dict) -> dict:
    kb = runner.kb
    names = args.get("collections") or None
    kb.notes.check_collections(names)
    holder: list = []
    cancel = runner.cancel_event()

    def other_writer(pid) -> None:
        if pid == os.getpid():
            return  # this server's own embedding run, which hands the lock over between runs
        holder.append(pid)
        cancel.set()  # do not wait for it: say so

    report = kb.sync(collections=names, cancel=cancel, embed=False, on_wait=other_writer)
    if holder:
        who = f"pid {holder[0]}" if holder[0] else "another process"
        raise SyncBusyError(f"Another pms-tui ({who}) is writing to this index; what it indexes is searchable "
                            f"as it commits, and sync can run again when it is done.")
    data: dict = inert(report.to_json())
    if report.vectors_pending:
        runner.embed_behind()  # now, or once the model has loaded
    if report.vectors_pending and kb.model.ready:
        data["vectors"] = (f"{report.vectors_pending} passages are being embedded in the background; "
                           f"they are searchable by their words already.")
    return data


def clip(runner, args: dict) -> dict:
    kb = runner.kb
    col = kb.clipper.default_collection(args.get("collection"))
    result = kb.clipper.clip(args["url"], col, update=args["update"])
    return inert(result.to_json(col))
