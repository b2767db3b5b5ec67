"""A TOML config file (Codex CLI's ``config.toml``) with one server's table set or taken out,
every other byte as it was.

Our server is one table, ``[mcp_servers.NAME]``, written by tomlkit (MIT, maintained; the
TOML library that keeps a document's comments and layout when it writes one back, which the
standard library's ``tomllib`` only reads): install appends it after a blank line, or
replaces the body of the table where it already is; uninstall takes that table out with the
blank line install put before it (a file without a newline at its end keeps none).
``clients`` checks each edit with ``tomllib``, and when one
does not read back as intended (the servers written as an inline table, say) the document is
edited through tomlkit instead, which keeps the rest of the file but may move blank lines.

The text comes with ``\\n`` line endings (``clients`` turns a CRLF file's into ``\\n`` and back).
"""

from __future__ import annotations

import re
import tomllib

import tomlkit


def parse(text: str) -> dict:
    """The TOML document of ``text``; ValueError saying where it is not TOML."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(str(exc)) from None


def _block(servers_key: str, name: str, entry: dict) -> str:
    return tomlkit.dumps({servers_key: {name: entry}})


def _header(servers_key: str, name: str) -> re.Pattern[str]:
    """The line ``[mcp_servers.NAME]`` (NAME bare or quoted, spaces and a comment allowed)."""
    key = re.escape(name) if re.fullmatch(r"[A-Za-z0-9_-]+", name) else "(?!)"
    quoted = re.escape(tomlkit.dumps({name: 0}).split(" = ", 1)[0])
    return re.compile(rf"^[ \t]*\[[ \t]*{re.escape(servers_key)}[ \t]*\.[ \t]*(?:{key}|{quoted})[ \t]*\][ \t]*(?:#.*)?$",
                      re.MULTILINE)


_NEXT_TABLE = re.compile(r"^[ \t]*\[", re.MULTILINE)


def _span(text: str, servers_key: str, name: str) -> tuple[int, int] | None:
    """Where the table of ``name`` starts and where the next table starts (or the text ends)."""
    found = list(_header(servers_key, name).finditer(text))
    if len(found) != 1:
        return None
    after = _NEXT_TABLE.search(text, found[0].end())
    return found[0].start(), after.start() if after else len(text)


def set_entry(text: str, servers_key: str, name: str, entry: dict) -> str:
    block = _block(servers_key, name, entry)
    span = _span(text, servers_key, name)
    if span is not None:
        start, end = span
        old = text[start:end]
        trailing = old[len(old.rstrip("\n")) + 1:] if old.endswith("\n") else ""
        if not old.endswith("\n"):
            block = block.rstrip("\n")  # the file's last line, without a newline, as it was
        return text[:start] + block + trailing + text[end:]
    if not text.strip():
        return block
    if text.endswith("\n"):
        return text + "\n" + block
    return text + "\n\n" + block.rstrip("\n")  # a file without a last newline stays so


def remove_entry(text: str, servers_key: str, name: str, drop_empty: bool) -> str:
    """``text`` without the table of ``name`` (``drop_empty``: no other table of TOML's to keep)."""
    span = _span(text, servers_key, name)
    if span is None:
        raise ValueError("the server's table is not found as one [table]")
    start, end = span
    before, after = text[:start], text[end:]
    if after:
        return before + after
    # at the end: install put a blank line before it, and the file's last newline after it
    # when the file had one (else the newline that ended the file's last line before it)
    if before.endswith("\n\n"):
        return before[:-1] if text.endswith("\n") else before[:-2]
    return before


def render(text: str, servers_key: str, name: str, entry: dict | None) -> str:
    """The document edited through tomlkit: the rest of the file kept, its blank lines maybe not."""
    doc = tomlkit.parse(text)
    if entry is not None:
        if servers_key not in doc:
            doc[servers_key] = tomlkit.table(is_super_table=True)
        doc[servers_key][name] = entry
    else:
        servers = doc.get(servers_key)
        if servers is not None and name in servers:
            del servers[name]
            if not servers:
                del doc[servers_key]
    return tomlkit.dumps(doc)
