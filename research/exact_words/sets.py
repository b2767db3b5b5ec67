"""Query sets of the words people type from their own notes, drawn from an indexed collection.

    python research/exact_words/sets.py NAME DIR > queries.jsonl   # DIR indexed as pms-tui eval does

A person remembers a word or two of a note and types them. Each query here is made from one
note's text as the index holds it (title, headings and passages, so a PDF's or a Word file's
text too), and its targets are every note holding the words, found over the whole collection
the same way. Kinds:

* ``word``: one distinctive word (letters only, 4 or more, not a stopword) that one or two notes
  hold as typed;
* ``identifier``: a name from code (``git-rev-parse``, ``os.path``, ``snake_case``,
  ``camelCase``) held by one to three notes;
* ``phrase``: two or three consecutive words (one at least not a stopword) held together by one
  to three notes, typed in quotes;
* ``two_rare``: two words of one note, each held by at most ten notes, together by one or two;
* ``typo``: a ``word`` query (6 letters or more) with one slip (two letters swapped, one
  dropped or doubled), a form no note holds; its targets hold the word as meant.

Each line is a known-item query (``pms-tui eval known-item``) with ``targets``, the notes
holding the words. Drawn with a fixed seed from the index's text, read in place: nothing of a
collection is kept in the repository. A word counts as held when the note's text has it as a
token (letters and digits, case folded, as FTS5's unicode61 cuts it).
"""

from __future__ import annotations

import json
import random
import re
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pms_tui.core.search.query import STOPWORDS  # noqa: E402

SEED = 42
PER_KIND = 30
KINDS = ("word", "identifier", "phrase", "two_rare", "typo")
_TOKEN = re.compile(r"[^\W_]+")
_URL = re.compile(r"<?https?://\S+")
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_FENCE = re.compile(r"```[^\n]*\n(.*?)```", re.DOTALL)
# a name from code: parts joined by - _ . (two parts at least), or camelCase
_IDENT = re.compile(r"(?<![\w.-])([A-Za-z][A-Za-z0-9]*(?:[-_.][A-Za-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]+)(?![\w-])")


@dataclass
class Note:
    path: str
    text: str  # as the index holds it, every passage once
    tokens: list[str]  # its tokens, in order
    words: frozenset[str]
    parts: tuple[str, ...]  # its title, headings and passages (FTS5's columns: a phrase is inside one)
    runs: tuple[str, ...]  # each part as " a b c ": a phrase is held when " a b " is inside one


def tokens(text: str) -> list[str]:
    return [t.lower() for t in _TOKEN.findall(text)]


def notes_of(conn) -> list[Note]:
    """Every note's text from the index (its passages overlap by a few lines: each note's text
    is its passages' bodies, which only repeats words, never adds one)."""
    texts: dict[str, list[str]] = {}
    for path, title, heading, body in conn.execute(
            "SELECT d.path, c.title, c.heading, c.body FROM chunks c JOIN documents d ON d.id = c.document_id "
            "ORDER BY d.path, c.seq"):
        parts = texts.setdefault(path, [title])
        parts += [heading, body]
    out = []
    for path, parts in texts.items():
        text = "\n".join(parts)
        toks = tokens(text)
        kept = tuple(dict.fromkeys(p for p in parts if p.strip()))
        out.append(Note(path, text, toks, frozenset(toks), kept, tuple(" " + " ".join(tokens(p)) + " " for p in kept)))
    return out


def _content(word: str) -> bool:
    return word.isalpha() and len(word) >= 4 and word not in STOPWORDS


