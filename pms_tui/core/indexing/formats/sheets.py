"""Spreadsheets (.xlsx, .ods): each sheet a heading (its name) over a Markdown table of its
rows, bounded: the first :data:`MAX_ROWS` rows that hold a value, of :data:`MAX_COLUMNS`
columns, each cell at most :data:`MAX_CELL` characters; a sheet cut there ends with a
sentence saying how much was left out. Empty rows are not rows.

Why python-calamine (MIT; Rust's calamine, wheels on PyPI for every platform) rather than
openpyxl: one library reads both Excel's and OpenDocument's format (openpyxl reads .xlsx only;
.ods would need odfpy, which has no wheel and builds the whole document tree), and it is fast
where a hostile file makes openpyxl slow: a 1000 x 1000 sheet of formatted empty cells takes
openpyxl's streaming reader 20 s and calamine 0.5 s (measured here). calamine refuses an
OpenDocument sheet of more than 100 million cells with an error (a million rows of 16,000
repeated empty cells); an Excel sheet with two cells far apart asks for a dense range that the
reader's memory limit stops at once (the process is stopped, and the skip says so). Values
are shown as the sheet holds them: numbers without a trailing ``.0``, dates in ISO form.
"""

from __future__ import annotations

import datetime as dt

from ..document_reader import clean
from . import archive
from .archive import Refused

MAX_ROWS = 2_000
MAX_COLUMNS = 40
MAX_CELL = 300
# calamine parses a sheet's XML whole: this bounds its time and memory (a real sheet of
# 100,000 rows x 20 columns is about 60 MB of XML)
MAX_INFLATED_SHEETS = 256_000_000


def read(path: str, max_chars: int) -> dict:
    what = "OpenDocument spreadsheet" if path.lower().endswith(".ods") else "Excel"
    try:
        with archive.open_zip(path, what) as book:
            archive.check_inflated(book, xml_limit=MAX_INFLATED_SHEETS)
    except Refused as exc:
        return {"skip": str(exc)}
    from python_calamine import CalamineError, CalamineWorkbook

    try:
        workbook = CalamineWorkbook.from_path(path)
    except (CalamineError, ValueError, OSError) as exc:
        if "password" in str(exc).lower():
            return {"skip": f"a password-protected {what} file; it cannot be read without its password"}
        if "limit" in str(exc).lower():  # calamine's own bound (an OpenDocument sheet of 100 million cells)
            return {"skip": f"a sheet too large to read ({str(exc)[:120]}); a hostile file?"}
        return {"skip": f"not a readable {what} file ({type(exc).__name__}: {str(exc)[:120]})"}
    out: list[str] = []
    size = 0
    failures: list[tuple[str, str]] = []  # (the sheet's heading, why it could not be read)
    for name in workbook.sheet_names:
        heading = "# " + (" ".join(str(name).split()) or "sheet")
        try:
            rows = workbook.get_sheet_by_name(name).iter_rows()
            table = _table(rows)
        except (CalamineError, ValueError) as exc:
            failures.append((heading, str(exc)[:160]))
            continue
        if table:
            out.append(f"{heading}\n\n{table}")
            size += len(out[-1])
            if size > max_chars:
                break
    if not out and failures:  # nothing but sheets that could not be read: a skip, not a document
        return {"skip": f"its sheets could not be read ({failures[0][1]})"}
    out += [f"{heading}\n\nThis sheet could not be read ({why})." for heading, why in failures]
    text = clean("\n\n".join(out) + "\n") if out else ""
    return {"markdown": text[:max_chars], "truncated": max(len(text) - max_chars, 0)}


def _table(rows) -> str:
    kept: list[list[str]] = []
    more_rows, more_columns = 0, 0
    for row in rows:
        if len(kept) >= MAX_ROWS:
            if any(v not in ("", None) for v in row):
                more_rows += 1
            continue
        cells = [_cell(v) for v in row[:MAX_COLUMNS]]
        if len(row) > MAX_COLUMNS and any(v not in ("", None) for v in row[MAX_COLUMNS:]):
            more_columns = max(more_columns, len(row) - MAX_COLUMNS)
        if any(cells):
            kept.append(cells)
    if not kept:
        return ""
    width = max(max((i + 1 for i, c in enumerate(r) if c), default=0) for r in kept)
    lines = ["| " + " | ".join((r + [""] * width)[:width]) + " |" for r in kept]
    lines.insert(1, "|" + " --- |" * width)
    if more_rows or more_columns:
        parts = ([f"{more_rows:,} more row{'s' if more_rows != 1 else ''}"] if more_rows else []) + (
            [f"up to {more_columns:,} more column{'s' if more_columns != 1 else ''}"] if more_columns else [])
        lines.append(f"\nThe sheet goes on: {' and '.join(parts)} are not indexed (a sheet is indexed up to "
                     f"{MAX_ROWS:,} rows of {MAX_COLUMNS} columns).")
    return "\n".join(lines)


def _cell(value: object) -> str:
    if value is None or value == "":
        return ""
    if isinstance(value, bool):
        text = "TRUE" if value else "FALSE"
    elif isinstance(value, float):
        text = str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    elif isinstance(value, (dt.datetime, dt.date, dt.time)):
        text = value.isoformat()
    else:
        text = str(value)
    text = " ".join(text.split())
    if len(text) > MAX_CELL:
        text = text[:MAX_CELL] + "…"
    return text.replace("\\", "\\\\").replace("|", "\\|")
