"""How every command writes its result: ``--json`` added to a command's parser once
(``add_json_option``), and one printer (``emit``) that prints the engine's ``to_json`` of the
result, or the command's human text. The JSON is the engine's schema, the same the MCP tools
and the Python API give; nothing here shapes a result of its own.

``say`` is print() for anything that may hold note-derived text; JSON is written with the text
as it is, but with nothing a terminal would obey.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable

from ..core.safe_text import UNSAFE, safe_text

JSON_HELP = "print the result as JSON (the schema the MCP tools and the Python API's to_json give)"


def say(*parts: object, file=None) -> None:
    """print() for anything that may hold note-derived text (titles, paths, snippets, reasons):
    control characters and escape sequences are shown, never sent raw to the terminal."""
    print(safe_text(" ".join(str(p) for p in parts)), file=file or sys.stdout)


def add_json_option(parser: argparse.ArgumentParser, help: str = JSON_HELP) -> argparse.ArgumentParser:
    """The command's ``--json`` (``args.json``), the same option on every command that has one."""
    parser.add_argument("--json", action="store_true", help=help)
    return parser


def as_json(result: object) -> object:
    """``result`` as JSON data: its ``to_json()``, a list's or dict's items each so."""
    if hasattr(result, "to_json"):
        return result.to_json()
    if isinstance(result, (list, tuple)):
        return [as_json(item) for item in result]
    if isinstance(result, dict):
        return {key: as_json(value) for key, value in result.items()}
    return result


# json.dumps escapes C0 controls itself; the rest of what safe_text replaces is escaped here
_JSON_UNSAFE = re.compile("[" + UNSAFE.pattern[1:-1].replace("\x00-\x1f", "") + "]")


def _json_safe(match: re.Match) -> str:
    return "".join(f"\\u{ord(ch):04x}" for ch in match.group())


def print_json(data: object) -> None:
    """JSON with the text as it is, but nothing a terminal would obey: json escapes C0
    controls itself; C1 controls, DEL, bidi overrides and lone surrogates are escaped here."""
    text = json.dumps(data, ensure_ascii=False, indent=2)
    sys.stdout.write(_JSON_UNSAFE.sub(_json_safe, text))
    sys.stdout.write("\n")


def emit(args: argparse.Namespace, result: object, human: Callable[[], object] | None = None) -> None:
    """The command's result: with ``--json`` its JSON (``as_json``), else ``human()`` prints it."""
    if getattr(args, "json", False) or human is None:
        print_json(as_json(result))
    else:
        human()
