"""Settings: defaults, overridden by ``config.toml`` in the home folder, overridden by env vars;
and the app's state (the theme chosen, the sample offered), kept apart in ``state.json``.

The home folder holds the database, ``config.toml`` (the user's, edited by hand: a change
made from the app keeps its comments and layout) and ``state.json`` (the app's). It is
``--home``, else ``PMS_TUI_HOME``, else the platform's user data dir (platformdirs).
"""

from __future__ import annotations

import json
import os
import tomllib
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

import platformdirs
import tomlkit
import tomlkit.exceptions

from .errors import ConfigError

APP_NAME = "pms-tui"
CONFIG_FILE = "config.toml"
STATE_FILE = "state.json"  # the app state, apart from the configuration
DB_FILE = "index.sqlite"
DEFAULT_MODEL = "pms-tui/all-MiniLM-L6-v2-int8"


@dataclass
class Settings:
    """Everything a user may tune. Names are the keys of config.toml and, upper-cased
    with a ``PMS_TUI_`` prefix, of the environment (``PMS_TUI_RRF_K=30``)."""

    model: str = DEFAULT_MODEL
    rrf_k: int = 60
    # RRF lane weights: 1.5 for BM25 was chosen by two-fold cross-validation on SciFact
    # (docs/evaluation.md); rrf_k stays at the customary 60.
    bm25_weight: float = 1.5
    vector_weight: float = 1.0
    lane_depth: int = 50
    title_weight: float = 2.0
    heading_weight: float = 1.5
    body_weight: float = 1.0
    chunk_target: int = 1000
    chunk_overlap: int = 2
    embed_batch_size: int = 32
    max_tokens: int = 256
    debounce_ms: int = 100
    watch: bool = True  # the app (and `pms-tui watch`) index notes as they are saved
    theme: str = "pms-dark"
    extra: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        data = asdict(self)
        data.update(data.pop("extra"))
        return data


def default_home() -> Path:
    env = os.environ.get("PMS_TUI_HOME")
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def _coerce(name: str, kind: type, raw: object) -> object:
    try:
        if kind is bool:
            return str(raw).lower() in {"1", "true", "yes", "on"}
        return kind(raw)
    except (TypeError, ValueError):
        raise ConfigError(f"Setting {name} must be a {kind.__name__}, not {raw!r}.") from None


def load_settings(home: Path) -> Settings:
    """Read config.toml (if any) then apply ``PMS_TUI_*`` environment overrides."""
    settings = Settings()
    known = {f.name: f for f in fields(Settings) if f.name != "extra"}
    path = home / CONFIG_FILE
    data: dict = {}
    if path.exists():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"Cannot read {path}: {exc}.") from None
    for key, value in data.items():
        if key in known:
            setattr(settings, key, _coerce(key, type(getattr(settings, key)), value))
        else:
            settings.extra[key] = value
    for key in known:
        env = os.environ.get(f"PMS_TUI_{key.upper()}")
        if env is not None:
            setattr(settings, key, _coerce(key, type(getattr(settings, key)), env))
    return settings


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


def save_setting(home: Path, key: str, value: object) -> None:
    """Set one key of config.toml, keeping the user's comments, layout and other keys.

    A config.toml that cannot be parsed is never overwritten: ConfigError says so.
    """
    path = home / CONFIG_FILE
    if path.exists():
        try:
            document = tomlkit.parse(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomlkit.exceptions.ParseError) as exc:
            raise ConfigError(f"{path} cannot be read ({exc}); it was left as it is: fix it to change {key}.") from None
    else:
        document = tomlkit.document()
    document[key] = value
    _write_atomic(path, tomlkit.dumps(document))


# -- app state: what the app remembers between runs (not configuration) -----------------------
# Keys that older versions wrote into config.toml; read from there while state.json lacks them.
LEGACY_STATE_KEYS = ("theme", "sample_added")


def _read_state_file(path: Path) -> dict:
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    return state if isinstance(state, dict) else {}


def load_state(home: Path) -> dict:
    """What the app remembered (the theme chosen, whether the sample guide was offered...).

    Read from ``state.json`` in the home; a missing or damaged file is an empty state. Keys
    that older versions kept in config.toml (``theme``, ``sample_added``) still count when
    the state file does not have them.
    """
    state: dict = {}
    config = home / CONFIG_FILE
    if config.exists():
        try:
            data = tomllib.loads(config.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            data = {}
        state.update({key: data[key] for key in LEGACY_STATE_KEYS if key in data})
    state.update(_read_state_file(home / STATE_FILE))
    return state


def save_state(home: Path, **values) -> dict:
    """Remember ``values`` in ``state.json`` (written atomically), keeping its other keys;
    returns the whole saved state. Values must be JSON: strings, numbers, booleans, lists."""
    path = home / STATE_FILE
    state = _read_state_file(path)
    state.update(values)
    _write_atomic(path, json.dumps(state, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    return state
