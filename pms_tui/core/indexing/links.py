"""The links a note makes, the anchors it offers (headings, ``^block`` ids) and the names it
can be linked by (its file name and frontmatter ``aliases:``), read at sync time.

Recognised, as Obsidian writes them: ``[[Note]]``, ``[[Note|alias]]``, ``[[Note#Heading]]``,
``[[Note#^block]]``, ``[[folder/Note]]``, ``[[Note.md]]``, ``![[embed]]`` (``[[#Heading]]``
is a link within the note), and Markdown links to relative ``.md`` files
(``[text](my%20note.md#part)``). markdown-it finds them: its block parser leaves code
fences, indented code and HTML blocks out, and its inline parser turns inline code into
``code_inline`` tokens that are skipped, so a link inside code is never a link. Nothing here
opens a file: targets are only text, resolved later against the index (``link_resolve``).

A note with more than ``MAX_LINKS`` links keeps its first ``MAX_LINKS`` (``NoteLinks.dropped``
says how many were left out).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from urllib.parse import unquote

from ..markdown import BLOCK_ID, MAX_TARGET_CHARS, WIKILINK, WINDOW_CHARS, Structure, scan, wikilink_parts

MAX_LINKS = 10_000
MAX_ANCHORS = 5_000
MAX_ALIASES = 50


@functools.cache
def _parser(inline: bool):
    """markdown-it for block (inline rules off) or inline parsing; imported on first use, so
    a one-shot search that never reads a note's links does not pay for it."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark") if inline else MarkdownIt("commonmark").disable("inline")


_WIKI = WIKILINK  # no newline, no bracket and no code placeholder inside
_BLOCK_ID = BLOCK_ID
# a Markdown link whose destination may be a .md file: only such notes are parsed for links
_MD_LINK = re.compile(r"\]\(\s*<?[^()\s>]*\.md(?:[#)\s>]|$)", re.IGNORECASE | re.MULTILINE)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_CODE = "\x00"  # stands for inline code in the text searched for wikilinks


@dataclass(frozen=True, slots=True)
class RawLink:
    line: int  # 1-based line in the file
    embed: bool  # ``![[...]]`` (or ``![](x.md)``)
    syntax: str  # "wiki" or "md"
    target: str  # the path or name as written (URL-decoded), without its #anchor; '' = this note
    anchor: str  # heading text, or ``^blockid``; '' for none
    label: str  # the alias or link text ('' for none)


@dataclass(frozen=True, slots=True)
class Anchor:
    kind: str  # "heading" or "block"
    key: str  # anchor_key() of the heading text, or the block id with its '^'
    line: int  # 1-based line in the file
    text: str  # the heading as written, or the block id


@dataclass(slots=True)
class NoteLinks:
    links: list[RawLink] = field(default_factory=list)
    anchors: list[Anchor] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    dropped: int = 0  # links past MAX_LINKS, not kept


def anchor_key(text: str) -> str:
    """How a heading is matched by ``[[Note#Heading]]``: case, spaces and the characters
    Obsidian leaves out of link anchors (``# | ^ : % [ ]``) do not count."""
    text = re.sub(r"[#|^:%\[\]\\*_`]", " ", text)
    return " ".join(text.lower().split())


def aliases_of(meta: dict) -> list[str]:
    """Frontmatter ``aliases:`` (or ``alias:``): a list or a comma-separated string."""
    out: list[str] = []
    for key, value in meta.items():
        if str(key).lower() not in ("aliases", "alias"):
            continue
        values = value if isinstance(value, list) else str(value).split(",") if isinstance(value, str) else [value]
        for item in values:
            if isinstance(item, bool) or not isinstance(item, (str, int, float)):
                continue
            name = " ".join(str(item).split())
            if name and len(name) <= MAX_TARGET_CHARS and name not in out:
                out.append(name)
    return out[:MAX_ALIASES]


def extract(body: str, offset: int = 0, meta: dict | None = None, structure: Structure | None = None) -> NoteLinks:
    """The links, anchors and aliases of one note's body (the text after its frontmatter;
    body line N is file line N + ``offset``). ``structure``: the body's ``scan`` when the
    caller has it (the chunker does): headings come from it, and a note with no link in
    sight (no ``[[``, no ``](`` to a ``.md``) costs no other parse."""
    found = NoteLinks(aliases=aliases_of(meta or {}))
    structure = structure if structure is not None else scan(body)
    for h in structure.headings[:MAX_ANCHORS]:
        found.anchors.append(Anchor("heading", anchor_key(h.text), h.start + offset + 1, h.text))
    if "^" in body:
        code: set[int] | None = None
        for i, text_line in enumerate(body.split("\n")):
            m = _BLOCK_ID.search(text_line) if "^" in text_line else None
            if m is None or len(found.anchors) >= MAX_ANCHORS:
                continue
            if code is None:
                code = _code_lines(structure)
            if i not in code:
                found.anchors.append(Anchor("block", "^" + m.group(1).lower(), i + offset + 1, m.group(1)))
    if "[[" in body or ("](" in body and _MD_LINK.search(body)):
        for start, content in _inline_blocks(body, structure):
            if "[[" in content or _MD_LINK.search(content):
                _links_of_inline(content, start + offset + 1, found)
        found.links.sort(key=lambda link: link.line)
    return found


