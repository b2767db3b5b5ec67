"""Turning extracted pages into note files: names, frontmatter, duplicates, atomic writes."""

from __future__ import annotations

import hashlib
import os
import re
import socket
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from pms_tui.core.clip import note as clip_module
from pms_tui.core.clip.note import ClipResult, clip_page, clip_url, render_note, slugify
from pms_tui.core.clip.html_to_markdown import ExtractedPage
from pms_tui.core.errors import ClipError

try:
    from tests.webserver import BLOG_BOILERPLATE, JS_CODE, PY_CODE, web  # noqa: F401 - the fixture is used by name
except ImportError:  # tests/ imported as a package
    from tests.webserver import BLOG_BOILERPLATE, JS_CODE, PY_CODE, web  # noqa: F401

TODAY = date(2024, 5, 1)
CLIPPED_AT = datetime(2024, 5, 1, 12, 30, 5, tzinfo=timezone(timedelta(hours=2)))

YAML_TRICKY = [
    'Title: "quoted" # not a comment --- \'x\'',
    "line one\nline two",
    "trailing newline\n",
    "---",
    "...",
    "a\n---\nb",
    "a\n...\nb",
    "- looks like a list",
    "? looks like a key",
    "key: value: more",
    "# only a comment",
    "{flow: mapping}",
    "[flow, list]",
    "*alias &anchor !tag",
    "| block",
    "> folded",
    "@at `backtick` %percent",
    "yes",
    "null",
    "~",
    "2024-01-01",
    "12:30",
    "0x1F",
    "1e3",
    "  padded  ",
    "tab\there",
    "back\\slash",
    "emoji 🎉 and 日本語",
    "line\u2028separator",
    "next\x85line",
    "bell\x07",
    "",
]


def page(**fields) -> ExtractedPage:
    values = dict(
        title="A test page",
        content="# A test page\n\nSome body text with a [link](https://example.org/).\n",
        url="https://example.org/posts/test",
        author="Jo Writer",
        date="2024-04-30",
        sitename="Example Blog",
        description="What the page is about.",
    )
    values.update(fields)
    return ExtractedPage(**values)


def split_note(text: str) -> tuple[dict, str]:
    """Frontmatter and body, split the way the indexer does (the first ``---``/``...`` line
    closes the frontmatter), minus the one blank line that separates them."""
    lines = text.split("\n")
    assert lines[0] == "---"
    end = next(i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "..."))
    assert lines[end] == "---" and lines[end + 1] == ""
    return yaml.safe_load("\n".join(lines[1:end])), "\n".join(lines[end + 2 :])


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (hidden ones too) with its bytes."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    notes = tmp_path / "notes"
    (notes / "projects").mkdir(parents=True)
    (notes / "hello.md").write_text("---\ntitle: Hello\n---\n\nMy own note.\n", encoding="utf-8")
    (notes / "projects" / "plan.md").write_text("No frontmatter here.\n", encoding="utf-8")
    (notes / "broken.md").write_text("---\ntitle: [unclosed\n---\nbody\n", encoding="utf-8")
    (notes / "endless.md").write_text("---\nurl: https://example.org/posts/test\n" + "x" * 200_000, encoding="utf-8")
    (notes / "binary.md").write_bytes(b"---\n\xff\xfe\x00garbage\n---\n")
    (notes / ".obsidian").mkdir()
    (notes / ".obsidian" / "workspace.json").write_text("{}", encoding="utf-8")
    return notes


# --------------------------------------------------------------------------------------
# slugify
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("title", "slug"), [
    ("Hello, World!", "hello-world"),
    ("Lazy pipelines with Python generators", "lazy-pipelines-with-python-generators"),
    ("Crème brûlée à la façon de grand-mère", "creme-brulee-a-la-facon-de-grand-mere"),
    ("Straße, Œuvre, Łódź, Ærø", "strasse-oeuvre-lodz-aero"),
    ("ﬁle ＡＢＣ ①", "file-abc-1"),
    ("../../etc/passwd", "etc-passwd"),
    ("..\\..\\Windows\\System32", "windows-system32"),
    ('Title: "quoted" # not a comment --- \'x\'', "title-quoted-not-a-comment-x"),
    ("   ", "untitled"),
    ("", "untitled"),
    ("CON", "con-page"),
    ("nul", "nul-page"),
    ("Com1", "com1-page"),
    ("LPT9", "lpt9-page"),
])
def test_slugify(title, slug):
    assert slugify(title) == slug


