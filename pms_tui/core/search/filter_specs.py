"""The search language's filters, one spec each; everything else is made from this table.

The parser (``query_syntax``) reads ``name:value`` by the spec's name, aliases, negation and
``read``; the planner (``filters.plan``) asks each spec for its condition, SQL over the notes or
FTS5 over the words; a ``ParsedQuery`` keeps the values by filter and writes its chips and its
JSON from the specs; the search bar completes the values of the specs that say ``completes``;
and every help text (the MCP tool's and the server's instructions, the CLI's help, the app's F1,
the README's table and the guide's page, the last two checked by a test) is written from
``summary`` and ``rows``. Adding a filter is one ``FilterSpec`` in ``FILTERS`` and its tests.
"""

from __future__ import annotations

import datetime as _dt
import re
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from ..markdown import file_name
from ..store import agent_changes, facets

# What ``read`` gives back: the value(s) the filter keeps, or the sentence saying why the
# value was left out (it is shown struck out under the search bar and under "ignored").
Read = str | list[str]
_WORD = re.compile(r"\w+", re.UNICODE)
_REL = re.compile(r"(\d{1,5})\s*([dwmy])", re.IGNORECASE)
_YEAR = re.compile(r"(\d{4})")
_MONTH = re.compile(r"(\d{4})-(\d{1,2})")
_DAY = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})")


class Refused(str):
    """``read``'s answer for a value the filter cannot take: the reason, one short sentence."""


@dataclass(frozen=True)
class Context:
    """What a condition may need besides its values: collection name -> id (``path:NAME/``)."""

    collections: dict[str, int]


NotesCondition = Callable[[Sequence[str], bool, Context], tuple[str, list]]


@dataclass(frozen=True)
class FilterSpec:
    name: str  # as typed: ``tag``
    field: str  # its values' key in ParsedQuery.to_json(): ``tags`` (negated: ``not_tags``)
    form: str  # how help texts show it: ``tag:NAME``
    example: str  # ``tag:git``
    meaning: str  # what it keeps, for help texts: "notes tagged so (...)"
    read: Callable[[str, _dt.date], Read | Refused]
    aliases: tuple[str, ...] = ()
    negatable: bool = False
    # several values: "all" must hold, "any" of them; "latest" / "earliest" keep one value
    combine: str = "all"
    # exactly one of these: a condition on notes (SQL over ``documents d``), or FTS5 parts
    # every passage must match (they also score in BM25)
    notes: NotesCondition | None = None
    words: Callable[[Sequence[str]], list[str]] | None = None
    # the values the search bar completes, from the index, the most used first (None: no completion)
    choices: Callable[[sqlite3.Connection], list[str]] | None = None
    negated_example: str = ""  # shown beside the example in the README's table
    not_negatable: str = ""  # the sentence for a negation it refuses (default: "-NAME: cannot be negated")

    @property
    def single(self) -> bool:
        """One value kept (a date), written out as a value or null rather than a list."""
        return self.combine in ("latest", "earliest")

    def chip(self, value: str, negated: bool = False) -> str:
        return f"{'-' if negated else ''}{self.name}:{chip_value(value)}"

    def needs_value(self) -> Refused:
        return Refused(f"{self.name}: needs a value, e.g. {self.example}")


def chip_value(text: str) -> str:
    """A filter value as typed back: quoted when it holds a space."""
    return f'"{text}"' if any(c.isspace() for c in text) else text


