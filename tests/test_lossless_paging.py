"""Pages of a note joined in order are the file, byte for byte: ``KnowledgeBase.notes.read`` gives
each line with its own line ending, so nothing is lost at a page boundary (a newline used to
go at each one) or at the end (a whole note used to be one character short). Real notes of
the Obsidian help vault (../shared/corpora, read in place and written to a temporary folder
as they are, with CRLF endings, and without a last newline), through the engine and through
the MCP server's get and its resources, with the SDK's own client."""

from __future__ import annotations

import pytest

from pms_tui.core.kb import KnowledgeBase
from tests.kb_helpers import CORPORA
from tests.mcp_client import McpClient

HELP = CORPORA / "markdown" / "obsidian-help" / "en"
SOURCES = ["Bases/Functions.md", "Linking notes and files/Internal links.md", "Editing and formatting/Callouts.md"]
pytestmark = pytest.mark.skipif(not (HELP / SOURCES[0]).is_file(), reason="../shared/corpora/markdown is absent")


def _variants() -> dict[str, bytes]:
    """Each real note as it is, with CRLF line endings, and without its last newline."""
    notes: dict[str, bytes] = {}
    for rel in SOURCES:
        data = (HELP / rel).read_bytes()
        stem = rel.rsplit("/", 1)[-1].removesuffix(".md").replace(" ", "-").lower()
        notes[f"{stem}.md"] = data
        notes[f"{stem}-crlf.md"] = data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
        notes[f"{stem}-open.md"] = data.rstrip(b"\r\n")
    notes["tiny-open.md"] = b"one line, no newline"
    return notes


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    root = tmp_path_factory.mktemp("paging")
    folder = root / "notes"
    folder.mkdir()
    for name, data in _variants().items():
        (folder / name).write_bytes(data)
    with KnowledgeBase(home=root / "home") as kb:
        kb.collections.create(folder, name="notes")
        kb.sync(embed=False)
    return root


def _pages(read, note: str, max_chars: int) -> list:
    pages, start, start_char = [], None, 0
    while True:
        page = read(note, start, max_chars, start_char)
        pages.append(page)
        assert len(pages) < 500
        if page["next_start_line"] is None:
            return pages
        start, start_char = page["next_start_line"], page.get("next_start_char") or 0


def test_the_engines_pages_join_to_the_file(home):
    with KnowledgeBase(home=home / "home") as kb:
        def read(note, start, max_chars, start_char):
            got = kb.notes.read(note, start, None, max_chars, start_char=start_char)
            return {"text": got.text, "next_start_line": got.next_start_line, "next_start_char": got.next_start_char,
                    "lines": (got.first, got.last)}

        for name, data in _variants().items():
            whole = kb.notes.read(f"notes/{name}")
            assert whole.text.encode("utf-8") == data and whole.next_start_line is None, name
            for max_chars in (1000, 4000):
                pages = _pages(read, f"notes/{name}", max_chars)
                assert "".join(p["text"] for p in pages).encode("utf-8") == data, (name, max_chars)
                assert all(len(p["text"]) <= max_chars for p in pages)
                for before, after in zip(pages, pages[1:]):
                    assert after["lines"][0] in (before["lines"][1], before["lines"][1] + 1)
        # the Functions page of the help at 1,000 characters: many pages, not a character lost
        assert len(_pages(read, "notes/functions.md", 1000)) >= 20
        # a range of lines is those lines with their endings; CRLF as the file has it
        part = kb.notes.read("notes/functions-crlf.md:3-5")
        assert part.text == "".join((HELP / SOURCES[0]).read_bytes().decode().replace("\n", "\r\n")
                                    .splitlines(keepends=True)[2:5])


@pytest.fixture(scope="module")
def client(home):
    c = McpClient(home / "home")
    yield c
    c.close()


def test_get_pages_and_resources_join_to_the_file(client):
    def read(note, start, max_chars, start_char):
        args = {"note": note, "max_chars": max_chars}
        if start is not None:
            args |= {"start_line": start, "start_char": start_char}
        result = client.call("get", args)
        assert not result.is_error, result.content[0].text
        got = result.structured_content
        assert result.content[1].text == got["text"]  # the text block is the page as written
        return {**got, "next_start_line": got.get("next_start_line")}

    for name, data in _variants().items():
        pages = _pages(read, f"notes/{name}", 1000)
        assert "".join(p["text"] for p in pages).encode("utf-8") == data, name
        whole = client.call("get", {"note": f"notes/{name}"}).structured_content
        assert whole["text"].encode("utf-8") == data and not whole.get("truncated")
        resource = client.run(lambda s, n=name: s.read_resource(f"pms://note/notes/{n}"))
        assert resource.contents[0].text.encode("utf-8") == data


def test_a_page_never_ends_between_a_lines_cr_and_its_lf():
    """A line longer than a page is cut inside its text, never inside its CRLF ending: the
    next page starts at the ending, which a request may name (start_char == the line's length)."""
    from pms_tui.core.paging import file_lines, page

    lines = file_lines("x" * 10 + "\r\n" + "next\r\n")
    got = page("n", lines, 1, 2, 0, 11)
    assert got.text == "x" * 10 and (got.next_start_line, got.next_start_char) == (1, 10)
    rest = page("n", lines, 1, 2, got.next_start_char, 11)
    assert got.text + rest.text == "".join(lines) and rest.next_start_line is None