def test_slugify_non_latin_titles_get_distinct_readable_fallbacks():
    russian, japanese = slugify("Привет, мир"), slugify("日本語のタイトル")
    assert re.fullmatch(r"untitled-[0-9a-f]{6}", russian)
    assert re.fullmatch(r"untitled-[0-9a-f]{6}", japanese)
    assert russian != japanese
    assert slugify("...").startswith("untitled-")


def test_slugify_bounds_the_length_on_a_word_boundary():
    title = "An extremely long title that goes on and on about many different things for far too long indeed"
    slug = slugify(title)
    assert len(slug) <= 80
    assert title.lower().replace(" ", "-").startswith(slug)
    assert not slug.endswith("-")
    assert len(slugify("x" * 500, max_len=40)) == 40


@given(st.text(), st.integers(min_value=10, max_value=120))
@settings(max_examples=300, deadline=None)
def test_slugify_is_always_a_safe_file_name(title, max_len):
    slug = slugify(title, max_len=max_len)
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", slug)
    assert len(slug) <= max_len
    assert slug not in {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))}


# --------------------------------------------------------------------------------------
# render_note
# --------------------------------------------------------------------------------------


def test_render_note_layout():
    text = render_note(page(), CLIPPED_AT)
    meta, body = split_note(text)
    assert list(meta) == ["title", "url", "source", "author", "published", "description", "clipped_at", "sha256"]
    assert meta == {
        "title": "A test page",
        "url": "https://example.org/posts/test",
        "source": "Example Blog",
        "author": "Jo Writer",
        "published": "2024-04-30",
        "description": "What the page is about.",
        "clipped_at": "2024-05-01T12:30:05+02:00",
        "sha256": hashlib.sha256(body.encode("utf-8")).hexdigest(),
    }
    assert text.endswith("\n---\n\n" + body)
    assert body == "# A test page\n\nSome body text with a [link](https://example.org/).\n"
    assert datetime.fromisoformat(meta["clipped_at"]) == CLIPPED_AT


def test_render_note_leaves_unknown_fields_out_and_names_the_host():
    meta, _ = split_note(render_note(page(author=None, date=None, sitename=None, description=None), CLIPPED_AT))
    assert list(meta) == ["title", "url", "source", "clipped_at", "sha256"]
    assert meta["source"] == "example.org"


def test_render_note_normalises_the_body_ends():
    _, body = split_note(render_note(page(content="\n\n  indented first line\nlast line   \n\n\n"), CLIPPED_AT))
    assert body == "  indented first line\nlast line\n"


@pytest.mark.parametrize("value", YAML_TRICKY)
def test_frontmatter_round_trips_yaml_special_values(value):
    note = render_note(page(title=value, author=value, sitename=value, description=value), CLIPPED_AT)
    meta, _ = split_note(note)
    assert meta["title"] == value
    if value:
        assert (meta["author"], meta["source"], meta["description"]) == (value, value, value)
    else:  # empty means unknown: left out, and the source falls back to the host name
        assert "author" not in meta and "description" not in meta and meta["source"] == "example.org"


