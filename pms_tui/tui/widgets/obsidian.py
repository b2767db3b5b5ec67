"""Obsidian's Markdown in the reader: markdown-it rules added to the parser Textual's Markdown
uses ("gfm-like"), so the reader and its first screen (:mod:`.first_screen`) read a note alike.

- ``[[Note#Heading|alias]]`` and ``![[embed]]`` wherever inline text is (tables too, where
  Obsidian writes ``[[Note\\|alias]]``): a live link, struck through when it leads nowhere, an
  embedded note's passage in place, an embedded file by its name (``|300`` is its size). What
  a wikilink is, is the engine's (:func:`pms_tui.core.markdown.wikilink_parts`); whether it
  leads somewhere, the index's (the note's :class:`~pms_tui.core.results.Link` list).
- A Markdown link to a note that the index found dangling is struck through like a wikilink;
  a Markdown image whose description is a size (``![250](url)``) shows its file name.
- ``> [!type]± title`` callouts: the blockquote's token carries ``meta["callout"]`` (its type
  and fold) and the title becomes the quote's own inline token (:class:`.note_markdown.NoteQuote`).
- A ``^block-id`` ending a line is hidden (the block stays where links to it land).

The tokens made are the ones Textual's inline conversion knows (text, links, em, s), so note
text is only ever text: never read as markup.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Protocol
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from textual.content import Content

from pms_tui.core.markdown import BLOCK_ID, WIKILINK, WikiLink, wikilink_parts
from pms_tui.core.results import Link

__all__ = ["CALLOUT_FAMILIES", "ReaderLinks", "callout_family", "callout_heading", "note_parser"]

_CALLOUT = re.compile(r"\[!([A-Za-z0-9_-]{1,40})\]([+-]?)[ \t]*(.*)")
_SIZE = re.compile(r"\d{1,5}(?:x\d{1,5})?")  # ![[image.png|300]], ![[image.png|300x200]]
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")

# Obsidian's callout types by family (its aliases with them): the family gives the icon, the
# colour of the border and of the title (the theme's variables); an unknown type looks like a note.
CALLOUT_FAMILIES: dict[str, tuple[str, str, str, tuple[str, ...]]] = {
    "note": ("✎", "$primary", "$text-primary", ("note",)),
    "abstract": ("≡", "$accent", "$text-accent", ("abstract", "summary", "tldr")),
    "info": ("ℹ", "$primary", "$text-primary", ("info",)),
    "todo": ("☐", "$primary", "$text-primary", ("todo",)),
    "tip": ("✦", "$accent", "$text-accent", ("tip", "hint", "important")),
    "success": ("✓", "$success", "$text-success", ("success", "check", "done")),
    "question": ("?", "$warning", "$text-warning", ("question", "help", "faq")),
    "warning": ("!", "$warning", "$text-warning", ("warning", "caution", "attention")),
    "failure": ("✗", "$error", "$text-error", ("failure", "fail", "missing")),
    "danger": ("‼", "$error", "$text-error", ("danger", "error")),
    "bug": ("✱", "$error", "$text-error", ("bug",)),
    "example": ("▸", "$secondary", "$text-secondary", ("example",)),
    "quote": ("❝", "$foreground 50%", "$text-muted", ("quote", "cite")),
}
_FAMILY_OF = {kind: family for family, (_, _, _, kinds) in CALLOUT_FAMILIES.items() for kind in kinds}


def callout_family(kind: str) -> str:
    """The family of callout type ``kind`` (``"faq"`` -> ``"question"``); an unknown one: ``"note"``."""
    return _FAMILY_OF.get(kind.lower(), "note")


def callout_heading(kind: str, fold: str, folded: bool, title: Content) -> Content:
    """A callout's title line: a fold marker (a foldable one), its type's icon and name, its
    title (unless it is the type's name, the default)."""
    icon = CALLOUT_FAMILIES[callout_family(kind)][0]
    marker = ("▸ " if folded else "▾ ") if fold else ""
    name = kind.capitalize()
    head = Content.assemble(marker, (f"{icon} {name}", "not bold"))
    if title.plain.strip() != name:
        head = Content.assemble(head, ("  ", "not bold"), title)
    return head


class ReaderLinks(Protocol):
    """The links of the note the reader shows, as the index resolved them (hashable: a parser
    is made once per object)."""

    def __hash__(self) -> int: ...

    def links(self) -> Sequence[Link]:
        """The note's links (read when a text holding one is parsed)."""
        ...

    def href(self, link: Link) -> str:
        """What clicking ``link`` sends to the reader's link handler (one that leads nowhere
        included: a click on it says why)."""
        ...

    def passage(self, link: Link) -> str:
        """The passage an embed of a note shows (plain text, safe for a terminal)."""
        ...


@lru_cache(maxsize=8)
def note_parser(links: ReaderLinks | None = None, lines_as_lines: bool = False) -> MarkdownIt:
    """Textual's parser with Obsidian's syntax; links resolved through ``links`` (None: shown as
    written). Made once per ``links`` (making one takes a few milliseconds). ``lines_as_lines``:
    each line of a paragraph ends its line (a PDF page's text: its lines are the page's lines,
    formulas and tables among them, which Markdown would run together into one paragraph)."""
    md = MarkdownIt("gfm-like")
    if lines_as_lines:
        md.core.ruler.push("lines_as_lines", _lines_as_lines)
    md.core.ruler.after("block", "obsidian_callouts", _callouts)
    md.inline.ruler.before("link", "wikilink", _wikilink)
    md.core.ruler.push("obsidian_links", lambda state: _links(state, links))
    md.core.ruler.push("obsidian_block_ids", _block_ids)
    return md


# -- callouts ------------------------------------------------------------------------------------
def _callouts(state: StateCore) -> None:
    """A blockquote whose first line is ``[!type]`` (``-``: folded, ``+``: foldable, open) and a
    title: the type and fold in the quote token's meta, the title an inline token of its own
    (the default title: the type's name), the body the rest."""
    tokens = state.tokens
    i = 0
    while i < len(tokens) - 2:
        quote, para, inline = tokens[i], tokens[i + 1], tokens[i + 2]
        i += 1
        if quote.type != "blockquote_open" or para.type != "paragraph_open" or inline.type != "inline":
            continue
        first, _, rest = inline.content.partition("\n")
        found = _CALLOUT.match(first)
        if found is None:
            continue
        kind, fold, title = found.group(1).lower(), found.group(2), found.group(3).strip()
        quote.meta = {**(quote.meta or {}), "callout": kind, "fold": fold}
        line = (para.map or [0, 1])[0]
        title_token = Token("inline", "", 0, content=title or kind.capitalize(), map=[line, line + 1],
                            level=quote.level + 1, children=[])
        if rest.strip():
            inline.content = rest
            if para.map is not None:
                para.map = [para.map[0] + 1, para.map[1]]
                inline.map = para.map
            tokens.insert(i, title_token)
        else:  # a title-only callout: its paragraph goes
            tokens[i:i + 3] = [title_token]


# -- wikilinks and Markdown links ----------------------------------------------------------------
def _wikilink(state: StateInline, silent: bool) -> bool:
    """``[[...]]`` or ``![[...]]`` at the position: one ``wikilink`` token (rendered by _links)."""
    src, pos = state.src, state.pos
    if src[pos] not in "![" or not src.startswith("[[", pos + (src[pos] == "!")):
        return False
    found = WIKILINK.match(src, pos)
    if found is None:
        return False
    parts = wikilink_parts(found.group(2).replace("\\|", "|"))  # Obsidian's pipe in a table
    if parts is None:
        return False
    if not silent:
        token = state.push("wikilink", "", 0)
        token.content = found.group(0)
        token.meta = {"embed": bool(found.group(1)), "parts": parts}
    state.pos = found.end()
    return True


class _Found:
    """The note's links by what they were written as."""

    def __init__(self, links: Sequence[Link]) -> None:
        self.by_key: dict[tuple[str, str, bool], Link] = {}
        self.by_path: dict[str, Link] = {}
        for link in links:
            key = (link.target.strip().lower(), link.anchor.strip().lower(), link.embed)
            self.by_key.setdefault(key, link)
            self.by_path.setdefault(link.target.strip().lower(), link)

    def wiki(self, parts: WikiLink, embed: bool) -> Link | None:
        return self.by_key.get((parts.target.lower(), parts.anchor.lower(), embed))

    def markdown(self, href: str) -> Link | None:
        """The Markdown link to a note of ``href`` (a relative ``.md`` path), if the index read one."""
        href = href.strip()
        if not href or _SCHEME.match(href) or href.startswith("//"):
            return None
        path = unquote(href.partition("#")[0]).replace("\\", "/").strip().lower()
        return self.by_path.get(path) if path.endswith(".md") else None


def _links(state: StateCore, links: ReaderLinks | None) -> None:
    found: _Found | None = None
    for block in state.tokens:
        children = block.children
        if block.type != "inline" or not children:
            continue
        for token in children:
            if token.type == "image" and _SIZE.fullmatch(token.content.strip()):
                # ![250](url): Obsidian's size of an image, not its description: its file name
                name = unquote(str(token.attrs.get("src", "")).partition("?")[0].rstrip("/").rsplit("/", 1)[-1])
                token.children = [_text(name or token.content)]
        if not any(t.type == "wikilink" or (t.type == "link_open" and links is not None) for t in children):
            continue
        if found is None:
            found = _Found(links.links() if links is not None else ())
        out: list[Token] = []
        dangling = False  # inside a Markdown link to a note the index found dangling
        for token in children:
            if token.type == "wikilink":
                out.extend(_wikilink_tokens(token, found, links))
                continue
            if token.type == "link_open":
                link = found.markdown(str(token.attrs.get("href", "")))
                dangling = link is not None and not link.resolved
                out.append(token)
                if dangling:  # struck, and still a link: a click says why it leads nowhere
                    out.append(Token("s_open", "s", 1))
                continue
            if token.type == "link_close" and dangling:
                out.append(Token("s_close", "s", -1))
                dangling = False
            out.append(token)
        block.children = out


def _text(content: str) -> Token:
    token = Token("text", "", 0)
    token.content = content
    return token


def _styled(kind: str, content: str, attrs: dict[str, str | int | float] | None = None) -> list[Token]:
    tag = {"link": "a", "s": "s", "em": "em"}[kind]
    return [Token(f"{kind}_open", tag, 1, attrs=attrs or {}), _text(content), Token(f"{kind}_close", tag, -1)]


def _linked(href: str, tokens: list[Token]) -> list[Token]:
    """``tokens`` made a link to ``href``."""
    return [Token("link_open", "a", 1, attrs={"href": href}), *tokens, Token("link_close", "a", -1)]


def _wikilink_tokens(token: Token, found: _Found, links: ReaderLinks | None) -> list[Token]:
    parts: WikiLink = token.meta["parts"]
    embed: bool = token.meta["embed"]
    link = found.wiki(parts, embed)
    if link is None or links is None:  # not read by the index (yet): as written
        return [_text(token.content)]
    label = "" if embed and _SIZE.fullmatch(parts.label) else parts.label
    if embed and link.status == "file":  # an image, a PDF...: its file name (a click says it is a file)
        name = label or parts.target.rsplit("/", 1)[-1]
        return _linked(links.href(link), _styled("em", f"⧉ {name}"))
    shown = label or link.label or (f"{parts.target} › {parts.anchor}" if parts.target and parts.anchor
                                     else parts.target or parts.anchor)
    if not embed:
        return _styled("link", shown, {"href": links.href(link)}) if link.resolved \
            else _linked(links.href(link), _styled("s", shown))
    if not link.resolved:
        return _linked(links.href(link), _styled("s", f"⧉ {shown}"))
    return [*_styled("link", f"⧉ {shown}", {"href": links.href(link)}), _text(" "),
            Token("em_open", "em", 1), _text("“"), *_passage_tokens(links.passage(link), parts.anchor),
            _text("”"), Token("em_close", "em", -1)]


_HEADING_MARK = re.compile(r"#{1,6}[ \t]+")
_PASSAGE_KEPT = {"text", "code_inline", "strong_open", "strong_close", "em_open", "em_close", "s_open", "s_close"}


def _passage_tokens(passage: str, anchor: str) -> list[Token]:
    """An embedded passage (the section of a heading, a block; one line of Markdown, as the
    index gives it) rendered as inline text: its heading's marks and name left out (the embed's
    label names it), its emphasis and code styled, a link or an image by its text, raw HTML as
    text. Only tokens Textual's inline conversion knows: the passage is never read as markup."""
    text = passage.strip()
    heading = _HEADING_MARK.match(text)
    if heading is not None:
        text = text[heading.end():]
        name = anchor.strip()
        if name and text.lower().startswith(name.lower()):
            text = text[len(name):].lstrip()
    out: list[Token] = []
    for block in _inline_parser().parseInline(text):
        for token in block.children or ():
            if token.type in _PASSAGE_KEPT:
                out.append(token)
            elif token.type == "image":
                out.append(_text(token.content or str(token.attrs.get("alt", ""))))
            elif token.type in ("softbreak", "hardbreak"):
                out.append(_text(" "))
            elif token.type == "wikilink":
                parts = token.meta["parts"]
                out.append(_text(parts.label or parts.target or parts.anchor))
            elif token.type == "html_inline":
                out.append(_text(token.content))
    return out


@lru_cache(maxsize=1)
def _inline_parser() -> MarkdownIt:
    md = MarkdownIt("gfm-like")
    md.inline.ruler.before("link", "wikilink", _wikilink)
    return md


def _lines_as_lines(state: StateCore) -> None:
    for block in state.tokens:
        for token in block.children or ():
            if token.type == "softbreak":
                token.type, token.tag = "hardbreak", "br"


# -- block ids -----------------------------------------------------------------------------------
def _block_ids(state: StateCore) -> None:
    """``^id`` ending a line of a block: not shown. A paragraph of only an id goes."""
    tokens = state.tokens
    drop: list[int] = []
    for i, block in enumerate(tokens):
        children = block.children
        if block.type != "inline" or not children or "^" not in block.content:
            continue
        for j, child in enumerate(children):
            line_ends = j + 1 == len(children) or children[j + 1].type in ("softbreak", "hardbreak")
            if child.type == "text" and line_ends and "^" in child.content:
                found = BLOCK_ID.search(child.content)
                if found is not None:
                    child.content = child.content[:found.start()].rstrip()
        if all(c.type == "text" and not c.content for c in children) and 0 < i < len(tokens) - 1 \
                and tokens[i - 1].type == "paragraph_open":
            drop.append(i - 1)
    for i in reversed(drop):
        del tokens[i:i + 3]
