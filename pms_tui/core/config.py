"""Settings: defaults, overridden by ``config.toml`` in the home folder, overridden by env vars;
and the app's state (the theme chosen, the sample offered), kept apart in ``state.json``.

The home folder holds the database, ``config.toml`` (the user's, edited by hand: a change
made from the app keeps its comments and layout) and ``state.json`` (the app's). It is
``--home``, else ``PMS_TUI_HOME``, else the platform's user data dir (platformdirs).

Every setting is typed and range-checked in one table (``RULES``): a value from config.toml
keeps its TOML type (``rrf_k = 1.5`` is not a whole number, ``rrf_k = true`` not a number at
all), a value from the environment is parsed; NaN and infinities are refused everywhere (they
would reach SQL and JSON). An unknown key is not an error (a newer config on an older
pms-tui) but is reported with the nearest known key in ``Settings.warnings``.
"""

from __future__ import annotations

import difflib
import json
import math
import os
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs

from .errors import ConfigError

APP_NAME = "pms-tui"
CONFIG_FILE = "config.toml"
STATE_FILE = "state.json"  # the app state, apart from the configuration
DB_FILE = "index.sqlite"
DEFAULT_MODEL = "pms-tui/all-MiniLM-L6-v2-int8"
# The deepest a lane may rank (``lane_depth``), and so the most hits one request may ask for
# (``search.limits.MAX_K``): one bound, held here.
MAX_DEPTH = 10_000


@dataclass
class Settings:
    """Everything a user may tune. Names are the keys of config.toml and, upper-cased
    with a ``PMS_TUI_`` prefix, of the environment (``PMS_TUI_RRF_K=30``)."""

    model: str = DEFAULT_MODEL
    # -- Ranking. Every number that orders results lives here, once; each range is in RULES.
    # How they were chosen (leave-one-collection-out cross-validation over six collections) is
    # in research/README.md; docs/evaluation.md lists them with the figures they give.
    # RRF's k: a lane's rank r counts w / (k + r). A small k lets each lane's first places lead
    # (the customary 60 let notes both lanes rank lower bury a note one lane ranks first).
    rrf_k: int = 3
    bm25_weight: float = 1.0  # the BM25 lane's RRF weight
    vector_weight: float = 1.0  # the vector lane's RRF weight
    lane_depth: int = 50  # passages each lane hands to the fusion (at least the k asked for)
    # Per query, RRF's k and BM25's weight follow what the lanes found (search/lane_trust.py,
    # the four settings below); false: plain RRF with the numbers above.
    query_aware_fusion: bool = True
    confident_coverage: float = 0.7  # BM25 holds the query: its first passage holds this share of the query's idf
    confident_k: int = 2  # ... and then BM25's ranks count with this k (never above rrf_k)
    contradiction_gap: float = 0.1  # the vector lane contradicts BM25: BM25's first note this much less similar
    contradicted_weight: float = 0.25  # ... and then BM25's weight is multiplied by this
    # A short query held as typed by at most this many notes puts them first (search/exact_match.py);
    # 0: fusion alone orders them.
    exact_notes: int = 3
    # While vectors fill in behind the text (a folder just added), the vector lane ranks only the
    # passages embedded so far; hybrid search leaves it out until this share has vectors
    # (research/partial_vectors.py: below it, fusing it ranked worse than BM25 alone).
    vector_min_share: float = 0.8
    title_weight: float = 2.0  # BM25's weight of a match in the note's title (FTS5 column weight)
    heading_weight: float = 1.5  # ... in the passage's headings
    body_weight: float = 1.0  # ... in the passage's text
    # -- Indexing.
    chunk_target: int = 1000
    chunk_overlap: int = 2
    embed_batch_size: int = 32
    max_tokens: int = 256
    debounce_ms: int = 100
    watch: bool = True  # the app (and `pms-tui watch`) index notes as they are saved
    theme: str = "pms-dark"
    # Symlinks are followed only inside a collection's folder unless this is on (for people
    # who link folders of notes in on purpose).
    follow_external_links: bool = False
    # Larger notes are skipped, with the reason (memory is measured bounded up to 20 MB).
    max_note_mb: int = 20
    # What one write from an agent or the CLI may hold, and how many writes a minute one
    # client may make (core/writes/guard.py).
    max_write_kb: int = 1024
    writes_per_minute: int = 120
    # What OCR (Tesseract, where installed) reads scanned pages and images in: Tesseract's
    # language codes joined by "+" ("eng+deu"); "": English and the languages of the notes.
    ocr_languages: str = ""
    extra: dict = field(default_factory=dict)
    # Sentences about the configuration that are not errors (unknown keys), for the front ends.
    warnings: list = field(default_factory=list, compare=False, repr=False)

    @property
    def max_note_bytes(self) -> int:
        """The largest note indexed and read, in bytes (``max_note_mb``)."""
        return self.max_note_mb * 1_000_000


def default_home() -> Path:
    env = os.environ.get("PMS_TUI_HOME")
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def load_settings(home: Path) -> Settings:
    """Read config.toml (if any) then apply ``PMS_TUI_*`` environment overrides; every value
    is typed and range-checked (ConfigError names the key, the value and what is allowed)."""
    settings = Settings()
    path = home / CONFIG_FILE
    data: dict = {}
    if path.exists():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"Cannot read {path}: {exc}.") from None
    source = str(path)
    for key, value in data.items():
        if key in RULES:
            setattr(settings, key, check_value(key, value, source))
        else:
            if key in TABLE_KEYS:
                check_table(key, value, source)
            else:
                settings.warnings.append(unknown_key_warning(key, source))
            settings.extra[key] = value
    for key in RULES:
        env_name = f"PMS_TUI_{key.upper()}"
        env = os.environ.get(env_name)
        if env is not None:
            setattr(settings, key, check_value(key, env, f"The environment variable {env_name}", from_env=True))
    return settings