@given(title=st.text(), author=st.text(min_size=1), body=st.text())
@settings(max_examples=200, deadline=None)
def test_frontmatter_round_trips_any_text(title, author, body):
    note = render_note(page(title=title, author=author, content=body), CLIPPED_AT)
    normalised = note.replace("\r\n", "\n").replace("\r", "\n")  # what the indexer reads
    meta, written_body = split_note(normalised)
    assert meta["title"] == title
    assert meta["author"] == author
    assert meta["sha256"] == hashlib.sha256(note.split("\n---\n\n", 1)[1].encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------------------
# clip_page
# --------------------------------------------------------------------------------------


def test_clip_page_creates_a_dated_note(folder):
    before = snapshot(folder)
    result = clip_page(page(), folder, today=TODAY)
    assert isinstance(result, ClipResult)
    assert result.status == "created"
    assert result.path == folder / "2024-05-01-a-test-page.md"
    assert result.title == "A test page" and result.url == "https://example.org/posts/test"
    assert result.message == 'Clipped "A test page" to 2024-05-01-a-test-page.md.'
    after = snapshot(folder)
    assert set(after) - set(before) == {"2024-05-01-a-test-page.md"}
    assert all(after[name] == data for name, data in before.items())
    meta, body = split_note(result.path.read_text(encoding="utf-8"))
    assert meta["title"] == "A test page"
    assert datetime.fromisoformat(meta["clipped_at"]).tzinfo is not None
    assert meta["sha256"] == hashlib.sha256(body.encode("utf-8")).hexdigest()


def test_clip_page_uses_today_by_default(folder):
    result = clip_page(page(), folder)
    assert result.path.name == f"{date.today().isoformat()}-a-test-page.md"


def test_name_collisions_get_numeric_suffixes_and_never_overwrite(folder):
    foreign = folder / "2024-05-01-a-test-page.md"
    foreign.write_text("my own note with the same name\n", encoding="utf-8")
    second = clip_page(page(url="https://example.org/one", content="First body.\n"), folder, today=TODAY)
    third = clip_page(page(url="https://example.org/two", content="Second body.\n"), folder, today=TODAY)
    assert second.path.name == "2024-05-01-a-test-page-2.md"
    assert third.path.name == "2024-05-01-a-test-page-3.md"
    assert foreign.read_text(encoding="utf-8") == "my own note with the same name\n"
    assert {second.status, third.status} == {"created"}


def test_hostile_title_cannot_escape_the_folder(folder):
    result = clip_page(page(title="../../etc/passwd"), folder, today=TODAY)
    assert result.path == folder / "2024-05-01-etc-passwd.md"
    assert result.path.resolve().parent == folder.resolve()
    assert split_note(result.path.read_text(encoding="utf-8"))[0]["title"] == "../../etc/passwd"


def test_duplicate_by_url_writes_nothing_and_says_how_to_refresh(folder):
    first = clip_page(page(), folder, today=TODAY)
    before = snapshot(folder)
    again = clip_page(page(url="HTTPS://Example.org:443/posts/test#comments", content="Changed since.\n"),
                      folder, today=date(2024, 6, 1))
    assert again.status == "duplicate"
    assert again.path == first.path
    assert "already saved as 2024-05-01-a-test-page.md" in again.message
    # the engine's words are neutral; each front end says its own way to refresh
    assert "--update" not in again.message and "update=True" not in again.message
    assert again.message.endswith("clip it again with update to refresh it.")
    assert again.message_with("add --update") == (
        "This page is already saved as 2024-05-01-a-test-page.md; add --update to refresh it.")
    assert snapshot(folder) == before


def test_duplicate_by_body_hash(folder):
    first = clip_page(page(), folder, today=TODAY)
    mirror = clip_page(page(url="https://mirror.example.net/copy"), folder, today=TODAY)
    assert mirror.status == "duplicate" and mirror.path == first.path


def test_duplicates_are_found_in_subfolders_but_not_hidden_ones(folder):
    sub = folder / "projects" / "web"
    sub.mkdir()
    filed = sub / "filed-away.md"
    filed.write_text(render_note(page(), CLIPPED_AT), encoding="utf-8")
    hidden = folder / ".trash"
    hidden.mkdir()
    (hidden / "old.md").write_text(render_note(page(url="https://example.org/trashed", content="x\n"), CLIPPED_AT))
    assert clip_page(page(content="New body.\n"), folder, today=TODAY).path == filed
    assert clip_page(page(url="https://example.org/trashed", content="x\n"), folder, today=TODAY).status == "created"


def test_update_rewrites_the_existing_note_in_place(folder):
    first = clip_page(page(), folder, today=TODAY)
    others = {k: v for k, v in snapshot(folder).items() if k != first.path.name}
    updated = clip_page(page(content="The page changed.\n", title="A renamed page"), folder, update=True,
                        today=date(2024, 6, 1))
    assert updated.status == "updated"
    assert updated.path == first.path
    assert "Refreshed 2024-05-01-a-test-page.md" in updated.message
    meta, body = split_note(first.path.read_text(encoding="utf-8"))
    assert (meta["title"], body) == ("A renamed page", "The page changed.\n")
    after = snapshot(folder)
    assert {k: v for k, v in after.items() if k != first.path.name} == others  # nothing else touched


def test_update_keeps_the_keys_a_user_added(folder):
    first = clip_page(page(), folder, today=TODAY)
    text = first.path.read_text(encoding="utf-8")
    first.path.write_text(text.replace("---\n\n", "tags: [python, reading]\nreviewed: 2024-05-02\n---\n\n", 1),
                          encoding="utf-8")
    clip_page(page(content="Refreshed body.\n"), folder, update=True, today=TODAY)
    meta, body = split_note(first.path.read_text(encoding="utf-8"))
    assert meta["tags"] == ["python", "reading"]
    assert meta["reviewed"] == date(2024, 5, 2)
    assert list(meta)[:2] == ["title", "url"] and list(meta)[-2:] == ["tags", "reviewed"]
    assert body == "Refreshed body.\n"
    assert meta["sha256"] == hashlib.sha256(body.encode("utf-8")).hexdigest()


def test_update_leaves_a_note_edited_since_and_saves_the_page_beside_it(folder):
    """A refresh never replaces what the person wrote: a clip whose body they changed is left
    byte for byte, the page is saved as a new note, and the next refresh rewrites that one."""
    first = clip_page(page(), folder, today=TODAY)
    with first.path.open("a", encoding="utf-8") as note:
        note.write("\nMy own thoughts on it.\n")
    edited = first.path.read_bytes()
    refreshed = clip_page(page(content="The page changed.\n"), folder, update=True, today=date(2024, 6, 1))
    assert refreshed.status == "created" and refreshed.path == folder / "2024-06-01-a-test-page.md"
    assert refreshed.message == ("2024-05-01-a-test-page.md was changed since it was clipped, so it is left as it "
                                 "is; the page as it is now is saved as 2024-06-01-a-test-page.md.")
    assert first.path.read_bytes() == edited
    assert split_note(refreshed.path.read_text(encoding="utf-8"))[1] == "The page changed.\n"
    again = clip_page(page(content="Changed once more.\n"), folder, update=True, today=date(2024, 7, 1))
    assert (again.status, again.path) == ("updated", refreshed.path)
    assert first.path.read_bytes() == edited and len(list(folder.glob("2024-*.md"))) == 2


def test_update_leaves_a_note_the_person_wrote_about_the_page(folder):
    mine = folder / "reading-list.md"
    mine.write_text("---\nurl: https://example.org/posts/test\n---\n\nWhy I keep this page.\n", encoding="utf-8")
    result = clip_page(page(), folder, update=True, today=TODAY)
    assert result.status == "created" and result.path != mine
    assert mine.read_text(encoding="utf-8").endswith("Why I keep this page.\n")


def test_update_without_an_existing_note_creates_one(folder):
    assert clip_page(page(), folder, update=True, today=TODAY).status == "created"


def test_failed_write_leaves_nothing_behind(folder, monkeypatch):
    before = snapshot(folder)

    def broken_fsync(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(clip_module.os, "fsync", broken_fsync)
    with pytest.raises(ClipError, match="Could not save the note 2024-05-01-a-test-page.md: No space left"):
        clip_page(page(), folder, today=TODAY)
    assert snapshot(folder) == before


def test_failed_update_keeps_the_old_note(folder, monkeypatch):
    first = clip_page(page(), folder, today=TODAY)
    before = snapshot(folder)

    def broken_replace(src, dst):
        raise OSError(13, "Permission denied")

    monkeypatch.setattr(clip_module.os, "replace", broken_replace)
    with pytest.raises(ClipError, match="Could not update 2024-05-01-a-test-page.md"):
        clip_page(page(content="New.\n"), folder, update=True, today=TODAY)
    assert snapshot(folder) == before
    assert first.path.exists()


def test_a_name_taken_during_the_write_is_not_overwritten(folder, monkeypatch):
    target = folder / "2024-05-01-a-test-page.md"
    real_link = os.link

    def racing_link(src, dst):
        if Path(dst) == target and not target.exists():
            target.write_text("written by someone else\n", encoding="utf-8")
        return real_link(src, dst)

    monkeypatch.setattr(clip_module.os, "link", racing_link)
    result = clip_page(page(), folder, today=TODAY)
    assert result.path.name == "2024-05-01-a-test-page-2.md"
    assert target.read_text(encoding="utf-8") == "written by someone else\n"
    assert not [name for name in snapshot(folder) if name.endswith(".tmp")]


def test_file_systems_without_hard_links_still_work(folder, monkeypatch):
    def no_links(src, dst):
        raise OSError(1, "Operation not permitted")

    monkeypatch.setattr(clip_module.os, "link", no_links)
    result = clip_page(page(), folder, today=TODAY)
    assert result.status == "created"
    assert not [name for name in snapshot(folder) if name.endswith(".tmp")]


def test_a_missing_folder_is_created(tmp_path):
    result = clip_page(page(), tmp_path / "new" / "notes", today=TODAY)
    assert result.path == tmp_path / "new" / "notes" / "2024-05-01-a-test-page.md"


def test_a_file_is_not_a_folder(tmp_path):
    not_a_folder = tmp_path / "file.md"
    not_a_folder.write_text("x", encoding="utf-8")
    with pytest.raises(ClipError, match="is a file, not a folder"):
        clip_page(page(), not_a_folder, today=TODAY)


# --------------------------------------------------------------------------------------
# clip_url, end to end against the local server
# --------------------------------------------------------------------------------------


def test_clip_url_writes_the_blog_post(web, folder):
    result = clip_url(web.url("/go/1"), folder)
    assert result.status == "created"
    assert result.path.parent == folder
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}-lazy-pipelines-with-python-generators\.md", result.path.name)
    assert result.url == web.url("/2024/03/lazy-pipelines/")
    raw = result.path.read_bytes()
    text = raw.decode("utf-8")
    meta, body = split_note(text)
    assert meta["title"] == "Lazy pipelines with Python generators"
    assert meta["url"] == web.url("/2024/03/lazy-pipelines/")  # after the three redirects
    assert meta["source"] == "Byte Sized Notes"
    assert meta["author"] == "Ada Lindqvist"
    assert meta["published"] == "2024-03-15"
    assert abs(datetime.fromisoformat(meta["clipped_at"]) - datetime.now().astimezone()) < timedelta(minutes=1)
    assert meta["sha256"] == hashlib.sha256(body.encode("utf-8")).hexdigest()
    assert f"\n```python\n{PY_CODE}\n```\n".encode() in raw
    assert f"\n````js\n{JS_CODE}\n````\n".encode() in raw
    assert b"| List comprehension | O(n) | yes |" in raw
    for text_ in BLOG_BOILERPLATE:
        assert text_ not in body
    assert not [p for p in folder.iterdir() if p.name.endswith(".tmp")]


def test_clip_url_duplicate_then_update(web, folder):
    first = clip_url(web.url("/2024/03/lazy-pipelines/"), folder)
    before = snapshot(folder)
    again = clip_url(web.url("/go/1"), folder)  # same final URL
    assert (again.status, again.path) == ("duplicate", first.path)
    assert snapshot(folder) == before
    updated = clip_url(web.url("/go/1"), folder, update=True)
    assert (updated.status, updated.path) == ("updated", first.path)
    assert set(snapshot(folder)) == set(before)


def test_clip_url_yaml_special_title(web, folder):
    result = clip_url(web.url("/edge/yaml-title"), folder)
    meta, body = split_note(result.path.read_text(encoding="utf-8"))
    assert meta["title"] == 'Title: "quoted" # not a comment --- \'x\''
    assert meta["source"] == "Edge: Cases & Co"
    assert "key: value pairs and # comments in the body" in body
    assert result.path.name.endswith("-title-quoted-not-a-comment-x.md")


def test_clip_url_newline_title(web, folder):
    result = clip_url(web.url("/releases/2.0"), folder)
    assert split_note(result.path.read_text(encoding="utf-8"))[0]["title"] == "Release notes for version 2.0"


def test_clip_url_passwd_title_stays_inside(web, folder):
    result = clip_url(web.url("/security/traversal"), folder)
    assert result.path.resolve().parent == folder.resolve()
    assert result.path.name.endswith("-etc-passwd.md")


def test_clip_url_non_utf8_page_is_saved_as_utf8(web, folder):
    result = clip_url(web.url("/recettes/creme-brulee"), folder)
    text = result.path.read_bytes().decode("utf-8")
    assert "title: Crème brûlée à la façon de grand-mère\n" in text
    assert "12 € d’ingrédients" in text
    assert result.path.name.endswith("-creme-brulee-a-la-facon-de-grand-mere.md")


def _refused_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/"


@pytest.mark.parametrize(("target", "options", "words"), [
    ("/missing", {}, "404 Not Found"),
    ("/broken", {}, "500 Internal Server Error"),
    ("/slow", {"timeout": 0.5}, "did not answer within 0.5 seconds"),
    ("/big/streamed", {"max_bytes": 100_000}, "too large"),
    ("/big/declared", {"max_bytes": 100_000}, "too large"),
    ("/paper.pdf", {}, "PDF document"),
    ("/photo.png", {}, "an image"),
    ("/loop/a", {}, "redirect loop"),
    ("/go/1", {"max_redirects": 2}, "redirects more than 2 times"),
    ("/app", {}, "No readable text"),
    ("file:///etc/passwd", {}, "not file:"),
    ("javascript:alert(1)", {}, "not javascript:"),
    ("", {}, "give the address"),
    ("refused", {"timeout": 2}, "refused the connection"),
])
def test_bad_clips_raise_and_leave_the_folder_untouched(web, folder, target, options, words):
    url = web.url(target) if target.startswith("/") else _refused_url() if target == "refused" else target
    before = snapshot(folder)
    with pytest.raises(ClipError, match=re.escape(words)):
        clip_url(url, folder, **options)
    assert snapshot(folder) == before
