"""Chunker tests: generated documents with known structure, examples, and real corpora."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from pms_tui.core.indexing.chunk import Chunk, chunk_markdown, parse_note
from pms_tui.core.indexing.frontmatter import split_frontmatter

CORPORA = Path(__file__).resolve().parents[1].parent / "shared/corpora/markdown"


# --------------------------------------------------------------------------- invariants


def check_invariants(
    file_text: str,
    chunks: list[Chunk],
    body_start: int,
    fences: list[tuple[int, int]],
    overlap_lines: int,
) -> None:
    """Invariants for any document. Lines are 0-based file indexes; fences are (open, last).

    A chunk's text is its file lines, except for a chunk holding part of an over-long prose
    line cut at sentence ends: its words are then a contiguous run of its lines' words, and
    the chunks holding parts of one line may share that line's number.
    """
    file_lines = file_text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    assert [c.seq for c in chunks] == list(range(len(chunks)))
    covered = bytearray(len(file_lines))
    cut = []
    for c in chunks:
        assert body_start + 1 <= c.start_line <= c.end_line <= len(file_lines)
        span = "\n".join(file_lines[c.start_line - 1 : c.end_line])
        cut.append(span != c.text)
        if cut[-1]:
            assert max(len(line) for line in file_lines[c.start_line - 1 : c.end_line]) > 400
            assert " ".join(c.text.split()) in " ".join(span.split())
        assert c.text.split("\n")[0].strip() and c.text.split("\n")[-1].strip()
        covered[c.start_line - 1 : c.end_line] = b"\1" * (c.end_line - c.start_line + 1)
    for i in range(body_start, len(file_lines)):
        assert covered[i] or not file_lines[i].strip(), f"line {i + 1} not covered"
    for (prev, prev_cut), (cur, cur_cut) in zip(zip(chunks, cut), zip(chunks[1:], cut[1:])):
        if (prev_cut or cur_cut) and prev.end_line == cur.start_line:
            assert prev.start_line <= cur.start_line and prev.end_line <= cur.end_line
            continue
        assert prev.start_line < cur.start_line and prev.end_line < cur.end_line
        assert prev.end_line - cur.start_line + 1 <= overlap_lines
    for first, last in fences:
        for c in chunks:
            assert not first < c.start_line - 1 <= last, f"chunk starts inside fence {first}-{last}"
            assert not first <= c.end_line - 1 < last, f"chunk ends inside fence {first}-{last}"


# --------------------------------------------------------------------------- generated docs


@dataclass
class Doc:
    lines: list[str] = field(default_factory=list)
    body_start: int = 0
    fences: list[tuple[int, int]] = field(default_factory=list)  # (open line, last non-blank line)
    headings: list[tuple[int, int, int, str]] = field(default_factory=list)  # first, last, level, text
    frontmatter_title: str | None = None

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def add_fence(self, body: list[str]) -> None:
        first = len(self.lines)
        self.lines.extend(body)
        last = max(i for i in range(first, len(self.lines)) if self.lines[i].strip())
        self.fences.append((first, last))


WORDS = "alpha beta gamma delta git reset undo soft hard branch merge rebase note".split()
words = st.lists(st.sampled_from(WORDS), min_size=1, max_size=12).map(" ".join)
long_words = st.lists(st.sampled_from(WORDS), min_size=30, max_size=120).map(" ".join)
text_line = st.one_of(words, words, words, long_words)


@st.composite
def fence_body(draw, closed: bool = True) -> list[str]:
    """A fence with content that must not be mistaken for headings or closing fences."""
    char = draw(st.sampled_from("`~"))
    length = draw(st.integers(3, 6))
    other = "~" if char == "`" else "`"
    content_line = st.one_of(
        words,
        words.map(lambda w: "# " + w),
        words.map(lambda w: "## " + w),
        st.just("----"),
        st.just("===="),
        st.just(""),
        st.just("- " + "item"),
        st.integers(3, 6).map(lambda k: other * k),
        st.integers(3, 6).map(lambda k: other * k + "python"),
    )
    if length > 3:  # a shorter fence of the same char is content, not a close
        content_line = st.one_of(content_line, st.integers(3, length - 1).map(lambda k: char * k))
    content = draw(st.lists(content_line, max_size=8))
    if not closed and not any(line.strip() for line in content):
        content.append("code")
    info = draw(st.sampled_from(["", "python", "bash", " sh"]))
    body = [char * length + info, *content]
    if closed:
        body.append(char * (length + draw(st.integers(0, 2))))
    return body


@st.composite
def documents(draw) -> Doc:
    doc = Doc()
    fm = draw(st.sampled_from(["none", "none", "valid", "broken", "unclosed"]))
    if fm == "valid":
        doc.frontmatter_title = draw(words)
        doc.lines += ["---", f"title: {doc.frontmatter_title}", "tags: [a, b]", "---"]
        doc.body_start = len(doc.lines)
    elif fm == "broken":
        doc.lines += ["---", "title: [unclosed", "  - : :", "---"]
        doc.body_start = len(doc.lines)
    elif fm == "unclosed":  # no later line is exactly '---' or '...', so this is all body
        doc.lines += ["---", "title: never closed", ""]

    kinds = ["atx", "atx", "setext", "para", "para", "list", "fence", "fence", "list_fence", "quote_fence"]
    gap_free = True  # the previous block may be followed directly, without a blank line
    for kind in draw(st.lists(st.sampled_from(kinds), max_size=25)):
        gap = draw(st.integers(0 if gap_free else 1, 2))
        doc.lines += [""] * gap
        gap_free = False
        if kind == "atx":
            level, title = draw(st.integers(1, 6)), draw(words)
            doc.headings.append((len(doc.lines), len(doc.lines), level, title))
            doc.lines.append("#" * level + " " + title)
            gap_free = True
        elif kind == "setext":
            level, title_lines = draw(st.integers(1, 2)), draw(st.lists(words, min_size=1, max_size=2))
            first = len(doc.lines)
            doc.lines += [*title_lines, ("=" if level == 1 else "-") * draw(st.integers(4, 8))]
            doc.headings.append((first, len(doc.lines) - 1, level, " ".join(title_lines)))
        elif kind == "para":
            doc.lines += draw(st.lists(text_line, min_size=1, max_size=8))
        elif kind == "list":
            marker = draw(st.sampled_from(["- ", "* ", "1. "]))
            for item in draw(st.lists(st.tuples(words, st.lists(words, max_size=2)), min_size=1, max_size=6)):
                doc.lines.append(marker + item[0])
                doc.lines += ["   " + more for more in item[1]]
        elif kind == "fence":
            doc.add_fence(draw(fence_body()))
            gap_free = True
        elif kind == "list_fence":
            doc.lines += ["- " + draw(words), ""]
            body = draw(fence_body(closed=draw(st.booleans())))
            doc.add_fence([("  " + line) if line else "" for line in body])
        elif kind == "quote_fence":
            body = draw(fence_body(closed=draw(st.booleans())))
            doc.add_fence([("> " + line) if line else ">" for line in body])
    if draw(st.booleans()):  # an unclosed fence runs to the end of the document
        doc.lines += [""] * draw(st.integers(1, 2))
        doc.add_fence(draw(fence_body(closed=False)) + [""] * draw(st.integers(0, 2)))
    if draw(st.booleans()):
        doc.lines.append("")  # trailing newline
    return doc


def expected_path(doc: Doc, line: int) -> tuple[str, ...]:
    stack = ["", "", ""]
    for first, _last, level, text in doc.headings:
        if first > line:
            break
        if level <= 3:
            stack[level - 1] = text
            stack[level:] = [""] * (3 - level)
    return tuple(t for t in stack if t)


PROPERTY_SETTINGS = settings(
    max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


@PROPERTY_SETTINGS
@given(doc=documents(), target=st.sampled_from([40, 150, 400, 1000]), overlap=st.integers(0, 3))
def test_generated_documents_keep_all_invariants(doc: Doc, target: int, overlap: int) -> None:
    note = parse_note(doc.text, "generated.md", target_chars=target, overlap_lines=overlap)
    chunks = note.chunks
    check_invariants(doc.text, chunks, doc.body_start, doc.fences, overlap)

    heading_lines = {i for first, last, _, _ in doc.headings for i in range(first, last + 1)}
    for first, last, _, _ in doc.headings:  # a (setext) heading is never split either
        for c in chunks:
            assert not first < c.start_line - 1 <= last
            assert not first <= c.end_line - 1 < last
    for c in chunks[:-1]:
        assert c.end_line - 1 not in heading_lines, "only the last chunk may end with a heading"
    has_content = any(
        line.strip() and i not in heading_lines for i, line in enumerate(doc.lines) if i >= doc.body_start
    )
    for c in chunks:
        assert c.heading_path == expected_path(doc, c.start_line - 1)
        if has_content:
            assert any(
                doc.lines[i].strip() and i not in heading_lines for i in range(c.start_line - 1, c.end_line)
            ), "heading-only chunk"

    if doc.frontmatter_title:
        assert note.title == doc.frontmatter_title
    assert parse_note(doc.text, "generated.md", target_chars=target, overlap_lines=overlap) == note


@settings(max_examples=100, deadline=None)
@given(doc=documents(), target=st.sampled_from([100, 1000]))
def test_chunk_markdown_line_offset_matches_parse_note(doc: Doc, target: int) -> None:
    body = "\n".join(doc.lines[doc.body_start :])
    plain = chunk_markdown(markdown=body, title="T", target_chars=target, overlap_lines=2)
    shifted = chunk_markdown(body, "T", target, 2, line_offset=doc.body_start)
    assert [(c.start_line + doc.body_start, c.end_line + doc.body_start) for c in plain] == [
        (c.start_line, c.end_line) for c in shifted
    ]
    check_invariants(body, plain, 0, [(a - doc.body_start, b - doc.body_start) for a, b in doc.fences], 2)


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(alphabet="#`~->*= \t\n\r1.ab[]()_", max_size=600),
    target=st.sampled_from([1, 20, 100]),
    overlap=st.integers(0, 3),
)
def test_arbitrary_markdown_noise_keeps_invariants(text: str, target: int, overlap: int) -> None:
    note = parse_note(text, "noise.md", target_chars=target, overlap_lines=overlap)
    _, body, offset = split_frontmatter(text)
    check_invariants(text, note.chunks, offset, _fences_of(body, offset), overlap)


# --------------------------------------------------------------------------- examples


def test_heading_path_h1_h2_h3_with_h4_below():
    md = "# Git\n\nintro\n\n## Undo\n\nx\n\n### Soft reset\n\ntext\n\n#### Detail\n\ndeep\n"
    chunks = chunk_markdown(md, target_chars=10, overlap_lines=0)
    paths = {c.text.split("\n")[0]: c.heading_path for c in chunks}
    assert paths["#### Detail"] == ("Git", "Undo", "Soft reset")
    assert all(len(c.heading_path) <= 3 for c in chunks)
    assert chunks[-1].breadcrumb == "Git > Undo > Soft reset"


def test_heading_path_strips_inline_markup_and_resets_levels():
    md = (
        "# **Bold** `code` [link](http://x.y)\n\ntext text text\n\n### Skipped h2\n\nmore text\n\n"
        "## Second *h2*\n\nbody\n"
    )
    chunks = chunk_markdown(md, target_chars=10, overlap_lines=0)
    assert [c.heading_path for c in chunks] == [
        ("Bold code link",),
        ("Bold code link", "Skipped h2"),
        ("Bold code link", "Second h2"),
    ]


def test_large_fence_is_one_chunk():
    code = "\n".join(f"    print({i})  # padding padding padding" for i in range(130))
    assert len(code) > 5000
    md = f"# Code\n\nSome intro.\n\n```python\n{code}\n```\n\nAfter the code.\n"
    chunks = chunk_markdown(md, target_chars=1000)
    fence_chunks = [c for c in chunks if "print(0)" in c.text or "print(129)" in c.text]
    assert len(fence_chunks) == 1
    assert "```python" in fence_chunks[0].text and fence_chunks[0].text.count("```") == 2
    assert "Some intro." in fence_chunks[0].text  # a short intro stays with its code


def test_hash_line_inside_fence_is_not_a_heading():
    md = "# Real\n\n```bash\n# comment, not a heading\necho hi\n```\n\n~~~~\n```\n## still code\n```\n~~~~\n"
    chunks = chunk_markdown(md, target_chars=1)
    assert all(c.heading_path == ("Real",) for c in chunks)
    # the first fence cannot be cut off its heading: a chunk never ends with a heading
    assert [c.text.split("\n")[0] for c in chunks] == ["# Real", "~~~~"]


def test_setext_headings():
    md = "Title\n=====\n\nintro text here\n\nSection\n-------\n\nsection body\n"
    chunks = chunk_markdown(md, target_chars=10, overlap_lines=0)
    assert [c.heading_path for c in chunks] == [("Title",), ("Title", "Section")]
    assert chunks[1].start_line == 6 and chunks[1].text.startswith("Section\n-------")
    assert chunk_markdown(md)[0].embed_text.startswith("Title\n\nTitle\n=====")


def test_heading_cut_preferred_over_paragraph_cut():
    para = "word " * 30  # 150 chars per paragraph
    md = "\n\n".join([f"# A\n\n{para}\n\n{para}\n\n{para}", f"## B\n\n{para}\n\n{para}"])
    chunks = chunk_markdown(md, target_chars=1000)
    assert [c.text.split("\n")[0] for c in chunks] == ["# A", "## B"]
    assert chunks[1].heading_path == ("A", "B")


def test_best_scored_cut_in_window():
    para = "x" * 99
    lines = []
    for i in range(12):
        lines += [para, para] if i % 2 == 0 else ["- " + para[:97], "- " + para[:97]]
        lines.append("")
    chunks = chunk_markdown("\n".join(lines), target_chars=1000, overlap_lines=0)
    for c in chunks[:-1]:
        assert 500 <= len(c.text) <= 1000
    # every cut lands at a paragraph break (after a blank line), never mid-paragraph
    all_lines = "\n".join(lines).split("\n")
    for c in chunks[1:]:
        assert all_lines[c.start_line - 2] == ""


def test_tiny_sections_are_merged_and_chunks_do_not_end_with_headings():
    md = "# Doc\n\n## A\n\nshort\n\n## B\n\nshort too\n\n## C\n"
    chunks = chunk_markdown(md, target_chars=1000)
    assert len(chunks) == 1 and chunks[0].text.endswith("## C")
    body = "lorem ipsum " * 30
    md = f"# Doc\n\n{body}\n\n## Empty\n\n## Next\n\n{body}\n"
    chunks = chunk_markdown(md, target_chars=500, overlap_lines=0)
    assert [c.text.split("\n")[0] for c in chunks] == ["# Doc", "## Empty"]
    assert chunks[1].heading_path == ("Doc", "Empty")


def test_overlap_within_section_only():
    lines = [f"line {i} " + "y" * 60 for i in range(40)]
    md = "# S\n\n" + "\n".join(lines) + "\n\n## T\n\n" + "\n".join(lines)
    chunks = chunk_markdown(md, target_chars=600, overlap_lines=2)
    t_start = md.split("\n").index("## T") + 1
    for prev, cur in zip(chunks, chunks[1:]):
        if cur.start_line == t_start:
            assert prev.end_line < t_start - 1
        else:
            assert prev.end_line - cur.start_line + 1 == 2


def test_embed_text_and_titles():
    md = "# Heading One\n\n## Sub\n\nbody text\n"
    chunk = chunk_markdown(markdown=md, title="My Title", target_chars=1000, overlap_lines=2)[0]
    assert chunk.embed_text == "My Title\nHeading One\n\n" + chunk.text
    assert chunk_markdown("plain text")[0].embed_text == "plain text"
    assert chunk_markdown("plain", title="T")[0].embed_text == "T\n\nplain"
    assert chunk_markdown("# First\n\n# Second\n\nx")[0].embed_text.startswith("First\n\n# First")
    sub = chunk_markdown("# Git\n\n" + "intro line\n" * 60 + "\n## Undo\n\n" + "text line\n" * 60, title="Git")
    assert sub[-1].embed_text.startswith("Git > Undo\n\n")  # the title once, as the breadcrumb's root

    fm = "---\ntitle: From Frontmatter\n---\n# From H1\n\ntext\n"
    assert parse_note(fm, "notes/file-name.md").title == "From Frontmatter"
    assert parse_note("# From H1\n\ntext", "notes/file-name.md").title == "From H1"
    assert parse_note("no heading", "notes/my-note_name.md").title == "my-note_name"


def test_broken_yaml_frontmatter():
    text = "---\ntitle: [broken\n---\n# H\n\nbody\n"
    note = parse_note(text, "x.md")
    assert note.metadata == {} and note.title == "H"
    assert note.chunks[0].start_line == 4
    check_invariants(text, note.chunks, 3, [], 2)


def test_frontmatter_line_numbers_and_crlf():
    text = "---\r\ntitle: T\r\n---\r\n\r\n# H\r\n\r\nbody\r\n"
    note = parse_note(text, "x.md")
    assert [(c.start_line, c.end_line, c.text) for c in note.chunks] == [(5, 7, "# H\n\nbody")]


def test_empty_and_blank_documents():
    assert chunk_markdown("") == []
    assert chunk_markdown("\n  \n\t\n") == []
    assert parse_note("---\ntitle: T\n---\n\n", "x.md").chunks == []


def test_unclosed_fence_runs_to_end():
    md = "intro text\n\n```\n" + "\n".join(["code line"] * 300) + "\n\n# not a heading\n"
    chunks = chunk_markdown(md, target_chars=1000)
    assert len(chunks) == 1 and chunks[0].end_line == md.count("\n")
    assert chunks[0].heading_path == ()
    long_intro = "intro text " * 40 + "\n" + md
    chunks = chunk_markdown(long_intro, target_chars=1000)
    assert [c.text.split("\n")[0] for c in chunks] == ["intro text " * 40, "intro text"]
    assert chunks[1].end_line == long_intro.count("\n")


def test_fences_in_lists_and_blockquotes_are_not_split():
    inner = "\n".join(["    step " + "z" * 40] * 40)
    md = f"- item\n\n  ```\n{inner}\n  ```\n\n> ~~~~\n> " + "\n> ".join(["q" * 50] * 40) + "\n> ~~~~\n"
    chunks = chunk_markdown(md, target_chars=300)
    lines = md.split("\n")
    fences = [(2, 43), (45, 86)]
    assert lines[43] == "  ```" and lines[86] == "> ~~~~"
    check_invariants(md, chunks, 0, fences, 2)


def test_blockquote_marker_lines_are_blank_for_cutting():
    # markdown-it leaves a trailing ">" outside an unclosed quoted fence's map at EOF
    md = "# alpha\n\n> ```\n> alpha\n>"
    chunks = chunk_markdown(md, target_chars=1, overlap_lines=0)
    assert [(c.start_line, c.end_line) for c in chunks] == [(1, 5)]
    quote = "\n>\n".join(["> " + "quoted words " * 8] * 6)
    chunks = chunk_markdown(quote, target_chars=300, overlap_lines=0)
    assert len(chunks) > 1
    assert all(c.text.startswith("> quoted") for c in chunks)


def test_invalid_arguments():
    with pytest.raises(ValueError):
        chunk_markdown("x", target_chars=0)
    with pytest.raises(ValueError):
        chunk_markdown("x", overlap_lines=-1)


@pytest.mark.parametrize(
    "md",
    [
        "\n".join(f"# h{i}" for i in range(20000)),
        "\n".join("- item " + str(i) for i in range(20000)),
        "```\n" + "\n".join("x" * 30 for _ in range(50000)) + "\n```\n" + "tail\n" * 3000,
        "\n".join("word " * 4 for _ in range(30000)),
        ("a" * 5000 + "\n") * 300,
    ],
    ids=["headings-only", "tight-list", "huge-fence", "one-paragraph", "long-lines"],
)
def test_pathological_inputs_keep_the_invariants(md: str) -> None:
    # Their speed (linear time) is shown by benchmarks/run.py, not asserted here: a wall-clock
    # bound fails on a loaded machine and proves nothing on a fast one.
    chunks = chunk_markdown(md, target_chars=1000, overlap_lines=2)
    check_invariants(md, chunks, 0, [], 2)


# --------------------------------------------------------------------------- real corpora

_TOKENIZER = MarkdownIt("commonmark").disable("inline")


def _fences_of(body: str, offset: int) -> list[tuple[int, int]]:
    lines = body.split("\n")
    out = []
    for tok in _TOKENIZER.parse(body):
        if tok.type == "fence" and tok.map:
            first, end = tok.map[0], min(tok.map[1], len(lines))
            last = max((i for i in range(first, end) if lines[i].strip()), default=first)
            out.append((first + offset, last + offset))
    return out


def _check_corpus_files(files: list[Path]) -> None:
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        note = parse_note(text, path.name)
        _, body, offset = split_frontmatter(text)
        try:
            check_invariants(text, note.chunks, offset, _fences_of(body, offset), 2)
        except AssertionError as exc:
            raise AssertionError(f"{path}: {exc}") from exc


def _corpus(name: str) -> list[Path]:
    root = CORPORA / name
    files = sorted(root.rglob("*.md")) if root.is_dir() else []
    if not files:
        pytest.skip(f"corpus {root} not available")
    return files


def test_real_corpus_jbranchaud_til():
    _check_corpus_files(_corpus("jbranchaud-til"))


def test_real_corpus_powershell_docs_sample():
    files = _corpus("powershell-docs")
    _check_corpus_files(random.Random(1234).sample(files, min(300, len(files))))


def test_an_inline_base64_image_is_indexed_as_a_stand_in_and_no_line_moves():
    import base64

    payload = base64.b64encode(bytes(range(256)) * 4000).decode()  # ~1.4 MB on one line
    text = f"# Trip\n\nThe harbour at dawn:\n\n![harbour](data:image/jpeg;base64,{payload})\n\nFerries leave at six.\n"
    note = parse_note(text, "trip.md")
    assert len(note.chunks) == 1
    chunk = note.chunks[0]
    assert "data:image/jpeg;base64,…" in chunk.text and payload[:64] not in chunk.text
    assert (chunk.start_line, chunk.end_line) == (1, 7) and "Ferries leave at six." in chunk.text
    short = "![dot](data:image/gif;base64,R0lGODlhAQABAAAAACw=)"  # too short to matter: kept
    assert parse_note(f"# Dot\n\n{short}\n", "dot.md").chunks[0].text.endswith(short)
