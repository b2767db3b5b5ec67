"""``pms-tui mcp`` within what an agent's client takes in one tool result, measured on what the
SDK's own client receives: ``multi_get`` within ``max_bytes`` with everything counted, ``get``
in pages that add up to the note, a line longer than a page included."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.kb_helpers import text_only_kb
from tests.mcp_client import McpClient

MANY = 60
SPOKES = 600
# about 200 KB of lines of different lengths, each numbered, so a page out of order shows
BIG = "# A big note\n\n" + "".join(f"{i:05d} {'telescope ' * (i % 23)}mirror\n" for i in range(1, 2601))
WIDE_LINE = "".join(f"{i:07d} " for i in range(12_500))  # 100,000 characters, no newline
WIDE = f"# One wide line\n\n{WIDE_LINE}\nafter the wide line\n"
# short lines of quotes and backslashes: each takes two characters once escaped in JSON
ESCAPED = "".join(f'"{i}" \\ "\n' for i in range(12_000))
PAGE = 40_000
# Claude Code files a result of more than 50,000 characters away instead of showing it
CLIENT_CHARS = 50_000


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("budgets")
    folder = root / "notes"
    (folder / "many").mkdir(parents=True)
    for i in range(MANY):
        body = f"# Note {i}\n\nA note about lenses number {i}. " + "Glass and light. " * 60 + "\n"
        (folder / "many" / f"note-{i:02d}.md").write_text(body, encoding="utf-8")
    (folder / "big.md").write_text(BIG, encoding="utf-8")
    (folder / "wide.md").write_text(WIDE, encoding="utf-8")
    (folder / "escaped.md").write_text(ESCAPED, encoding="utf-8")
    # a hub with more backlinks than one result holds
    (folder / "hub.md").write_text("# Hub\n\nEvery spoke links here.\n", encoding="utf-8")
    (folder / "spokes").mkdir()
    for i in range(SPOKES):
        (folder / "spokes" / f"spoke-{i:04d}.md").write_text(f"# Spoke {i}\n\nSee [[hub]] for spoke {i}.\n",
                                                            encoding="utf-8")
    text_only_kb(root / "home", folder).close()
    return root


@pytest.fixture(scope="module")
def client(home):
    session = McpClient(home / "home")
    yield session
    session.close()


def received(result) -> tuple[int, int]:
    """(UTF-8 bytes of the whole result as the client holds it, of its text blocks plus its
    structured content as compact JSON)."""
    whole = len(result.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8"))
    parts = sum(len(block.text.encode("utf-8")) for block in result.content)
    parts += len(json.dumps(result.structured_content, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    return whole, parts


def data(result) -> dict:
    assert not result.is_error, result.content[0].text
    return result.structured_content


@pytest.mark.parametrize("max_bytes", [2_000, 5_000, 20_000, 60_000])
def test_multi_get_of_many_notes_stays_within_max_bytes_and_says_what_it_left_out(client, home, max_bytes):
    result = client.call("multi_get", {"pattern": "notes/many/*.md", "max_bytes": max_bytes})
    got = data(result)
    whole, parts = received(result)
    assert whole <= max_bytes and parts <= max_bytes, (whole, parts)
    assert got["bytes"] <= max_bytes
    given = [n["id"] for n in got["notes"]]
    listed = [s["id"] for s in got["skipped"]]
    assert len(given) + len(listed) + got.get("unlisted", 0) == MANY
    assert not set(given) & set(listed)
    for note in got["notes"]:
        assert note["text"] == (home / note["id"]).read_bytes().decode("utf-8")
    if listed or got.get("unlisted"):
        assert "max_bytes" in got["over_budget"]
    assert all(s["total_lines"] > 0 for s in got["skipped"])
    if max_bytes >= 20_000:  # room for every name: nothing is left out unnamed
        assert "unlisted" not in got and given


def test_multi_get_below_its_smallest_budget_is_one_sentence(client):
    result = client.call("multi_get", {"pattern": "notes/many/*.md", "max_bytes": 300})
    assert result.is_error and "at least 2000" in result.content[0].text


def read_in_pages(client, note: str) -> tuple[list[dict], str]:
    """Every page of ``note`` by following next_start_line (and next_start_char); the pages and
    the text they add up to."""
    pages: list[dict] = []
    args: dict = {"note": note}
    text = ""
    while True:
        result = client.call("get", args)
        page = data(result)
        whole, _ = received(result)
        assert len(page["text"]) <= PAGE
        assert len(result.model_dump_json(by_alias=True, exclude_unset=True)) < 2 * CLIENT_CHARS
        # what Claude Code hands the model (the structured content), and what text-only clients show
        assert len(json.dumps(page, ensure_ascii=False, separators=(",", ":"))) <= PAGE
        assert sum(len(block.text) for block in result.content) <= PAGE
        text += page["text"]  # each line comes with its line ending: nothing to add between pages
        pages.append(page)
        assert len(pages) < 50
        if not page.get("truncated"):
            return pages, text
        args = {"note": note, "start_line": page["next_start_line"]}
        if "next_start_char" in page:
            args["start_char"] = page["next_start_char"]


def test_a_200_kb_note_comes_in_pages_that_add_up_to_it_once_in_order(client):
    first = data(client.call("get", {"note": "notes/big.md"}))
    assert len(first["text"]) <= PAGE and first["truncated"] and first["next_start_line"] > 1
    assert len(BIG) > 190_000
    pages, text = read_in_pages(client, "notes/big.md")
    assert len(pages) >= 5 and text == BIG
    for before, after in zip(pages, pages[1:]):  # each page starts where the one before ended
        assert after["lines"][0] == before["lines"][1] + 1 == before["next_start_line"]
    assert all(page["text"].endswith("mirror\n") for page in pages)  # no line cut in half
    assert not any("cut" in page for page in pages)


def test_a_page_of_quotes_and_short_lines_fits_once_escaped(client):
    pages, text = read_in_pages(client, "notes/escaped.md")
    assert text == ESCAPED and len(pages) >= 3
    assert all(len(json.dumps(page["text"])) <= PAGE + 2 for page in pages)


def test_a_line_longer_than_a_page_is_read_in_parts_and_said_so(client):
    pages, text = read_in_pages(client, "notes/wide.md")
    assert text == WIDE
    cut = [page for page in pages if "cut" in page]
    assert len(cut) == 2 and all(page["lines"] == [3, 3] for page in cut)
    assert "Line 3 has 100,000 characters" in cut[0]["cut"] and PAGE - 1000 < cut[0]["next_start_char"] < PAGE
    small = data(client.call("get", {"note": "notes/wide.md", "start_line": 3, "max_chars": 1000}))
    assert WIDE_LINE.startswith(small["text"]) and small["next_start_char"] == len(small["text"]) > 200
    assert len(json.dumps(small, ensure_ascii=False, separators=(",", ":"))) <= 1000


def test_max_chars_is_capped(client):
    page = data(client.call("get", {"note": "notes/big.md", "max_chars": 10**9}))
    assert len(page["text"]) <= 100_000 and "max_chars capped" in page["capped"]


def test_a_search_for_many_hits_answers_within_a_page(client):
    """k may be as large as the engine allows, but the answer stays as long as a page of get:
    the best hits first, and a sentence saying how many were left out."""
    got = data(client.call("search", {"query": "telescope mirror lenses glass light", "k": 10_000, "mode": "bm25"}))
    size = len(json.dumps(got, ensure_ascii=False, separators=(",", ":")))
    assert size <= CLIENT_CHARS
    [left] = [n for n in got["notes"] if "more hits were left out" in n]
    assert int(left.split()[0].replace(",", "")) > 0 and len(got["hits"]) > 10
    assert [h["score"] for h in got["hits"]] == sorted((h["score"] for h in got["hits"]), reverse=True)


@pytest.mark.parametrize("tool,args,key", [
    ("backlinks", {"note": "notes/hub.md"}, "backlinks"),
    ("search", {"query": "spoke", "k": 2000, "mode": "bm25"}, "hits"),
])
def test_a_long_list_stays_within_the_budget_in_its_structured_form(client, tool, args, key):
    """Claude Code hands the model structuredContent: it keeps within 40,000 characters as the
    text does, and says what it left out."""
    result = client.call(tool, args)
    got = data(result)
    assert len(json.dumps(got, ensure_ascii=False, separators=(",", ":"))) <= PAGE
    assert sum(len(block.text) for block in result.content) <= PAGE
    assert 0 < len(got[key]) < SPOKES
    if tool == "backlinks":
        assert got["left_out"] == {"backlinks": SPOKES - len(got[key])} and "backlinks" in got["over_budget"]
