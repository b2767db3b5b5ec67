"""Code blocks kept apart from the extractor, then put back as proper fences.

trafilatura 2.3 renders <pre> as ``` fences without a language, drops blank lines inside
them, double-decodes entities (&amp;lt; shows as <) and turns one-line blocks or blocks
inside list items into inline `code`. So every <pre> is swapped for a paragraph holding a
unique alphanumeric token (Markdown escaping never touches it, and boilerplate removal
treats it like the text it replaces); after extraction each surviving token becomes a
proper fence with the exact code. Tokens that vanished were in boilerplate."""

from __future__ import annotations

import re
from dataclasses import dataclass

from lxml.html import HtmlElement


@dataclass(frozen=True)
class _CodeBlock:
    code: str
    language: str | None


_GUTTER_CLASS_RE = re.compile(
    r"^(?:linenos?|linenodiv|lineno|line-?numbers?-rows|line-?number|gutter|hljs-ln-numbers)$"
)
_CLASS_LANG_RES = (
    re.compile(r"^(?:language|lang)-(.+)$"),
    re.compile(r"^highlight-source-(.+)$"),  # GitHub
    re.compile(r"^highlight-(.+)$"),  # Sphinx
    re.compile(r"^brush:(.+)$"),  # SyntaxHighlighter, after spaces are squeezed
)
_LANG_OK_RE = re.compile(r"^[a-z0-9][a-z0-9_+#.-]{0,30}$")
_NOT_A_LANGUAGE = frozenset(
    """default none nohighlight no-highlight plain auto notranslate hljs highlight code
    prettyprint chroma source""".split()
)
_KNOWN_LANGUAGES = frozenset(
    """bash c clojure console cpp csharp css dart diff dockerfile elixir erlang fish go graphql
    groovy haskell html ini java javascript js json jsonc jsx julia kotlin latex lua makefile
    markdown matlab nginx nix objectivec ocaml perl php powershell ps1 py python r rb ruby rust
    scala scss sh shell sql swift tex text toml ts tsx typescript vim xml yaml yml zig zsh""".split()
)


def stash_code_blocks(tree: HtmlElement, nonce: str) -> dict[int, _CodeBlock]:
    blocks: dict[int, _CodeBlock] = {}
    for pre in list(tree.iter("pre")):
        parent = pre.getparent()
        if parent is None or any(a.tag == "pre" for a in pre.iterancestors()):
            continue  # nested inside another <pre> (already taken) or detached
        if _is_gutter(pre):
            remove_keep_tail(pre)  # a column of line numbers beside the real code
            continue
        index = len(blocks)
        blocks[index] = _CodeBlock(_pre_text(pre), _code_language(pre))
        placeholder = pre.makeelement("p", {})
        placeholder.text = f"PMSCODE{nonce}N{index}X"
        placeholder.tail = pre.tail
        parent.replace(pre, placeholder)
    return blocks


def _has_gutter_class(element: HtmlElement) -> bool:
    return any(_GUTTER_CLASS_RE.match(token) for token in (element.get("class") or "").lower().split())


def _is_gutter(pre: HtmlElement) -> bool:
    """A <pre> holding only line numbers, inside a line-number column (Pygments tables etc.)."""
    only_numbers = re.fullmatch(r"[\d\s]*", pre.text_content()) is not None
    return only_numbers and any(_has_gutter_class(e) for e in _self_and_ancestors(pre, 3))


def _self_and_ancestors(element: HtmlElement, levels: int) -> list[HtmlElement]:
    chain = [element]
    for ancestor in element.iterancestors():
        if len(chain) > levels or ancestor.tag in ("body", "html", "article", "main"):
            break
        chain.append(ancestor)
    return chain


