import json

from pms_tui.core.indexing.frontmatter import frontmatter_title, split_frontmatter


def test_valid_frontmatter_is_parsed_and_stripped():
    text = "---\ntitle: Hello\ntags: [a, b]\n---\n# Body\ntext\n"
    meta, body, offset = split_frontmatter(text)
    assert meta == {"title": "Hello", "tags": ["a", "b"]}
    assert body == "# Body\ntext\n"
    assert offset == 4
    file_lines = text.split("\n")
    for n, line in enumerate(body.split("\n"), start=1):
        assert file_lines[n + offset - 1] == line


def test_dot_terminator_and_empty_block():
    assert split_frontmatter("---\na: 1\n...\nbody") == ({"a": 1}, "body", 3)
    assert split_frontmatter("---\n---\nbody") == ({}, "body", 2)


def test_no_frontmatter():
    assert split_frontmatter("# Title\n---\n") == ({}, "# Title\n---\n", 0)
    assert split_frontmatter("") == ({}, "", 0)
    assert split_frontmatter("----\na: 1\n----\n") == ({}, "----\na: 1\n----\n", 0)


def test_unclosed_fence_means_no_frontmatter():
    text = "---\ntitle: x\n\nbody text\n"
    assert split_frontmatter(text) == ({}, text, 0)


def test_broken_yaml_is_stripped_with_empty_metadata():
    meta, body, offset = split_frontmatter("---\ntitle: [unclosed\n  : :\n---\nbody\n")
    assert meta == {}
    assert body == "body\n"
    assert offset == 4


def test_non_mapping_yaml_gives_empty_metadata():
    assert split_frontmatter("---\n- a\n- b\n---\nbody") == ({}, "body", 4)
    assert split_frontmatter("---\njust a string\n---\nbody") == ({}, "body", 3)


def test_dates_and_odd_keys_become_json_serialisable():
    text = (
        "---\n"
        "date: 2024-03-05\n"
        "updated: 2024-03-05 10:20:30\n"
        "nested: {when: [2021-01-01, {at: 2020-02-02}]}\n"
        "2023-01-01: dated key\n"
        "1: int key\n"
        "blob: !!binary aGk=\n"
        "---\n"
    )
    meta, _, _ = split_frontmatter(text)
    json.dumps(meta)  # must not raise
    assert meta["date"] == "2024-03-05"
    assert meta["updated"] == "2024-03-05T10:20:30"
    assert meta["nested"] == {"when": ["2021-01-01", {"at": "2020-02-02"}]}
    assert meta["2023-01-01"] == "dated key"
    assert meta["1"] == "int key"
    assert meta["blob"] == "aGk="


def test_crlf_and_bom():
    meta, body, offset = split_frontmatter("\ufeff---\r\ntitle: T\r\n---\r\nbody\r\nmore")
    assert meta == {"title": "T"}
    assert body == "body\nmore"
    assert offset == 3


def test_unsafe_tags_are_rejected():
    meta, body, offset = split_frontmatter("---\nx: !!python/object/apply:os.system ['true']\n---\nb")
    assert meta == {}
    assert (body, offset) == ("b", 3)


def test_frontmatter_title():
    assert frontmatter_title({"title": "  My   Note "}) == "My Note"
    assert frontmatter_title({"Title": "Caps"}) == "Caps"
    assert frontmatter_title({"title": 2024}) == "2024"
    assert frontmatter_title({"title": ""}) is None
    assert frontmatter_title({"title": ["a"]}) is None
    assert frontmatter_title({"title": True}) is None
    assert frontmatter_title({}) is None
