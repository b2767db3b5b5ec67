"""Point 7: bad configuration, damaged indexes and read-only homes get one clear sentence."""

from __future__ import annotations

import json
import os
import stat

import pytest

from tests.faults.faults_helpers import assert_healthy, cli, cli_env, read_only_prefix, text

BAD_VALUES = [
    ("chunk_target = 0", "chunk_target"),
    ("chunk_target = -5", "chunk_target"),
    ("rrf_k = -2", "rrf_k"),
    ("rrf_k = 0", "rrf_k"),
    ("bm25_weight = nan", "bm25_weight"),
    ("title_weight = inf", "title_weight"),
    ("vector_weight = -1.0", "vector_weight"),
    ('lane_depth = "many"', "lane_depth"),
    ("lane_depth = 0", "lane_depth"),
    ("chunk_overlap = -1", "chunk_overlap"),
    ("embed_batch_size = 0", "embed_batch_size"),
    ("max_tokens = 1", "max_tokens"),
    ("debounce_ms = -3", "debounce_ms"),
    ("rrf_k = true", "rrf_k"),
    ("rrf_k = 1.5", "rrf_k"),
    ("theme = 3", "theme"),
    ("model = ''", "model"),
    ("keys = 5", "keys"),
    ("rrf_k = [1, 2]", "rrf_k"),
]


@pytest.mark.parametrize("line, key", BAD_VALUES, ids=[b[0] for b in BAD_VALUES])
def test_a_bad_value_is_one_sentence_naming_key_value_and_what_is_allowed(tmp_path, line, key):
    from pms_tui.core.config import load_settings
    from pms_tui.core.errors import ConfigError, describe

    (tmp_path / "config.toml").write_text(line + "\n")
    with pytest.raises(ConfigError) as caught:
        load_settings(tmp_path)
    err = describe(caught.value)
    assert key in err and "must be" in err and err.count("\n") == 0 and err.endswith("."), err
    value = line.split("=", 1)[1].strip().strip("'\"")
    assert value.lower() in err.lower() or value == "", err


def test_a_bad_value_on_the_command_line_is_one_sentence(home):
    home.mkdir()
    (home / "config.toml").write_text("chunk_target = 0\n")
    proc = cli(home, "sync", check=False)
    err = text(proc.stderr).strip()
    assert proc.returncode != 0 and "chunk_target = 0 is not allowed" in err and err.count("\n") == 0, err


def test_an_environment_value_is_checked_the_same_way(home):
    proc = cli(home, "collections", check=False, env=cli_env(home, PMS_TUI_RRF_K="-2"))
    assert proc.returncode != 0 and "rrf_k" in text(proc.stderr) and "-2" in text(proc.stderr)
    proc = cli(home, "search", "x", "--json", check=False, env=cli_env(home, PMS_TUI_BM25_WEIGHT="nan"))
    assert proc.returncode != 0 and "bm25_weight" in text(proc.stderr)


def test_an_unknown_key_is_reported_with_a_did_you_mean(home):
    home.mkdir()
    (home / "config.toml").write_text("rrf_kk = 30\n")
    proc = cli(home, "collections", check=False)
    err = text(proc.stderr)
    assert "rrf_kk" in err and "rrf_k" in err.replace("rrf_kk", "") and "mean" in err, err


def test_search_json_is_valid_json_whatever_the_weights(home, notes):
    (notes / "a.md").write_text("# A\n\nzeppelin\n")
    cli(home, "add", str(notes), "--name", "notes")
    cli(home, "sync")
    out = cli(home, "search", "zeppelin", "--json").stdout
    json.loads(out)
    assert b"NaN" not in out and b"Infinity" not in out


def test_errors_are_not_prefixed_with_a_class_name(home):
    home.mkdir()
    (home / "index.sqlite").write_bytes(b"this is not a database at all" * 100)
    proc = cli(home, "collections", check=False)
    err = text(proc.stderr)
    assert proc.returncode != 0 and "Error:" not in err and "damaged" in err, err


def damage_last_page(path):
    size = path.stat().st_size
    with open(path, "r+b") as handle:
        page = 4096
        handle.seek(size - 2 * page)
        handle.write(os.urandom(page))


def test_doctor_finds_a_damaged_page_and_repair_rebuilds_it(five_notes_home):
    home = five_notes_home
    db = home / "index.sqlite"
    for extra in home.glob("index.sqlite-*"):
        extra.unlink()
    damage_last_page(db)
    doctor = cli(home, "doctor", check=False)
    out = text(doctor.stdout) + text(doctor.stderr)
    assert doctor.returncode != 0 and "BAD" in out and "repair" in out, out
    repaired = cli(home, "repair", check=False)
    assert repaired.returncode == 0, text(repaired.stderr)
    assert_healthy(home)
    assert "ok" in text(cli(home, "doctor").stdout)
    assert cli(home, "search", "river", "--mode", "bm25").stdout.strip()


def test_doctor_finds_vectors_missing_from_the_vector_table(five_notes_home):
    import sqlean as sqlite3
    import sqlite_vec

    home = five_notes_home
    conn = sqlite3.connect(str(home / "index.sqlite"))
    conn.enable_load_extension(True)
    sqlite_vec.load(conn)
    conn.execute("DELETE FROM vec_vectors WHERE rowid IN (SELECT rowid FROM vec_vectors LIMIT 3)")
    conn.commit()
    conn.close()
    doctor = cli(home, "doctor", check=False)
    assert doctor.returncode != 0 and "repair" in text(doctor.stdout), text(doctor.stdout)
    cli(home, "repair")
    assert_healthy(home)


@pytest.fixture
def read_only_home(five_notes_home):
    """A synced home this process cannot write (a read-only bind mount as root, else the
    write permissions removed); yields (home, prefix for the CLI)."""
    home = five_notes_home
    prefix = read_only_prefix(home)
    changed = []
    if prefix is None:
        if os.geteuid() == 0:
            pytest.skip("running as root without unshare: the home cannot be made read-only")
        for path in [home, *home.iterdir()]:
            changed.append((path, path.stat().st_mode))
            path.chmod(path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    yield home, prefix
    for path, mode in changed:
        path.chmod(mode)


def test_read_only_commands_work_on_a_read_only_home(read_only_home):
    home, prefix = read_only_home
    for args in (["collections"], ["search", "river"], ["search", "river", "--mode", "bm25"], ["status"],
                 ["show", "notes/group0/note-d0.md"]):
        proc = cli(home, *args, check=False, prefix=prefix)
        assert proc.returncode == 0, (args, text(proc.stdout) + text(proc.stderr))
        assert "readonly" not in text(proc.stderr)


def test_writing_on_a_read_only_home_says_so_in_one_sentence(read_only_home):
    home, prefix = read_only_home
    proc = cli(home, "sync", check=False, prefix=prefix)
    err = text(proc.stderr).strip()
    assert proc.returncode != 0 and err.count("\n") == 0 and "read-only" in err, err
