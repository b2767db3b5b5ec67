"""Bad files of many kinds in one notes folder: each is indexed or skipped with a reason, none
is modified, none stays "new" forever, and nothing raw reaches the terminal."""

from __future__ import annotations

import json
import os
import socket

from tests.faults.faults_helpers import assert_healthy, assert_terminal_safe, cli, text, tree_hashes

TEXT = "# Title\n\nwombat body text\n"

# name -> bytes (or a callable making the entry); the expected outcome: "indexed" or "skipped"
KINDS: dict[str, tuple[object, str]] = {
    "empty.md": (b"", "indexed"),
    "whitespace.md": (b"   \n\n\t\n", "indexed"),
    "only-frontmatter.md": (b"---\ntitle: Only\n---\n", "indexed"),
    "broken-yaml.md": (b"---\ntitle: [unclosed\n  - : :\n---\n# Body\n\nwombat\n", "indexed"),
    "yaml-bomb.md": (b"---\na: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
                     b"c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
                     b"e: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n---\n# Bomb\n\nwombat\n", "indexed"),
    "python-tag-yaml.md": (b"---\nx: !!python/object/apply:os.system ['echo pwned']\n---\n# T\n", "indexed"),
    "nul-binary.md": (b"\x00\x01\x02\x03binary", "skipped"),
    "png-renamed.md": (bytes.fromhex("89504e470d0a1a0a0000000d49484452") + b"\x00" * 64, "skipped"),
    "nul-late.md": (b"# Late NUL\n\n" + b"wombat " * 2000 + b"\x00 end\n", "indexed"),
    "latin1.md": ("# Café crème\n\nwombat\n".encode("latin-1"), "skipped"),
    "bad-utf8-middle.md": (b"# T\n\nwombat \xff\xfe broken\n", "skipped"),
    "overlong-utf8.md": (b"# T\n\n\xc0\xaf wombat\n", "skipped"),
    "surrogate-utf8.md": (b"# T\n\n\xed\xa0\x80 wombat\n", "skipped"),
    "utf8-bom.md": (b"\xef\xbb\xbf" + TEXT.encode(), "indexed"),
    "utf16-bom.md": (TEXT.encode("utf-16"), "indexed"),
    "utf16-no-bom.md": (TEXT.encode("utf-16-le"), "skipped"),
    "crlf.md": (TEXT.replace("\n", "\r\n").encode(), "indexed"),
    "cr-only.md": (TEXT.replace("\n", "\r").encode(), "indexed"),
    "escapes.md": (b"# \x1b]0;t\x07T\n\nwombat \x1b[2J \x1b]52;c;eA==\x07\n", "indexed"),
    "bidi.md": ("# \u202eevil\n\nwombat\n".encode(), "indexed"),
    "long-line.md": (b"# Long\n\n" + b"A" * 200_000 + b"\n", "indexed"),
    "many-headings.md": (b"".join(b"# H%d\n" % i for i in range(5_000)), "indexed"),
    "deep-lists.md": (b"".join(b"  " * i + b"- item\n" for i in range(1200)), "indexed"),
    "unclosed-fence.md": (b"# T\n\n```python\n" + b"x = 1\n" * 5000, "indexed"),
    "huge-fence-marker.md": (b"`" * 20_000 + b"\nwombat\n" + b"`" * 20_000 + b"\n", "indexed"),
    "nested-blockquotes.md": (b">" * 5_000 + b" wombat\n", "indexed"),
    "table-wide.md": (b"|" + b"c|" * 2_000 + b"\n|" + b"-|" * 2_000 + b"\n", "indexed"),
    "html-only.md": (b"<script>alert(1)</script><div>wombat</div>\n", "indexed"),
    "UPPER.MD": (TEXT.encode(), "indexed"),
    "a.markdown": (TEXT.encode(), "indexed"),
    "name with\nnewline.md": (TEXT.encode(), "indexed"),
    "name\x1b[2J.md": (TEXT.encode(), "indexed"),
    "[@click=app.quit].md": (TEXT.encode(), "indexed"),
}


def make_specials(folder):
    """Entries that are not plain files: each must be left alone without hanging the sync."""
    made = {}
    os.mkfifo(folder / "fifo.md")  # reading it would block forever
    made["fifo.md"] = "ignored"
    (folder / "dir.md").mkdir()  # a folder with a note's name
    (folder / "dir.md" / "inside.md").write_text(TEXT)
    made["dir.md/inside.md"] = "indexed"
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(folder / "sock.md"))
    made["sock.md"] = "ignored"
    os.symlink("/dev/zero", folder / "zero.md")  # endless bytes through a link
    made["zero.md"] = "skipped"
    os.symlink("nowhere.md", folder / "dangling.md")
    made["dangling.md"] = "ignored-or-skipped"
    os.symlink("selfloop.md", folder / "selfloop.md")
    made["selfloop.md"] = "ignored-or-skipped"
    bad_name = os.fsencode(folder) + b"/bad-\xff-name.md"
    with open(bad_name, "wb") as handle:
        handle.write(TEXT.encode())
    made["bad-\ufffd-name.md"] = "skipped"  # reported under a readable name
    (folder / ".hidden.md").write_text(TEXT)
    made[".hidden.md"] = "ignored"
    os.link(folder / "utf8-bom.md", folder / "hardlink.md")
    made["hardlink.md"] = "indexed"
    return made, sock


def test_every_kind_of_bad_file_is_indexed_or_skipped_with_a_reason(home, notes):
    for name, (data, _expect) in KINDS.items():
        (notes / name).write_bytes(data)
    specials, sock = make_specials(notes)
    try:
        before = tree_hashes(notes)
        cli(home, "add", str(notes), "--name", "notes")
        proc = cli(home, "sync", "--json", timeout=900)
        report = json.loads(proc.stdout)
        added = {p.removeprefix("notes/") for p in report["added"]}
        skipped = {s["path"].removeprefix("notes/"): s["reason"] for s in report["skipped"]}
        for name, (_data, expect) in KINDS.items():
            if expect == "indexed":
                assert name in added, (name, skipped.get(name))
            else:
                assert name in skipped and skipped[name], (name, added)
        for name, expect in specials.items():
            outcome = "indexed" if name in added else "skipped" if name in skipped else "ignored"
            assert outcome in expect, (name, outcome)
        plain = cli(home, "sync")
        assert_terminal_safe(plain.stdout)
        status = cli(home, "status")
        assert "+0 new, ~0 modified, -0 deleted" in text(status.stdout), text(status.stdout)
        assert_terminal_safe(cli(home, "search", "wombat", "-k", "50").stdout)
        assert tree_hashes(notes) == before  # no note was touched
        assert_healthy(home)
        kinds = len(KINDS) + len(specials)
        print(f"\nfile kinds tried: {kinds}")
    finally:
        sock.close()