class Drawer:
    def __init__(self, notes: list[Note], seed: int = SEED):
        self.notes = notes
        self.rng = random.Random(seed)
        self.df = Counter(w for n in notes for w in n.words)
        self.used: set[str] = set()

    def holding(self, *words: str) -> list[str]:
        return sorted(n.path for n in self.notes if all(w in n.words for w in words))

    def holding_phrase(self, phrase: str) -> list[str]:
        key = " " + " ".join(tokens(phrase)) + " "
        return sorted(n.path for n in self.notes if any(key in run for run in n.runs))

    def _prose_words(self, note: Note) -> list[str]:
        return sorted({w for w in tokens(_URL.sub(" ", note.text)) if _content(w)})

    def word(self, note: Note) -> tuple[str, list[str]] | None:
        found = [w for w in self._prose_words(note) if self.df[w] <= 2]
        if not found:
            return None
        w = self.rng.choice(found)
        return w, self.holding(w)

    def identifier(self, note: Note) -> tuple[str, list[str]] | None:
        code = " ".join(_CODE_SPAN.findall(note.text) + _FENCE.findall(note.text))
        found = sorted({m for m in _IDENT.findall(code) if len(m) >= 5})
        self.rng.shuffle(found)
        for name in found[:8]:
            pattern = re.compile(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", re.IGNORECASE)
            held = sorted(n.path for n in self.notes if pattern.search(n.text))
            if 1 <= len(held) <= 3:
                return name, held
        return None

    def phrase(self, note: Note) -> tuple[str, list[str]] | None:
        """Within one title, heading or passage (a phrase FTS5 can find: never across two)."""
        for _ in range(12):
            toks = tokens(_URL.sub(" ", self.rng.choice(note.parts)))
            if len(toks) < 3:
                continue
            size = self.rng.choice((2, 3))
            at = self.rng.randrange(0, len(toks) - size + 1)
            words = toks[at:at + size]
            if any(w.isdigit() for w in words) or not any(_content(w) for w in words):
                continue
            if all(self.df[w] <= 3 for w in words if _content(w)):
                continue  # rare words alone would find it: a phrase of common words is the test
            phrase = " ".join(words)
            held = self.holding_phrase(phrase)
            if 1 <= len(held) <= 3:
                return f'"{phrase}"', held
        return None

    def two_rare(self, note: Note) -> tuple[str, list[str]] | None:
        found = [w for w in self._prose_words(note) if 2 <= self.df[w] <= 10]
        if len(found) < 2:
            return None
        for _ in range(6):
            a, b = self.rng.sample(found, 2)
            held = self.holding(a, b)
            if 1 <= len(held) <= 2:
                return f"{a} {b}", held
        return None

    def typo(self, note: Note) -> tuple[str, list[str]] | None:
        found = [w for w in self._prose_words(note) if self.df[w] <= 2 and len(w) >= 6]
        if not found:
            return None
        w = self.rng.choice(found)
        for _ in range(6):
            i = self.rng.randrange(1, len(w) - 2)
            slip = self.rng.choice(("swap", "drop", "double"))
            if slip == "swap":
                typed = w[:i] + w[i + 1] + w[i] + w[i + 2:]
            elif slip == "drop":
                typed = w[:i] + w[i + 1:]
            else:
                typed = w[:i] + w[i] + w[i:]
            if typed != w and self.df[typed] == 0:
                return typed, self.holding(w)
        return None

    def draw(self, kind: str, count: int) -> Iterator[tuple[str, list[str]]]:
        order = list(range(len(self.notes)))
        self.rng.shuffle(order)
        made = 0
        for i in order:
            if made >= count:
                return
            found = getattr(self, kind)(self.notes[i])
            if found is None or found[0].lower() in self.used or not found[1]:
                continue
            self.used.add(found[0].lower())
            made += 1
            yield found


def build(notes: list[Note], name: str, per_kind: int = PER_KIND, seed: int = SEED) -> list[dict]:
    drawer = Drawer(notes, seed)
    rows = []
    for kind in KINDS:
        for n, (query, targets) in enumerate(drawer.draw(kind, per_kind), 1):
            rows.append({"qid": f"{name}-{kind}-{n}", "query": query, "target": targets[0],
                         "targets": targets, "kind": kind})
    return rows


def main(argv: list[str]) -> int:
    from pms_tui.eval import known_item

    name, folder = argv[:2]
    kb, _ = known_item.open_collection(folder, quiet=True)
    try:
        rows = build(notes_of(kb._store.conn), name)  # research may read the index directly
    finally:
        kb.close()
    for row in rows:
        print(json.dumps(row, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
