"""The language of a note, and the Snowball stems of the notes not in English.

The full-text index stems every word with FTS5's ``porter`` tokenizer, which knows English
only: ``löschen`` never found ``Lösche``, nor ``comprimir`` ``comprime``. So each note gets a
language, and a note in a language Snowball stems (other than English) gets one more
full-text column, ``stems``: the Snowball stem of every word of its title, heading and body,
each marked with :data:`MARK` (a private-use character no text holds) so that a stem is a term
of its own in the index, never the same term as a word of any note. A query word then also
looks for its own stems in the languages the index holds (:func:`query_stems`), and finds the
other inflections of the word in those notes. An English note keeps an empty column (its
path is the porter one, as before), and an index holding no such note gets no stem in its
queries, so English results do not move.

**How a note's language is chosen.** Its frontmatter's ``lang:`` or ``language:`` first (a
language tag such as ``de``, ``pt-BR``, or a name, ``German``, ``Deutsch``; ``en`` keeps it
English, and so does a language Snowball does not stem, ``ja``);
otherwise a cheap detector over its text: the most frequent function words of each language
(:data:`STOPWORDS`) are counted, and the language with the most wins when it has at least
:data:`MIN_HITS` of them, more than any other language and more than twice the English ones.
Why this and not a per-collection setting: vaults mix languages (a German note next to
English ones), the function words of a language are most of its running text, so a page of
a few sentences is already told apart, and reading them costs one pass of a regular
expression per note. A note the detector cannot place (too short, code, mixed) stays
English, which is how every note was indexed before.

Stemming is PyStemmer's (the Snowball project's C stemmers, BSD): about a sixtieth of the
time of the pure-Python ``snowballstemmer`` package on the same words (0.5 against 29 us a
word, the German tldr pages), which matters at indexing, where every word of a note is stemmed.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Iterable, Mapping, Sequence

import Stemmer

from .cjk import has_cjk

# Marks a stem as a term of its own: a private-use character, which unicode61 keeps inside a
# token (category Co) and no text from a note is expected to hold at a word's start.
MARK = "\ue000"
ENGLISH = "en"
DETECT_CHARS = 20_000  # the detector reads a note's first characters only
MIN_HITS = 3  # function words a language needs before a note is said to be in it
ENGLISH_MARGIN = 2.0  # ... and this many times as many as English has

_TOKEN = re.compile(r"[^\W_]+")  # a word as unicode61 cuts it: letters and digits
# What the detector does not read: code (fenced, indented by a fence's marks, or inline: its
# flags, ``-l`` ``-d``, look like function words) and web addresses
_NOT_PROSE = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)|`[^`\n]*`|<?https?://\S+", re.DOTALL)

# Snowball's algorithm for each language code a note may name (PyStemmer's names).
_ALGORITHMS = {
    "ar": "arabic", "hy": "armenian", "eu": "basque", "ca": "catalan", "cs": "czech", "da": "danish",
    "nl": "dutch", "eo": "esperanto", "et": "estonian", "fi": "finnish", "fr": "french", "de": "german",
    "el": "greek", "hi": "hindi", "hu": "hungarian", "id": "indonesian", "ga": "irish", "it": "italian",
    "lt": "lithuanian", "ne": "nepali", "no": "norwegian", "nb": "norwegian", "nn": "norwegian",
    "fa": "persian", "pl": "polish", "pt": "portuguese", "ro": "romanian", "ru": "russian", "sr": "serbian",
    "st": "sesotho", "es": "spanish", "sv": "swedish", "ta": "tamil", "tr": "turkish", "yi": "yiddish",
}
_AVAILABLE = set(Stemmer.algorithms())
ALGORITHMS = {code: name for code, name in _ALGORITHMS.items() if name in _AVAILABLE}
# Names a frontmatter may use instead of a code: the algorithm's (English) and the native ones
# of the detected languages.
_NAMES = {name: code for code, name in ALGORITHMS.items() if code not in ("nb", "nn")}
_NAMES.update({
    "english": ENGLISH, "deutsch": "de", "français": "fr", "francais": "fr", "español": "es", "espanol": "es",
    "castellano": "es", "português": "pt", "portugues": "pt", "italiano": "it", "nederlands": "nl",
    "русский": "ru", "dutch": "nl",
})

# The most frequent function words of each detected language, as the detector counts them.
# Words as frequent in English as in the language ("a", "i", "in", "of", "is") are left out.
STOPWORDS: dict[str, frozenset[str]] = {lang: frozenset(words.split()) for lang, words in {
    ENGLISH: """the and to that it for with as on are this be by from at or an was which you your not
        can have has will if these their its into when what how there been would should they we all
        also than other more""",
    "de": """der die das und ist nicht mit von den dem des ein eine einen einem einer eines zu auf für
        sich auch im wird werden oder aus bei nach wie nur noch kann können sind wenn über zum zur dass
        ich sie wir aber diese dieser dieses alle vom durch man hat haben""",
    "fr": """de le la les et des du un une est dans pour que qui sur pas par ce cette ces avec sont au aux
        ou il elle nous vous leur plus ne se son sa ses été être mais comme tout tous même à qu""",
    "es": """de el la los las en que del se un una unos unas por con para es no al lo como más pero sus
        su le ya este esta estos estas sí porque muy sin sobre también me hay donde desde todo nos
        ni ese eso esa ellos esto otro otra""",
    "pt": """de os as do da dos das em no na nos nas um uma que com para por não se mais ao aos à
        como mas foi ele ela é seu sua ou ser quando muito há já está também pelo pela até isso entre
        depois sem mesmo essa esse isto este esta você pode são""",
    "it": """il lo la gli le di da con su per tra fra un una uno è che non si del della dei delle al
        alla ai nel nella sono anche più ma questo questa ci ha essere se cui loro suo sua dal dalla
        degli""",
    "nl": """de het een en van dat op te voor met zijn niet aan er ook bij om naar door maar worden
        wordt dan uit kan nog hij ze zich deze dit wel heeft tot je geen meer""",
    "ru": """и в с к у а не на что со как то все она так его но да ты же вы за бы по только ее её мне
        было вот от меня еще ещё нет о из ему для это или при если чтобы этот эта также быть может
        можно""",
}.items()}
DETECTED = tuple(lang for lang in STOPWORDS if lang != ENGLISH)

_local = threading.local()  # a PyStemmer stemmer is not to be shared between threads


PORTER = "porter"  # Snowball's copy of the original Porter stemmer, FTS5's ``porter`` tokenizer's


def _stemmer(lang: str) -> Stemmer.Stemmer:
    stemmers: dict[str, Stemmer.Stemmer] | None = getattr(_local, "stemmers", None)
    if stemmers is None:
        stemmers = _local.stemmers = {}
    found = stemmers.get(lang)
    if found is None:
        found = stemmers[lang] = Stemmer.Stemmer(PORTER if lang == PORTER else ALGORITHMS[lang])
    return found


def _folded(word: str) -> str:
    """``word`` without its diacritics, as unicode61 (remove_diacritics) reads it."""
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


_TAG = re.compile(r"[a-z]{2,3}(?:[-_][a-z0-9]{2,8})*")  # a BCP 47 / POSIX language tag


def language_code(value: object) -> str | None:
    """The language a frontmatter value names, as its code (``de``, ``de-AT``, ``pt_BR``,
    ``German``, ``Deutsch`` -> ``de``; ``ja`` -> ``ja``), or None when it names none."""
    if not isinstance(value, str):
        return None
    text = value.strip().lower()
    if text in _NAMES:
        return _NAMES[text]
    if _TAG.fullmatch(text):  # a language tag: its language, stemmed or not (``ja``: not)
        return re.split(r"[-_]", text, maxsplit=1)[0]
    return None


def detect(texts: Iterable[str]) -> str:
    """The language of a text by its function words (see the module's docstring): a code of
    :data:`DETECTED`, or ``"en"`` when English or not told apart."""
    read: list[str] = []
    size = 0
    for text in texts:
        read.append(text[: DETECT_CHARS - size])
        size += len(read[-1])
        if size >= DETECT_CHARS:
            break
    counts = dict.fromkeys(STOPWORDS, 0)
    cjk_words = 0
    for word in _TOKEN.findall(_NOT_PROSE.sub(" ", "\n".join(read)).lower()):
        if has_cjk(word):
            cjk_words += 1
        for lang, words in STOPWORDS.items():
            if word in words:
                counts[lang] += 1
    ranked = sorted(DETECTED, key=lambda lang: -counts[lang])
    best, second = ranked[0], ranked[1]
    hits = counts[best]
    if (hits >= MIN_HITS and hits > counts[second] and hits > ENGLISH_MARGIN * counts[ENGLISH]
            and hits > cjk_words):  # a CJK text (with a few Latin words) is found by its pairs
        return best
    return ENGLISH


def note_language(frontmatter: Mapping[str, object] | None, texts: Iterable[str]) -> str:
    """A note's language as stored (``documents.lang``): the frontmatter's ``lang:`` or
    ``language:`` when it names one, else :func:`detect`; ``""`` for English, whose words
    the index's porter tokenizer stems, and for a language without a Snowball stemmer."""
    found = None
    for key in ("lang", "language"):
        found = language_code((frontmatter or {}).get(key))
        if found is not None:
            break
    if found is None:
        found = detect(texts)
    return found if found in ALGORITHMS else ""  # English, or a language Snowball does not stem


def stem(word: str, lang: str) -> str:
    """The marked Snowball stem of one lower-case word."""
    return MARK + _stemmer(lang).stemWord(word)


def index_text(lang: str, *texts: str) -> str:
    """The ``stems`` column of a chunk of a note in ``lang``: the marked stem of each of its
    words, space separated ('' for English, and for words with CJK or no letter)."""
    if not lang:
        return ""
    words = [w for text in texts if text for w in _TOKEN.findall(text.lower())
             if not w.isdigit() and not has_cjk(w)]
    if not words:
        return ""
    return " ".join(MARK + s for s in _stemmer(lang).stemWords(words))


def query_stems(word: str, languages: Sequence[str], *, said: bool = True) -> list[str]:
    """The marked stems of one query word in each of these languages, each once. ``said``
    False (the query's words did not say its language, :func:`languages_said`): not a stem that
    is the word's English (porter) stem too, which every note's text already matches (its
    porter column): it would only count the word a second time in the other language's notes
    (``git`` put a German page above the English notes about git). A query in German keeps
    them all: its words weigh as they always did among German pages."""
    word = word.lower()
    if not languages or not _TOKEN.fullmatch(word) or word.isdigit() or has_cjk(word):
        return []
    english = None if said else _stemmer(PORTER).stemWord(_folded(word))
    return list(dict.fromkeys(stem(word, lang) for lang in languages
                              if lang in ALGORITHMS and _folded(_stemmer(lang).stemWord(word)) != english))


def languages_said(words: Sequence[str], present: Sequence[str]) -> bool:
    """Whether the query's function words chose its stems' languages (:func:`query_languages`
    found one of them), rather than every language present being tried."""
    langs = [lang for lang in (ENGLISH, *present) if lang in STOPWORDS]
    return any(word in STOPWORDS[lang] for word in words for lang in langs)


def query_languages(words: Sequence[str], present: Sequence[str]) -> list[str]:
    """Which of the index's languages (``present``) a query's words are stemmed in. A query
    whose function words say which language it is in gets that language's stems only, and
    none when it is English ("verify the signature of a tag": its words would otherwise also
    match, a second time, every German or French page quoting them in code); a query with no
    function word (``löschen``, ``gpg signature``) gets the stems of every language present."""
    if not present:
        return []
    # English and the languages present only: "ser" is a Portuguese function word and a
    # Spanish verb, and says nothing in an index holding no Portuguese note
    counts = {lang: 0 for lang in (ENGLISH, *present) if lang in STOPWORDS}
    for word in words:
        for lang in counts:
            if word in STOPWORDS[lang]:
                counts[lang] += 1
    most = max(counts.values())
    if most == 0:
        return list(present)
    if counts[ENGLISH] == most:
        return []
    return [lang for lang in present if counts.get(lang) == most]


# A query is said to be in another language than English when it holds at least this many
# distinct words of that language's function words (or words with letters English does not use), more than
# English ones: one is not enough ("why does my process die": ``die`` is German's article).
QUERY_SIGNS = 2


def query_language(words: Sequence[str]) -> str:
    """The language a query's words say it is in: a code of :data:`DETECTED`, ``"en"`` for
    English, ``"other"`` for another language not told apart (Spanish and French share ``un``),
    ``""`` when they do not say (a word or two, a name, code). Words holding letters
    beyond English's (ä, ñ, é) count for every other language."""
    counts = dict.fromkeys(STOPWORDS, 0)
    accented = 0
    for word in set(words):  # each word once: "PKG-la ... PGK-la" is not Spanish twice over
        if not word.isascii() and word.isalpha() and not has_cjk(word):
            accented += 1
        for lang, function_words in STOPWORDS.items():
            if word in function_words:
                counts[lang] += 1
    best = max(DETECTED, key=lambda lang: counts[lang])
    if counts[best] + accented >= QUERY_SIGNS and counts[best] + accented > counts[ENGLISH]:
        tied = sum(counts[lang] == counts[best] for lang in DETECTED)
        return best if counts[best] and tied == 1 else "other"  # "other": not English, not told which
    return ENGLISH if counts[ENGLISH] else ""


def present(conn) -> list[str]:
    """The languages of the notes the index holds, other than English (a seek per language,
    on ``documents_by_lang``); [] on an index without the column (before its upgrade)."""
    found: list[str] = []
    last = ""
    try:
        while True:
            row = conn.execute("SELECT min(lang) FROM documents WHERE lang > ?", (last,)).fetchone()
            if row is None or row[0] is None:
                return found
            last = row[0]
            found.append(last)
    except Exception as exc:  # noqa: BLE001 - an older schema: no stems
        if "no such column" in str(exc):
            return []
        raise