def fts_quote(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


# -- reading values --------------------------------------------------------------------------
def _read_tag(value: str, today: _dt.date) -> Read | Refused:
    return value.lstrip("#").strip().lower() or Refused("tag: needs a value, e.g. tag:git")


def _read_path(value: str, today: _dt.date) -> Read | Refused:
    value = value.replace("\\", "/").lstrip("/")
    value = value[2:] if value.startswith("./") else value
    return value or Refused("path: needs a value, e.g. path:git/")


def _read_collection(value: str, today: _dt.date) -> Read | Refused:
    return value


def _read_title(value: str, today: _dt.date) -> Read | Refused:
    words = [w.lower() for w in _WORD.findall(value)]
    return words or Refused(f"title:{value} holds no word")


def _read_note_name(name: str) -> Callable[[str, _dt.date], Read | Refused]:
    def read(value: str, today: _dt.date) -> Read | Refused:
        value = file_name(value)
        return value or Refused(f"{name}: needs a note's name, e.g. {_EXAMPLES[name]}")
    return read


def _read_day(name: str) -> Callable[[str, _dt.date], Read | Refused]:
    def read(value: str, today: _dt.date) -> Read | Refused:
        day = parse_date(value, today)
        if day is None:
            return Refused(f"{name}:{value} is not a date (2024, 2024-05, 2024-05-17, today, 7d, 2w, 3m, 1y)")
        return day.isoformat()
    return read


def parse_date(value: str, today: _dt.date) -> _dt.date | None:
    """The first day a date value names, or None when it is not a date."""
    value = value.strip().lower()
    if value == "today":
        return today
    if value == "yesterday":
        return today - _dt.timedelta(days=1)
    try:
        if m := _REL.fullmatch(value):
            n, unit = int(m.group(1)), m.group(2).lower()
            if unit == "d":
                return today - _dt.timedelta(days=n)
            if unit == "w":
                return today - _dt.timedelta(weeks=n)
            months = n * (12 if unit == "y" else 1)
            year, month = divmod(today.year * 12 + today.month - 1 - months, 12)
            if year < 1:
                return None
            return _dt.date(year, month + 1, min(today.day, _month_days(year, month + 1)))
        if m := _DAY.fullmatch(value):
            return _dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        if m := _MONTH.fullmatch(value):
            return _dt.date(int(m.group(1)), int(m.group(2)), 1)
        if m := _YEAR.fullmatch(value):
            return _dt.date(int(m.group(1)), 1, 1)
    except (ValueError, OverflowError):
        return None
    return None


def _month_days(year: int, month: int) -> int:
    nxt = _dt.date(year + month // 12, month % 12 + 1, 1)
    return (nxt - _dt.timedelta(days=1)).day


# -- conditions ------------------------------------------------------------------------------
def _tags(values: Sequence[str], negated: bool, ctx: Context) -> tuple[str, list]:
    return facets.tags_condition(values, negated)


def _paths(values: Sequence[str], negated: bool, ctx: Context) -> tuple[str, list]:
    return facets.paths_condition(path_prefixes(values, ctx.collections), negated)


def path_prefixes(paths: Sequence[str], collections: dict[str, int]) -> list[tuple[int | None, str]]:
    """Each path prefix as (None, prefix) - in any collection - plus (id, rest) for each
    collection whose name it starts with (``notes/git/`` is ``git/`` in the collection notes)."""
    out: list[tuple[int | None, str]] = []
    for prefix in paths:
        out.append((None, prefix))
        for name, cid in collections.items():
            if prefix == name or prefix.startswith(name + "/"):
                out.append((cid, prefix[len(name) + 1:]))
    return out


def _collections(values: Sequence[str], negated: bool, ctx: Context) -> tuple[str, list]:
    return facets.collections_condition(values, negated)


def _links(direction: str) -> NotesCondition:
    def condition(values: Sequence[str], negated: bool, ctx: Context) -> tuple[str, list]:
        return facets.links_condition(values, direction)
    return condition


def _day(op: str) -> NotesCondition:
    def condition(values: Sequence[str], negated: bool, ctx: Context) -> tuple[str, list]:
        return facets.day_condition(op, values[0])
    return condition


def _read_changed(value: str, today: _dt.date) -> Read | Refused:
    if value.lower() != "agent":
        return Refused(f"changed:{value} is not known; changed:agent finds the notes an agent wrote")
    return "agent"


def _changed(values: Sequence[str], negated: bool, ctx: Context) -> tuple[str, list]:
    return ("NOT " if negated else "") + agent_changes.CHANGED_BY_AGENT_SQL, []


def _titles(values: Sequence[str]) -> list[str]:
    return [f"title : {fts_quote(t)}" for t in values]


_EXAMPLES = {"linksto": 'linksto:"Project Alpha"', "linkedfrom": "linkedfrom:Home"}

class FilterTable:
    """The specs in the order help texts list them, found by name or alias, and what the front
    ends make of them: help texts, completion and its choices."""

    def __init__(self, specs: Sequence[FilterSpec]) -> None:
        self._specs: list[FilterSpec] = []
        self._by_name: dict[str, FilterSpec] = {}
        for one in specs:
            self.register(one)

    def register(self, one: FilterSpec) -> None:
        """Add a filter (its name and aliases must be new)."""
        taken = [n for n in (one.name, *one.aliases) if n in self._by_name]
        if taken:
            raise ValueError(f"a filter is already named {taken[0]!r}")
        self._specs.append(one)
        self._by_name |= {n: one for n in (one.name, *one.aliases)}

    def get(self, name: str) -> FilterSpec | None:
        """The filter called ``name`` (or one of its aliases), any case."""
        return self._by_name.get(name.lower())

    def __iter__(self) -> Iterator[FilterSpec]:
        return iter(list(self._specs))

    def __len__(self) -> int:
        return len(self._specs)

    def summary(self) -> str:
        return summary(self)

    def prose(self) -> str:
        return prose(self)

    def rows(self) -> list[str]:
        return rows(self)

    def complete(self, text: str, values: Callable[[str], Sequence[str]]) -> str | None:
        return complete(self, text, values)

    def choices(self, conn: sqlite3.Connection) -> dict[str, list[str]]:
        """{filter name: the values its completion offers} of each filter that completes."""
        return {s.name: s.choices(conn) for s in self if s.choices is not None}


FILTERS = FilterTable((
    FilterSpec("tag", "tags", "tag:NAME", "tag:git",
               "notes tagged so (frontmatter `tags:` or an inline `#git`; `git/...` too)",
               _read_tag, aliases=("tags",), negatable=True, combine="all", notes=_tags,
               choices=lambda conn: [t for t, _ in facets.tag_counts(conn)],
               negated_example="-tag:draft"),
    FilterSpec("path", "paths", "path:PREFIX/", "path:git/",
               "notes whose path (or `collection/path`) starts so",
               _read_path, aliases=("file",), negatable=True, combine="any", notes=_paths, choices=facets.folders,
               negated_example="-path:archive/"),
    FilterSpec("in", "collections", "in:COLLECTION", "in:work", "notes of that collection",
               _read_collection, aliases=("collection", "col"), negatable=True, combine="any",
               notes=_collections, choices=facets.collection_names, negated_example="-in:old"),
    FilterSpec("title", "titles", "title:WORD", "title:rebase", "notes with that word in their title",
               _read_title, words=_titles),
    FilterSpec("after", "after", "after:DATE", "after:2024-05",
               "notes dated on or after it: a day, month or year, or a time ago (`7d`, `2w`, `3m`, `1y`); a note's "
               "date is its frontmatter `updated`/`date`/`created`, else the file's",
               _read_day("after"), aliases=("since",), combine="latest", notes=_day(">="),
               not_negatable="-after: cannot be negated; use before: instead"),
    FilterSpec("before", "before", "before:DATE", "before:2025", "notes dated before it (`before:2025`: up to the end of 2024)",
               _read_day("before"), aliases=("until",), combine="earliest", notes=_day("<"),
               not_negatable="-before: cannot be negated; use after: instead"),
    FilterSpec("linksto", "links_to", "linksto:NOTE", _EXAMPLES["linksto"], "notes linking to that note",
               _read_note_name("linksto"), aliases=("links", "linkto"), notes=_links("to")),
    FilterSpec("linkedfrom", "linked_from", "linkedfrom:NOTE", _EXAMPLES["linkedfrom"],
               "notes that note links to", _read_note_name("linkedfrom"), aliases=("from",),
               notes=_links("from")),
    FilterSpec("changed", "changed", "changed:agent", "changed:agent",
               'notes written through `pms-tui mcp` or `kb.write` (see "Writing from an agent")',
               _read_changed, negatable=True, notes=_changed, negated_example="-changed:agent"),
))


# -- help texts ------------------------------------------------------------------------------
def summary(table: Iterable[FilterSpec]) -> str:
    """The filters on one line, as the CLI's, the app's and the MCP tool's help give them."""
    specs = list(table)
    negatable = ", ".join(f"-{s.name}:" for s in specs if s.negatable)
    return (", ".join(s.form for s in specs)
            + f" (dates: 2024, 2024-05, 2024-05-17, today, 7d, 2w, 3m, 1y; {negatable} exclude)")


def prose(table: Iterable[FilterSpec]) -> str:
    """The filters as sentences (the MCP server's instructions)."""
    specs = list(table)
    negatable = ", ".join(f"-{s.name}:" for s in specs if s.negatable)
    parts = "; ".join(f"{s.form} keeps {_plain(s.meaning)}" for s in specs)
    return f"{parts}. {negatable} exclude."


def rows(table: Iterable[FilterSpec]) -> list[str]:
    """The README's table rows of the filters, one per spec."""
    out = []
    for s in table:
        shown = f"`{s.example}`" + (f" (`{s.negated_example}`)" if s.negated_example else "")
        out.append(f"| {shown} | {s.meaning} |")
    return out


def _plain(text: str) -> str:
    return text.replace("`", "")


# -- completion ------------------------------------------------------------------------------
def complete(table: FilterTable, text: str, values: Callable[[str], Sequence[str]]) -> str | None:
    """``text`` completed with the first choice that extends the filter value being typed at
    its end (``tag:gi`` -> ``tag:git``); ``values(name)`` gives a completing filter's choices
    by its name, the most useful first. None when nothing is being typed or nothing fits."""
    found = _TYPING.search(text)
    filter_spec = table.get(found.group(1)) if found else None
    if found is None or filter_spec is None or filter_spec.choices is None:
        return None
    quoted = bool(found.group(2))
    typed = found.group(3)
    bare = typed.lstrip("#") if filter_spec.name == "tag" else typed
    for choice in values(filter_spec.name):
        if (" " in choice or '"' in choice) and not quoted:
            continue
        if choice.lower().startswith(bare.lower()) and len(choice) > len(bare):
            return text + choice[len(bare):] + ('"' if quoted else "")
    return None


# the filter value being typed at the end of the search bar: tag:gi, -in:no, path:"my no
_TYPING = re.compile(r'(?:^|\s)-?([A-Za-z][A-Za-z_.-]{1,23}):("?)([^\s"]*)$')
