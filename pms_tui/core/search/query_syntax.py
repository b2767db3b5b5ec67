"""The search language: what a person types, parsed once into a ParsedQuery.

    git undo "last commit" -rebase -"force push" tag:git path:notes/ in:work title:undo
    after:2024-05 before:7d

* words are text; ``"a phrase"`` must appear (both lanes keep only passages holding it, and
  it scores in BM25); ``-word`` and ``-"a phrase"`` drop passages holding them;
* filters ``name:value`` (or ``name:"a value"``), each a spec of ``filter_specs.FILTERS``
  (its name and aliases, whether a minus negates it, how its value is read, how several
  combine). ``after:X`` keeps notes dated on or after the first day of X, ``before:X`` those
  dated before it, so ``after:2024 before:2025`` is the year 2024.
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
from dataclasses import dataclass, field, replace

from .filter_specs import FILTERS, FilterSpec, Refused, parse_date


# The characters of a query the parser reads: a pasted page is cut here (parsing stays linear
# anyway). Not a limit on a request: that one refuses (``search.limits.MAX_QUERY_CHARS``).
PARSED_QUERY_CHARS = 4000
MAX_ITEMS = 64  # phrases, exclusions and filters each kept at most this many
MAX_TERMS = 256

_NAME = re.compile(r"([A-Za-z][A-Za-z_.-]{1,23}):(.*)", re.DOTALL)  # two letters or more: C:\\ is a path
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Ignored:
    """A part of the query that was not used, and why (one short sentence)."""

    text: str
    reason: str


@dataclass
class ParsedQuery:
    raw: str  # the query as parsed: cut at PARSED_QUERY_CHARS, control characters blanked
    terms: list[str] = field(default_factory=list)  # free words, as typed
    phrases: list[str] = field(default_factory=list)  # "..." that must appear
    exclude: list[str] = field(default_factory=list)  # -word / -"phrase": must not appear
    # the filters' values by (filter name, negated), in the order typed (filter_specs.FILTERS)
    filters: dict[tuple[str, bool], list[str]] = field(default_factory=dict)
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
        return any(self.filters.values())

    def values(self, name: str, negated: bool = False) -> list[str]:
        """The values of the filter ``name`` (``tag``), or of its negation."""
        return list(self.filters.get((name, negated), ()))

    def value(self, name: str) -> str | None:
        """The one value of a filter that keeps one (``after``), or None."""
        return next(iter(self.filters.get((name, False), ())), None)

    def applied(self) -> list[tuple[FilterSpec, bool, list[str]]]:
        """(spec, negated, values) of each filter given, in the specs' order."""
        return [(spec, negated, self.filters[(spec.name, negated)])
                for spec in FILTERS for negated in (False, True) if self.filters.get((spec.name, negated))]

    def singles(self) -> list[tuple[str, "ParsedQuery"]]:
        """Each chip with a query of that part alone (explain checks a note against each)."""
        out = [(f'"{p}"', ParsedQuery(raw=self.raw, phrases=[p])) for p in self.phrases]
        out += [(f'-"{p}"' if " " in p else f"-{p}", ParsedQuery(raw=self.raw, exclude=[p])) for p in self.exclude]
        for spec, negated, values in self.applied():
            for v in values:
                out.append((spec.chip(v, negated), ParsedQuery(raw=self.raw, filters={(spec.name, negated): [v]})))
        return out

    def chips(self) -> list[str]:
        """The filters as short labels, in a stable order (the app shows them as chips)."""
        return [chip for chip, _ in self.singles()]

    def to_json(self) -> dict:
        data: dict = {"raw": self.raw, "terms": list(self.terms), "phrases": list(self.phrases),
                      "exclude": list(self.exclude)}
        for spec in FILTERS:
            for negated in (False, True) if spec.negatable else (False,):
                key = f"not_{spec.field}" if negated else spec.field
                values = self.values(spec.name, negated)
                data[key] = (values[0] if values else None) if spec.single else values
        data["ignored"] = [{"text": i.text, "reason": i.reason} for i in self.ignored]
        data["typing"] = self.typing
        data["text"] = self.text
        return data


def clean(text: str) -> str:
    """Control characters and lone surrogates become spaces (they are never searchable)."""
    return _CONTROL.sub(" ", text)


def parse(query: str, today: _dt.date | None = None) -> ParsedQuery:
    """Parse ``query``; never raises. ``today`` anchors relative dates (tests pass it)."""
    if not isinstance(query, str):
        query = "" if query is None else str(query)
    query = clean(query[:PARSED_QUERY_CHARS])
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
        filter_spec = FILTERS.get(named.group(1))
        if filter_spec is not None:
            _filter(out, filter_spec, named.group(2).strip(), negated, token, today)
            return
        if len(out.ignored) < MAX_ITEMS and named.group(2):
            out.ignored.append(Ignored(
                token, f"'{named.group(1)}:' is not a filter ({', '.join(s.name for s in FILTERS)}); searched as text"
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


def _filter(out: ParsedQuery, spec: FilterSpec, value: str, negated: bool, token: str, today) -> None:
    def ignore(reason: str) -> None:
        if len(out.ignored) < MAX_ITEMS:
            out.ignored.append(Ignored(("-" if negated else "") + token, reason))

    if not value:
        return ignore(spec.needs_value())
    if negated and not spec.negatable:
        return ignore(spec.not_negatable or f"-{spec.name}: cannot be negated")
    got = spec.read(value, today)
    if isinstance(got, Refused):
        return ignore(got)
    target = out.filters.setdefault((spec.name, negated), [])
    for v in [got] if isinstance(got, str) else got:
        if spec.combine == "latest":
            target[:] = [max([*target, v])]
        elif spec.combine == "earliest":
            target[:] = [min([*target, v])]
        elif v not in target and len(target) < MAX_ITEMS:
            target.append(v)


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
