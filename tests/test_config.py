"""config.toml (the user's, edited by hand) and state.json (the app's)."""

from __future__ import annotations

import json

import pytest

from pms_tui.core.config import CONFIG_FILE, STATE_FILE, load_settings, load_state, save_state
from pms_tui.core.errors import ConfigError, PmsError, describe

HAND_WRITTEN = """\
# my pms-tui settings
model = "pms-tui/all-MiniLM-L6-v2-int8"   # the offline one
rrf_k = 30

[keys]                   # remapped keys
"app.sync" = "f5"        # F5 like a browser
"""


def test_state_is_kept_apart_from_the_config(tmp_path):
    (tmp_path / CONFIG_FILE).write_text(HAND_WRITTEN)
    assert load_state(tmp_path) == {}
    assert save_state(tmp_path, theme="pms-light") == {"theme": "pms-light"}
    save_state(tmp_path, sample_added=True)
    assert load_state(tmp_path) == {"theme": "pms-light", "sample_added": True}
    assert json.loads((tmp_path / STATE_FILE).read_text()) == {"sample_added": True, "theme": "pms-light"}
    assert (tmp_path / CONFIG_FILE).read_text() == HAND_WRITTEN  # the config is not touched
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_an_unparsable_config_is_one_clear_sentence(tmp_path):
    (tmp_path / CONFIG_FILE).write_text('model = "unclosed\n')
    with pytest.raises(ConfigError, match="Cannot read") as caught:
        load_settings(tmp_path)
    assert isinstance(caught.value, PmsError) and "\n" not in describe(caught.value)


def test_a_damaged_state_file_is_an_empty_state(tmp_path):
    (tmp_path / STATE_FILE).write_text("{not json")
    assert load_state(tmp_path) == {}
    assert save_state(tmp_path, theme="pms-dark") == {"theme": "pms-dark"}
    (tmp_path / STATE_FILE).write_text("[1, 2]")
    assert load_state(tmp_path) == {}


def test_every_setting_has_a_validation_rule():
    """A setting without a rule would be ignored from config.toml and the environment
    (``watch = false`` once was)."""
    from dataclasses import fields

    from pms_tui.core.config import RULES, Settings

    assert {f.name for f in fields(Settings)} - {"extra", "warnings"} == set(RULES)