def _code_lines(structure: Structure) -> set[int]:
    lines: set[int] = set()
    for block in structure.blocks:
        if block.kind in ("fence", "code_block", "html_block"):
            lines.update(range(block.start, block.end))
    return lines


def _inline_blocks(body: str, structure: Structure):
    """(0-based body line, inline source) of every block that holds inline text:
    paragraphs, headings (in lists and quotes too), never code or HTML.
    Parsed a window of top-level blocks at a time, as ``core.markdown.scan`` does, so memory
    stays bounded on a long note."""
    if len(body) <= WINDOW_CHARS:
        yield from _inline_window(body, 0)
        return
    lines = body.split("\n")
    starts = [b.start for b in structure.blocks if b.top] + [len(lines)]
    first, size = starts[0], 0
    for a, b in zip(starts, starts[1:]):
        size += sum(len(x) + 1 for x in lines[a:b])
        if size >= WINDOW_CHARS or b == len(lines):
            yield from _inline_window("\n".join(lines[first:b]), first)
            first, size = b, 0


def _inline_window(text: str, offset: int):
    for tok in _parser(False).parse(text):
        if tok.type == "inline" and tok.map is not None:
            yield offset + tok.map[0], tok.content


def _links_of_inline(content: str, line: int, found: NoteLinks) -> None:
    """Wikilinks in the text of one block (inline code blanked out), and its Markdown links."""
    children = _parser(True).parseInline(content)[0].children or []
    parts: list[str] = []
    row = 0
    depth = 0  # inside a Markdown link's text
    for at, tok in enumerate(children):
        kind = tok.type
        if kind in ("softbreak", "hardbreak"):
            parts.append("\n")
            row += 1
        elif kind == "code_inline":
            parts.append(_CODE)
        elif kind == "link_open":
            depth += 1
            parts.append(_CODE)
            label = _link_text(children, at)
            _add_markdown(found, str(tok.attrs.get("href", "")), label, line + row, False)
        elif kind == "link_close":
            depth -= 1
        elif kind == "image":
            _add_markdown(found, str(tok.attrs.get("src", "")), tok.content, line + row, True)
        elif kind in ("text", "text_special") and not depth:
            parts.append(tok.content)
        elif kind in ("html_inline",):
            parts.append(_CODE)
    text = "".join(parts)
    if "[[" not in text:
        return
    base = 0
    row_starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    for m in _WIKI.finditer(text):
        if len(found.links) >= MAX_LINKS:
            found.dropped += 1
            continue
        while base + 1 < len(row_starts) and row_starts[base + 1] <= m.start():
            base += 1
        link = _wiki(m.group(2), bool(m.group(1)), line + base)
        if link is not None:
            found.links.append(link)


def _link_text(children, at: int) -> str:
    out = []
    for tok in children[at + 1 :]:
        if tok.type == "link_close":
            break
        if tok.type in ("text", "code_inline", "text_special"):
            out.append(tok.content)
    return "".join(out)


def _wiki(inner: str, embed: bool, line: int) -> RawLink | None:
    parts = wikilink_parts(inner)
    return None if parts is None else RawLink(line, embed, "wiki", *parts)


def _add_markdown(found: NoteLinks, href: str, label: str, line: int, embed: bool) -> None:
    """A Markdown link to a relative Markdown file (anything with a scheme, ``mailto:``
    or no ``.md`` is a web or file link, not part of the graph)."""
    target = markdown_target(href)
    if target is None:
        return
    if len(found.links) >= MAX_LINKS:
        found.dropped += 1
        return
    path, anchor = target
    found.links.append(RawLink(line, embed, "md", path, anchor, label.strip()[:MAX_TARGET_CHARS]))


def markdown_target(href: str) -> tuple[str, str] | None:
    """(path, anchor) of a Markdown link's destination when it names a relative Markdown file;
    None for anything else: a web or file link, or one within the note (``#part``)."""
    href = href.strip()
    if not href or _SCHEME.match(href) or href.startswith("//"):
        return None
    path, _, anchor = href.partition("#")
    path = unquote(path).replace("\\", "/")
    if not path.lower().endswith(".md") or len(path) > MAX_TARGET_CHARS:
        return None
    return path, markdown_anchor(anchor)


def markdown_anchor(fragment: str) -> str:
    """The heading (or ``^block``) a Markdown link's ``#fragment`` names: URL-decoded, and
    ``a-heading`` read as ``a heading``."""
    anchor = unquote(fragment).strip()
    if anchor and not anchor.startswith("^"):
        anchor = anchor.replace("-", " ") if " " not in anchor and "-" in anchor else anchor
    return anchor[:MAX_TARGET_CHARS]
