"""Is a query asked in words (a question or a sentence) rather than typed as keywords or code?

A question ("how do I publish my notes as a website") or a described need ("my links break
when I rename a file") is where BM25 matches the wrong words most: its common words ("notes",
"website") meet notes that share them but do not answer, while the vector lane reads the
sentence as a whole. Query-aware fusion (``lane_trust``) weighs BM25 down on such a query.

The test reads the words only: an interrogative (in the languages the multilingual notes are
written in), a question mark, or a sentence of several words with some of a language's
function words in it; and never a query that carries code (dots, slashes, underscores,
brackets, ``--flags``, ``Verb-Noun`` names), which is a lookup whatever its length.
"""

from __future__ import annotations

import re

# Words that open a question, per language (lower case). A query starting with one is asked.
INTERROGATIVES = frozenset("""
how what why where when which who whom whose can could should would do does did is are
wie was warum wieso weshalb wo wohin woher wann welche welcher welches wer kann
cómo como qué que por porqué dónde donde cuándo cuando cuál cuáles quién puedo se
comment pourquoi quoi où quand quel quelle quels quelles qui est-ce
как что почему зачем где когда какой какая какие кто можно
""".split())
# Function words: a run of words with enough of these is a sentence, not a list of keywords.
FUNCTION_WORDS = frozenset("""
a an the to of in on for from with by at into my i me it its is are was be this that
and or not no so if when than then there their them they you your we our all any can
do does did dont don't can't cannot doesn't won't isn't should would could will after before
der die das ein eine einen einem dem den des und oder nicht ich mein meine mit von zu im
auf für ist sind wird kein keine es wenn dass als aus bei nach
el la los las un una unos unas y o no mi mis con de del en para por es son al lo se que
le les des du et ou pas je mon ma mes avec dans pour sur est sont ce qui
и в на не с по для как что это мой моя мои из
""".split())
# Words that ask in scripts without spaces between words.
CJK_ASKING = ("怎么", "怎樣", "怎样", "如何", "为什么", "為什麼", "什么", "什麼", "哪", "吗", "嗎", "呢",
              "どう", "なぜ", "何", "方法", "には", "ですか", "ますか", "어떻게", "무엇", "왜", "방법")
CODE = re.compile(r"[./\\_=$(){}\[\]<>|@#*`~^]|--|\w-[A-Z]|\b[a-z]+[A-Z]\w*")
WORD = re.compile(r"[^\W\d_][\w'’-]*")
SENTENCE_WORDS = 5  # at least this many words, ...
SENTENCE_FUNCTION_WORDS = 2  # ... of which this many are function words


def asked(text: str) -> bool:
    """True for a question or a sentence in words; False for keywords, names and code."""
    text = text.strip()
    if not text or CODE.search(text):
        return False
    words = [w.lower() for w in WORD.findall(text)]
    if not words:
        return False
    if text.endswith(("?", "？")) or words[0] in INTERROGATIVES or words[0] in ("¿",):
        return len(words) >= 2 or any(q in text for q in CJK_ASKING)
    if text.startswith("¿"):
        return True
    if any(q in text for q in CJK_ASKING):
        return True
    return len(words) >= SENTENCE_WORDS and sum(w in FUNCTION_WORDS for w in words) >= SENTENCE_FUNCTION_WORDS
