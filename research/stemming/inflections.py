"""Inflected queries over tldr-pages-i18n: is a page found by another form of its verb?

The query set is made from the pages by one mechanical rule, no judgment: every example line
of a tldr page starts with a verb (``- Lösche eine Datei:``, ``- Comprime un archivo``,
``- Crée une archive``, ``- Создать архив``). For each such first word W, the other form Q is
made by the language's regular rule and kept only if some page of the same language holds Q
as a word (an attested form, never an invented one):

* German, W in -e (the imperative): Q = W + n (``lösche`` -> ``löschen``);
* Spanish, W in -a: Q = W - a + ar; W in -e: Q = W - e + er, and W - e + ir (``comprime`` ->
  ``comprimir``);
* French, W in -e: Q = W + r (``crée`` -> ``créer``);
* Russian, W an infinitive in -ать/-ять/-еть/-ить: Q its third person, -ает/-яет/-еет/-ит.

Each (W, Q) pair is one query, Q; its targets are the pages of that language holding W as a
word but not Q (so only another inflection can find them). A query's score: whether a target is
among its first 10 hits, and the share of its targets among its first 100 (of at most 100).
BM25 lane, finished queries, the whole tldr-pages-i18n folder as one text-only collection.

    PYTHONPATH=<checkout before> python research/stemming/inflections.py HOME_BEFORE [CORPUS]
    python research/stemming/inflections.py HOME_AFTER [CORPUS]
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

# the shared corpora beside the repository, or PMS_TUI_CORPORA, as benchmarks/corpora.py
CORPORA = Path(os.environ.get("PMS_TUI_CORPORA") or Path(__file__).resolve().parents[2].parent / "shared" / "corpora")
CORPUS = CORPORA / "markdown" / "tldr-pages-i18n"
LANGUAGES = ("de", "es", "fr", "ru")
_WORD = re.compile(r"[^\W_]+")
_EXAMPLE = re.compile(r"^- (\S+)", re.MULTILINE)


def other_forms(lang: str, word: str) -> list[str]:
    """The forms the rule makes of an example line's first word."""
    if lang == "de" and word.endswith("e"):
        return [word + "n"]
    if lang == "es" and word.endswith("a"):
        return [word[:-1] + "ar"]
    if lang == "es" and word.endswith("e"):
        return [word[:-1] + "er", word[:-1] + "ir"]
    if lang == "fr" and word.endswith("e"):
        return [word + "r"]
    if lang == "ru":
        for infinitive, third in (("ать", "ает"), ("ять", "яет"), ("еть", "еет"), ("ить", "ит")):
            if word.endswith(infinitive):
                return [word[: -len(infinitive)] + third]
    return []


def query_set(corpus: Path = CORPUS) -> list[dict]:
    """[{lang, word, query, targets}] made from the pages by the rule above."""
    queries = []
    for lang in LANGUAGES:
        words_of: dict[str, set[str]] = {}
        firsts: set[str] = set()
        for path in sorted((corpus / f"pages.{lang}").rglob("*.md")):
            text = path.read_text(encoding="utf-8")
            rel = str(path.relative_to(corpus))
            words_of[rel] = {w.lower() for w in _WORD.findall(text)}
            for first in _EXAMPLE.findall(text):
                word = re.sub(r"[\[\]()]", "", first).lower().rstrip(":,.")
                if word.isalpha():
                    firsts.add(word)
        vocabulary = set().union(*words_of.values())
        for word in sorted(firsts):
            for query in other_forms(lang, word):
                if query == word or query not in vocabulary:
                    continue
                targets = sorted(rel for rel, words in words_of.items() if word in words and query not in words)
                if targets:
                    queries.append({"lang": lang, "word": word, "query": query, "targets": targets})
    return queries


def main() -> None:
    import functools

    import pms_tui
    from pms_tui.core import kb as kb_module

    home = Path(sys.argv[1])
    corpus = Path(sys.argv[2]) if len(sys.argv) > 2 else CORPUS
    queries = query_set(corpus)
    sync = kb_module.KnowledgeBase.sync
    kb_module.KnowledgeBase.sync = functools.partialmethod(sync, embed=False)
    kb = kb_module.KnowledgeBase(home, embedder=None)
    if not kb.collections.list():
        kb.collections.create(corpus, name="i18n")
    started = time.perf_counter()
    kb.sync()
    print(json.dumps({"code": pms_tui.__file__, "queries": len(queries),
                      "sync_s": round(time.perf_counter() - started, 1)}), flush=True)
    by_lang: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for q in queries:
        hits = []
        for h in kb.search(q["query"], k=100, mode="bm25").hits:
            if h.relpath not in hits:
                hits.append(h.relpath)
        targets = set(q["targets"])
        first10 = any(h in targets for h in hits[:10])
        share = len(targets & set(hits[:100])) / min(len(targets), 100)
        stats = by_lang[q["lang"]]
        stats["queries"] += 1
        stats["found_in_10"] += first10
        stats["share_in_100"] += share
        stats["nothing"] += not any(h in targets for h in hits)
    kb.close()
    for lang, stats in by_lang.items():
        n = stats["queries"]
        print(json.dumps({"lang": lang, "queries": int(n), "found_in_10": int(stats["found_in_10"]),
                          "mean_share_in_100": round(stats["share_in_100"] / n, 4),
                          "found_nothing": int(stats["nothing"])}), flush=True)


if __name__ == "__main__":
    sys.exit(main())