# Keys that are not Settings fields but have a meaning (tables read by the app).
TABLE_KEYS = {"keys": "a table of key bindings, like [keys] \"app.sync\" = \"f5\""}


@dataclass(frozen=True)
class Rule:
    kind: type
    allowed: str  # "must be ..." completion
    check: Callable[[Any], bool] = lambda value: True  # given a value already of ``kind``


def _whole(low: int, high: int) -> Rule:
    return Rule(int, f"a whole number from {low} to {high}", lambda v: low <= v <= high)


def _weight(high: float = 100.0) -> Rule:
    return Rule(float, f"a number from 0 to {high:g}", lambda v: 0.0 <= v <= high)


RULES: dict[str, Rule] = {
    "model": Rule(str, "a model name such as \"BAAI/bge-small-en-v1.5\"", lambda v: bool(v.strip())),
    "rrf_k": _whole(1, 100_000),
    "bm25_weight": _weight(),
    "vector_weight": _weight(),
    "lane_depth": _whole(1, MAX_DEPTH),
    "query_aware_fusion": Rule(bool, "true or false"),
    "confident_coverage": Rule(float, "a share from 0 to 1.01 (1.01: never)", lambda v: 0.0 <= v <= 1.01),
    "confident_k": _whole(1, 100_000),
    "contradiction_gap": Rule(float, "a cosine difference from 0 to 2 (2: never)", lambda v: 0.0 <= v <= 2.0),
    "contradicted_weight": _weight(1.0),
    "exact_notes": _whole(0, 1000),
    "vector_min_share": Rule(float, "a share from 0 to 1 (0: always fuse)", lambda v: 0.0 <= v <= 1.0),
    "title_weight": _weight(),
    "heading_weight": _weight(),
    "body_weight": _weight(),
    "chunk_target": _whole(100, 100_000),
    "chunk_overlap": _whole(0, 50),
    "embed_batch_size": _whole(1, 4096),
    "max_tokens": _whole(16, 8192),
    "debounce_ms": _whole(0, 10_000),
    "theme": Rule(str, "the name of a theme", lambda v: bool(v.strip())),
    "follow_external_links": Rule(bool, "true or false"),
    "watch": Rule(bool, "true or false"),
    "max_note_mb": _whole(1, 100),
    "max_write_kb": _whole(1, 100_000),
    "writes_per_minute": _whole(1, 100_000),
    "ocr_languages": Rule(str, "Tesseract's language codes joined by \"+\", like \"eng+deu\" (\"\": the notes' own)",
                          lambda v: v == "" or all(re.fullmatch(r"[a-z]{3}(_[a-z]+)?", c) for c in v.split("+"))),
}

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _shown(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return repr(value)
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _typed(rule: Rule, value: object, from_env: bool) -> tuple[bool, object]:
    """(ok, value of the rule's type)."""
    if from_env and isinstance(value, str) and rule.kind is not str:
        raw = value.strip().lower()
        if rule.kind is bool:
            return (True, raw in _TRUE) if raw in _TRUE | _FALSE else (False, value)
        try:
            value = int(raw) if rule.kind is int else float(raw)
        except ValueError:
            return False, value
    if rule.kind is bool:
        return isinstance(value, bool), value
    if isinstance(value, bool):  # bool is an int to Python, not to a person
        return False, value
    if rule.kind is int:
        return isinstance(value, int), value
    if rule.kind is float:
        if isinstance(value, (int, float)) and math.isfinite(value):
            return True, float(value)
        return False, value
    return isinstance(value, rule.kind), value


def check_value(key: str, value: object, source: str, from_env: bool = False) -> object:
    """The value as its setting's type, or ConfigError naming key, value and what is allowed."""
    rule = RULES[key]
    ok, typed = _typed(rule, value, from_env)
    if ok:
        try:
            ok = bool(rule.check(typed))
        except Exception:  # noqa: BLE001 - a check on a weird value is a no
            ok = False
    if not ok:
        raise ConfigError(f"{source}: {key} = {_shown(value)} is not allowed; {key} must be {rule.allowed}.")
    return typed


def check_table(key: str, value: object, source: str) -> None:
    if key == "keys":
        if not isinstance(value, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in value.items()
        ):
            raise ConfigError(f"{source}: {key} = {_shown(value)} is not allowed; {key} must be {TABLE_KEYS[key]}.")


def unknown_key_warning(key: str, source: str) -> str:
    known = [*RULES, *TABLE_KEYS]
    near = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    hint = f"; did you mean {near[0]}?" if near else f" (known keys: {', '.join(sorted(known))})."
    return f"{source} has an unknown key {key!r}, which is ignored{hint}"


def _write_atomic(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` at once: a crash leaves the old file or the new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


# -- app state: what the app remembers between runs (not configuration) -----------------------


def _read_state_file(path: Path) -> dict:
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    return state if isinstance(state, dict) else {}


def load_state(home: Path) -> dict:
    """What the app remembered (the theme chosen, whether the sample guide was offered...),
    read from ``state.json`` in the home; a missing or damaged file is an empty state."""
    return _read_state_file(home / STATE_FILE)


def save_state(home: Path, **values) -> dict:
    """Remember ``values`` in ``state.json`` (written atomically), keeping its other keys;
    returns the whole saved state. Values must be JSON: strings, numbers, booleans, lists."""
    path = home / STATE_FILE
    state = _read_state_file(path)
    state.update(values)
    _write_atomic(path, json.dumps(state, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    return state
