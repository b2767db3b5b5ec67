"""Point 4: memory stays bounded whatever the shape of a note.

Each shape is indexed by the real CLI in a child process whose peak RSS is read from the
kernel (``wait4``'s ru_maxrss). Both cases are ``slow`` (each indexes megabytes with the real
model): ``python -m pytest -q -m slow tests/faults -s`` prints each peak.
"""

from __future__ import annotations

import base64
import os
import random
import subprocess
import sys

import pytest

from faults_helpers import cli, cli_env

from pms_tui.core.kb import MAX_NOTE_BYTES

LIMIT_MB = 600


def peak_rss_mb(home, *args) -> tuple[float, int, str]:
    proc = subprocess.Popen([sys.executable, "-m", "pms_tui", *args], env=cli_env(home),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = proc.stderr.read().decode("utf-8", "replace")
    _pid, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_maxrss / 1024, proc.returncode, err  # ru_maxrss is KiB on Linux


def base64_line(size: int) -> bytes:
    raw = random.Random(4).randbytes(size * 3 // 4)
    return b"# Inline image\n\n![img](data:image/png;base64," + base64.b64encode(raw) + b")\n"


def shapes(size: int) -> dict[str, bytes]:
    words = b"lorem ipsum dolor sit amet consectetur adipiscing elit "
    return {
        "base64-line.md": base64_line(size),
        "one-paragraph.md": b"# Para\n\n" + words * (size // len(words)) + b"\n",
        "short-lines.md": b"# Lines\n\n" + (b"a short line of text\n" * (size // 21)),
        "one-fence.md": b"```\n" + (b"x = compute(y) + 1\n" * (size // 19)) + b"```\n",
        "headings.md": b"".join(b"## h %d\n" % i for i in range(size // 8))[:size],  # under the size limit
        "list-items.md": b"- x\n" * (size // 4),  # the densest Markdown: two blocks every 4 bytes
        "cjk-no-spaces.md": ("東京の天気" * (size // 15)).encode(),
    }


def index_shape(tmp_path, name, data) -> tuple[float, str]:
    home, notes = tmp_path / f"home-{name}", tmp_path / f"notes-{name}"
    notes.mkdir()
    (notes / name).write_bytes(data)
    cli(home, "add", str(notes), "--name", "notes")
    rss, code, err = peak_rss_mb(home, "sync")
    assert code == 0 and "Traceback" not in err, err
    return rss, cli(home, "status").stdout.decode()


@pytest.mark.slow
@pytest.mark.parametrize("name", list(shapes(1)))
def test_a_note_at_the_size_limit_of_any_shape_indexes_within_600_mb(tmp_path, name):
    data = shapes(MAX_NOTE_BYTES - 1000)[name]  # just under the size limit
    rss, _status = index_shape(tmp_path, name, data)
    print(f"\npeak RSS, {len(data) / 1e6:.0f} MB {name}: {rss:.0f} MB")
    assert rss < LIMIT_MB, f"{name}: {rss:.0f} MB"