def remove_keep_tail(element: HtmlElement) -> None:
    parent = element.getparent()
    if parent is None:
        return
    tail = element.tail
    previous = element.getprevious()
    if tail:
        if previous is not None:
            previous.tail = (previous.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
    parent.remove(element)


def _pre_text(pre: HtmlElement) -> str:
    """The exact code: entities decoded, <br> as newlines, indentation kept, no line numbers."""
    for child in list(pre.iter("button", "script", "style")):
        if child is not pre:
            remove_keep_tail(child)
    for child in list(pre.iter()):
        if child is not pre and isinstance(child.tag, str) and _has_gutter_class(child):
            remove_keep_tail(child)  # inline line numbers (Pygments "linenos" spans, Prism rows)
    for br in pre.iter("br"):
        br.tail = "\n" + (br.tail or "")
    text = "".join(pre.itertext()).replace("\r\n", "\n").replace("\r", "\n")
    text = re.sub(r"^(?:[ \t]*\n)+", "", text)  # leading blank lines, not the first indent
    return text.rstrip()


def _code_language(pre: HtmlElement) -> str | None:
    """The language a page declares for a code block, looking at <code>, <pre>, then wrappers."""
    code = next((c for c in pre.iter("code")), None)
    candidates = ([code] if code is not None else []) + _self_and_ancestors(pre, 3)
    for element in candidates:
        for attr in ("data-lang", "data-language"):
            lang = _clean_language(element.get(attr))
            if lang:
                return lang
        if element.tag in ("pre", "code"):
            lang = _clean_language(element.get("lang"))
            if lang in _KNOWN_LANGUAGES:
                return lang
        lang = _language_from_class(element.get("class") or "", bare_names=element.tag in ("pre", "code"))
        if lang:
            return lang
    return None


def _language_from_class(classes: str, *, bare_names: bool) -> str | None:
    tokens = re.sub(r":\s+", ":", classes.lower()).replace(";", " ").split()
    for token in tokens:
        for pattern in _CLASS_LANG_RES:
            match = pattern.match(token)
            if match:
                lang = _clean_language(match.group(1))
                if lang:
                    return lang
    if "sourcecode" in tokens:  # pandoc: class="sourceCode python"
        for token in tokens:
            lang = _clean_language(token)
            if lang and token != "sourcecode":
                return lang
    if bare_names:  # highlight.js and friends: class="python" or "hljs python"
        for token in tokens:
            if token in _KNOWN_LANGUAGES:
                return token
    return None


def _clean_language(value: str | None) -> str | None:
    if not value:
        return None
    lang = value.strip().lower()
    if lang in _NOT_A_LANGUAGE or not _LANG_OK_RE.match(lang):
        return None
    return lang


_LIST_ITEM_RE = re.compile(r"^(\s*)([-*+]|\d{1,9}[.)])(\s+)")


def restore_code_blocks(markdown: str, blocks: dict[int, _CodeBlock], nonce: str) -> str:
    token_re = re.compile(rf"(`*)PMSCODE{nonce}N(\d+)X\1")
    if not blocks or f"PMSCODE{nonce}" not in markdown:
        return markdown
    out: list[str] = []
    for line in markdown.split("\n"):
        if f"PMSCODE{nonce}" not in line:
            out.append(line)
        elif line.lstrip().startswith("|"):  # a table cell can only hold inline code
            out.append(token_re.sub(lambda m: _inline_code(blocks.get(int(m.group(2)))), line))
        else:
            out.extend(_expand_line(line, blocks, token_re))
    return "\n".join(out)


def _expand_line(line: str, blocks: dict[int, _CodeBlock], token_re: re.Pattern[str]) -> list[str]:
    """Split a line holding tokens into text lines and fences, keeping list-item nesting."""
    item = _LIST_ITEM_RE.match(line)
    if item:
        marker, indent, rest = line[: item.end()], " " * item.end(), line[item.end() :]
    else:
        lead = len(line) - len(line.lstrip(" "))
        marker, indent, rest = line[:lead], line[:lead], line[lead:]
    pieces: list[list[str]] = []
    pos = 0
    for match in token_re.finditer(rest):
        text = rest[pos : match.start()].strip()
        if text:
            pieces.append([text])
        block = blocks.get(int(match.group(2)))
        if block is not None and block.code.strip():
            pieces.append(_fence(block))
        pos = match.end()
    tail = rest[pos:].strip()
    if tail:
        pieces.append([tail])
    if not pieces:
        return []
    lines: list[str] = []
    for number, piece in enumerate(pieces):
        if number and not item:
            lines.append("")  # a blank line between paragraphs and fences at top level
        for i, text in enumerate(piece):
            if number == 0 and i == 0:
                lines.append(marker + text)
            else:
                lines.append(indent + text if text else "")
    return lines


def _fence(block: _CodeBlock) -> list[str]:
    longest = max((len(run) for run in re.findall(r"`+", block.code)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + (block.language or ""), *block.code.split("\n"), fence]


def _inline_code(block: _CodeBlock | None) -> str:
    if block is None or not block.code.strip():
        return ""
    code = " ".join(block.code.split()).replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if code.startswith("`") or code.endswith("`") else ""
    return f"{ticks}{pad}{code}{pad}{ticks}"
