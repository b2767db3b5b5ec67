"""Settings: defaults, overridden by ``config.toml`` in the home folder, overridden by env vars.

The home folder holds the database and ``config.toml``. It is ``--home``, else
``PMS_TUI_HOME``, else the platform's user data dir (platformdirs).
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

import platformdirs
import tomli_w

from .errors import ConfigError

APP_NAME = "pms-tui"
CONFIG_FILE = "config.toml"
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


def save_setting(home: Path, key: str, value: object) -> None:
    """Remember one setting in config.toml, keeping the user's other keys."""
    path = home / CONFIG_FILE
    data: dict = {}
    if path.exists():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            data = {}
    data[key] = value
    home.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{CONFIG_FILE}.tmp")
    tmp.write_text(tomli_w.dumps(data), encoding="utf-8")
    os.replace(tmp, path)
