"""The search language: what a person types, parsed once into a ParsedQuery.

    git undo "last commit" -rebase -"force push" tag:git path:notes/ in:work title:undo
    after:2024-05 before:7d

* words are text; ``"a phrase"`` must appear (both lanes keep only passages holding it, and
  it scores in BM25); ``-word`` and ``-"a phrase"`` drop passages holding them;
* filters ``name:value`` (or ``name:"a value"``): ``tag:`` (AND; ``tag:a`` also matches the
  nested ``a/b``), ``path:`` (a prefix of the path inside the collection; OR), ``in:`` (a
  collection; OR), ``title:`` (a word of the note's title; AND), ``after:``/``before:`` (the
  note's date: ``2024``, ``2024-05``, ``2024-05-17``, ``today``, ``yesterday`` or relative
  ``7d``, ``2w``, ``3m``, ``1y``). ``after:X`` keeps notes dated on or after the first day
  of X, ``before:X`` those dated before it, so ``after:2024 before:2025`` is the year 2024.
  ``-tag:``, ``-path:`` and ``-in:`` exclude.
* a command-line flag is text, not an exclusion: ``--show-toplevel`` (two dashes) and a
  one-letter ``-t`` (``git rev-parse --show-toplevel``, ``vim -t Tag`` find the notes about
  them); ``-word`` of two letters or more excludes.

Parsing never raises and never fails: whatever does not parse is text. A known filter with a
bad value (``after:yesterdayish``, ``tag:`` with no value) is left out and reported in
``ignored`` with its reason; ``foo:bar`` with an unknown name stays text, with a note too.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import asdict, dataclass, field, replace

MAX_QUERY_CHARS = 4000  # a pasted page is cut here before parsing (parsing stays linear anyway)
MAX_ITEMS = 64  # phrases, exclusions and filters each kept at most this many
MAX_TERMS = 256

FILTERS = ("tag", "path", "in", "title", "after", "before", "linksto", "linkedfrom", "changed")
ALIASES = {"tags": "tag", "file": "path", "collection": "in", "col": "in", "since": "after", "until": "before",
           "links": "linksto", "linkto": "linksto", "from": "linkedfrom"}
NEGATABLE = ("tag", "path", "in")
_NAME = re.compile(r"([A-Za-z][A-Za-z_.-]{1,23}):(.*)", re.DOTALL)  # two letters or more: C:\\ is a path
_REL = re.compile(r"(\d{1,5})\s*([dwmy])", re.IGNORECASE)
_YEAR = re.compile(r"(\d{4})")
_MONTH = re.compile(r"(\d{4})-(\d{1,2})")
_DAY = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Ignored:
    """A part of the query that was not used, and why (one short sentence)."""

    text: str
    reason: str


@dataclass
class ParsedQuery:
    raw: str  # the query as parsed: cut at MAX_QUERY_CHARS, control characters blanked
    terms: list[str] = field(default_factory=list)  # free words, as typed
    phrases: list[str] = field(default_factory=list)  # "..." that must appear
    exclude: list[str] = field(default_factory=list)  # -word / -"phrase": must not appear
    tags: list[str] = field(default_factory=list)  # all must be present (lower case, no '#')
    not_tags: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)  # any prefix
    not_paths: list[str] = field(default_factory=list)
    collections: list[str] = field(default_factory=list)  # any
    not_collections: list[str] = field(default_factory=list)
    titles: list[str] = field(default_factory=list)  # each must be a word of the title
    after: str | None = None  # ISO day, inclusive
    before: str | None = None  # ISO day, exclusive
    links_to: list[str] = field(default_factory=list)  # linksto:NOTE - notes linking to each
    linked_from: list[str] = field(default_factory=list)  # linkedfrom:NOTE - notes each links to
    changed_by_agent: bool = False  # changed:agent - notes an agent wrote (kb.write)
    ignored: list[Ignored] = field(default_factory=list)
    typing: bool = True  # the last free word may still be being typed (nothing follows it)

    @property
    def text(self) -> str:
        """What the lanes rank by: free words and phrases (the vector lane embeds this)."""
        return " ".join([*self.terms, *self.phrases])

    @property
    def match_text(self) -> str:
        """``text`` as BM25 gets it (``query.build_match``): the free words last, so that the
        word being typed is the last one and matches as a prefix, and a trailing space when it
        is finished (a space, a phrase or a filter followed it), so that it does not."""
        return " ".join([*self.phrases, *self.terms]) + ("" if self.typing else " ")

    @property
    def has_text(self) -> bool:
        return bool(_WORD.search(self.text))

    @property
    def has_filters(self) -> bool:
        """Anything that narrows which notes may match (phrases and exclusions included)."""
        return bool(self.phrases or self.exclude or self.note_filters)

    @property
    def note_filters(self) -> bool:
        """A filter on the note (not on the passage's words)."""
        return bool(
            self.tags or self.not_tags or self.paths or self.not_paths or self.collections
            or self.not_collections or self.titles or self.after or self.before
            or self.links_to or self.linked_from or self.changed_by_agent
        )

    def chips(self) -> list[str]:
        """The filters as short labels, in a stable order (the app shows them as chips)."""
        out = [f'"{p}"' for p in self.phrases]
        out += [f'-"{p}"' if " " in p else f"-{p}" for p in self.exclude]
        out += [f"tag:{_value(t)}" for t in self.tags] + [f"-tag:{_value(t)}" for t in self.not_tags]
        out += [f"path:{_value(p)}" for p in self.paths] + [f"-path:{_value(p)}" for p in self.not_paths]
        out += [f"in:{_value(c)}" for c in self.collections] + [f"-in:{_value(c)}" for c in self.not_collections]
        out += [f"title:{t}" for t in self.titles]
        if self.after:
            out.append(f"after:{self.after}")
        if self.before:
            out.append(f"before:{self.before}")
        out += [f"linksto:{_value(n)}" for n in self.links_to]
        out += [f"linkedfrom:{_value(n)}" for n in self.linked_from]
        out += ["changed:agent"] if self.changed_by_agent else []
        return out

    def to_json(self) -> dict:
        data = asdict(self)
        data["text"] = self.text
        data["ignored"] = [{"text": i.text, "reason": i.reason} for i in self.ignored]
        return data


def _value(text: str) -> str:
    """A filter value as typed back: quoted when it holds a space."""
    return f'"{text}"' if any(c.isspace() for c in text) else text


def clean(text: str) -> str:
    """Control characters and lone surrogates become spaces (they are never searchable)."""
    return _CONTROL.sub(" ", text)


def parse(query: str, today: _dt.date | None = None) -> ParsedQuery:
    """Parse ``query``; never raises. ``today`` anchors relative dates (tests pass it)."""
    if not isinstance(query, str):
        query = "" if query is None else str(query)
    query = clean(query[:MAX_QUERY_CHARS])
    raw = query
    today = today or _dt.date.today()
    out = ParsedQuery(raw=raw)
    last_added_words = False
    for negated, quoted, token in _tokens(query):
        before = len(out.terms)
        _add(out, negated, quoted, token, today)
        last_added_words = len(out.terms) > before
    out.typing = last_added_words and not raw[-1:].isspace()
    return out


def _tokens(query: str):
    """(negated, quoted, text) for each token (quoted None: text that is never a filter): words
    split on whitespace, "..." kept whole, ``name:"a value"`` kept whole (its quotes removed).
    After an unclosed quote, all is text."""
    i, n = 0, len(query)
    while i < n:
        if query[i].isspace():
            i += 1
            continue
        # "--flag" is a command-line flag: text
        negated = query[i] == "-" and i + 1 < n and not query[i + 1].isspace() and query[i + 1] != "-"
        start = i + 1 if negated else i
        if query[start] == '"':
            end = query.find('"', start + 1)
            if end < 0:  # unclosed (perhaps still being typed): its words are text
                yield False, None, query[start + 1 :]
                return
            yield negated, True, query[start + 1 : end]
            i = end + 1
            continue
        j = start
        while j < n and not query[j].isspace():
            if query[j] == '"' and query[j - 1] == ":":  # name:"a value"
                close = query.find('"', j + 1)
                close = n if close < 0 else close
                yield negated, False, query[start:j] + query[j + 1 : close]
                break
            j += 1
        else:
            yield negated, False, query[start:j]
            i = j
            continue
        i = close + 1


def _words(text: str) -> str:
    return " ".join(_WORD.findall(text))


def _add(out: ParsedQuery, negated: bool, quoted: bool | None, token: str, today: _dt.date) -> None:
    if quoted is None:  # plain text: no filters, no exclusions
        out.terms.extend(w for w in token.split() if _WORD.search(w))
        del out.terms[MAX_TERMS:]
        return
    if quoted:
        phrase = _words(token)
        if phrase:
            target = out.exclude if negated else out.phrases
            if len(target) < MAX_ITEMS and phrase.lower() not in (p.lower() for p in target):
                target.append(phrase)
        return
    named = _NAME.fullmatch(token)
    if named and not named.group(2).startswith("//"):
        name = named.group(1).lower()
        name = ALIASES.get(name, name)
        if name in FILTERS:
            _filter(out, name, named.group(2).strip(), negated, token, today)
            return
        if len(out.ignored) < MAX_ITEMS and named.group(2):
            out.ignored.append(Ignored(
                token, f"'{named.group(1)}:' is not a filter ({', '.join(FILTERS)}); searched as text"
            ))
    if negated:
        phrase = _words(token)
        if len(phrase) < 2:  # "-t": a one-letter flag, searched as text
            if _WORD.search(token) and len(out.terms) < MAX_TERMS:
                out.terms.append("-" + token)
            return
        if len(out.exclude) < MAX_ITEMS and phrase not in out.exclude:
            out.exclude.append(phrase)
        return
    if _WORD.search(token) and len(out.terms) < MAX_TERMS:
        out.terms.append(token)


def _filter(out: ParsedQuery, name: str, value: str, negated: bool, token: str, today) -> None:
    def ignore(reason: str) -> None:
        if len(out.ignored) < MAX_ITEMS:
            out.ignored.append(Ignored(("-" if negated else "") + token, reason))

    if not value:
        return ignore(f"{name}: needs a value, e.g. {_EXAMPLE[name]}")
    if negated and name not in NEGATABLE:
        return ignore(f"-{name}: cannot be negated; use {'before' if name == 'after' else 'after'}: instead"
                      if name in ("after", "before") else f"-{name}: cannot be negated")
    if name == "changed":
        if value.lower() != "agent":
            return ignore(f"changed:{value} is not known; changed:agent finds the notes an agent wrote")
        out.changed_by_agent = True
        return
    if name in ("after", "before"):
        day = parse_date(value, today)
        if day is None:
            return ignore(f"{name}:{value} is not a date (2024, 2024-05, 2024-05-17, today, 7d, 2w, 3m, 1y)")
        iso = day.isoformat()
        if name == "after":
            out.after = max(out.after, iso) if out.after else iso
        else:
            out.before = min(out.before, iso) if out.before else iso
        return
    if name == "tag":
        value = value.lstrip("#").strip().lower()
        if not value:
            return ignore(f"tag: needs a value, e.g. {_EXAMPLE['tag']}")
        target = out.not_tags if negated else out.tags
    elif name == "path":
        value = value.replace("\\", "/").lstrip("/")
        if value.startswith("./"):
            value = value[2:]
        if not value:
            return ignore(f"path: needs a value, e.g. {_EXAMPLE['path']}")
        target = out.not_paths if negated else out.paths
    elif name == "in":
        target = out.not_collections if negated else out.collections
    elif name in ("linksto", "linkedfrom"):
        value = " ".join(value.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1].split())
        value = value[:-3] if value.lower().endswith(".md") else value
        if not value:
            return ignore(f"{name}: needs a note's name, e.g. {_EXAMPLE[name]}")
        target = out.links_to if name == "linksto" else out.linked_from
    else:  # title
        words = _WORD.findall(value)
        if not words:
            return ignore(f"title:{value} holds no word")
        for w in words:
            if w.lower() not in out.titles and len(out.titles) < MAX_ITEMS:
                out.titles.append(w.lower())
        return
    if value not in target and len(target) < MAX_ITEMS:
        target.append(value)


_EXAMPLE = {
    "tag": "tag:git", "path": "path:git/", "in": "in:notes", "title": "title:rebase",
    "after": "after:2024-05", "before": "before:7d", "linksto": 'linksto:"Project Alpha"',
    "linkedfrom": "linkedfrom:Home", "changed": "changed:agent",
}


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


def as_text(query: object) -> str:
    """A query as text whatever it holds: lone surrogates (from undecodable argv bytes or a
    fuzzer) become U+FFFD, which SQLite and the tokenizer can take."""
    if not isinstance(query, str):
        query = "" if query is None else str(query)
    try:
        query.encode("utf-8")
        return query
    except UnicodeEncodeError:
        return "".join("\ufffd" if "\ud800" <= ch <= "\udfff" else ch for ch in query)


def parse_for(query: str | ParsedQuery, typing: bool) -> ParsedQuery:
    """``query`` parsed; its last word is being typed only if the caller says the query is."""
    parsed = query if isinstance(query, ParsedQuery) else parse(as_text(query))
    return parsed if typing or not parsed.typing else replace(parsed, typing=False)
