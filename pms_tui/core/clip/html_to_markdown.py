"""Fetch a web page and turn it into clean Markdown plus metadata.

Pure core module for the web clipper: it knows nothing about notes, folders or the TUI.

* :func:`fetch` downloads one HTML page over http(s) with a timeout, a redirect limit and a
  size cap, and decodes it with the charset the page declares.
* :func:`extract_from_html` drops boilerplate (navigation, banners, comments, footers) with
  trafilatura and keeps the article as Markdown: headings, lists, links, tables, emphasis and
  fenced code blocks with their language.

Every failure the user can cause (bad address, unreachable server, HTTP error, wrong content
type, empty page) is raised as :class:`ClipError` carrying one readable sentence.
"""

from __future__ import annotations

import codecs
import importlib.metadata
import re
import secrets
import socket
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx
import trafilatura
from lxml.html import HtmlElement

__all__ = [
    "ClipError",
    "ExtractedPage",
    "decode_html",
    "extract_from_html",
    "extract_from_url",
    "fetch",
    "normalize_url",
    "user_agent",
]


class ClipError(Exception):
    """A clip failed; ``str(error)`` is one clear sentence for the user."""


@dataclass
class ExtractedPage:
    title: str
    content: str  # Markdown body
    url: str  # final URL after redirects
    author: str | None = None
    date: str | None = None  # ISO yyyy-mm-dd when known
    sitename: str | None = None
    description: str | None = None


# --------------------------------------------------------------------------------------
# URLs and fetching
# --------------------------------------------------------------------------------------

_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_HTML_SNIFF_TAGS = (b"<html", b"<!doctype html", b"<head", b"<body", b"<title", b"<p", b"<div")
_SCHEME_RE = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_META_CHARSET_RE = re.compile(rb"""<meta[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9_:.+-]+)""", re.IGNORECASE)
_META_SCAN_BYTES = 65_536
_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def user_agent() -> str:
    """``pms-tui/<version> (+local web clipper)``; version ``dev`` when not installed."""
    try:
        ver = importlib.metadata.version("pms-tui")
    except Exception:  # noqa: BLE001 - not installed or broken metadata must not stop clipping
        ver = "dev"
    return f"pms-tui/{ver} (+local web clipper)"


def normalize_url(url: str) -> str:
    """Validate a user-typed address and return it as an absolute http(s) URL.

    An address without a scheme (``example.org/post``, ``localhost:8000/x``) is taken as
    ``https://``; any other scheme (file:, ftp:, javascript:, data:, mailto: …) is refused.
    """
    if not isinstance(url, str) or not url.strip():
        raise ClipError("Please give the address of a web page to clip.")
    url = url.strip()
    if any(ch.isspace() or ord(ch) < 32 for ch in url):
        raise ClipError(f"{url!r} is not a valid web address: it contains spaces or control characters.")
    if url.startswith("//"):
        url = "https:" + url
    elif "://" not in url:
        match = _SCHEME_RE.match(url)
        # "host:8080/path" looks like a scheme to urlsplit; a port is all digits after the colon.
        if match and not url[match.end() :].split("/", 1)[0].isdigit():
            scheme = match.group(1).lower()
            if scheme in ("http", "https"):
                raise ClipError(f"{url} is not a valid web address (expected {scheme}://…).")
            raise ClipError(f"Only http and https web pages can be clipped, not {scheme}: addresses.")
        url = "https://" + url
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a malformed port
    except ValueError:
        raise ClipError(f"{url} is not a valid web address.") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise ClipError(f"Only http and https web pages can be clipped, not {scheme}: addresses.")
    if not parts.hostname:
        raise ClipError(f"{url} is not a valid web address: it has no host name.")
    return url


def fetch(
    url: str,
    *,
    timeout: float = 15.0,
    max_bytes: int = 10_000_000,
    max_redirects: int = 5,
) -> tuple[str, str]:
    """Download an HTML page; return ``(decoded html, final url after redirects)``.

    ``timeout`` bounds connecting, each read and the whole body download. The body is
    streamed and abandoned as soon as it exceeds ``max_bytes``.
    """
    url = normalize_url(url)
    headers = {
        "User-Agent": user_agent(),
        "Accept": "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1",
    }
    deadline = time.monotonic() + timeout
    try:
        with httpx.Client(
            timeout=httpx.Timeout(timeout),
            follow_redirects=True,
            max_redirects=max_redirects,
            headers=headers,
        ) as client:
            with client.stream("GET", url) as response:
                final_url = str(response.url)
                _check_response(response, final_url, max_bytes)
                body = _read_body(response, final_url, max_bytes, deadline, timeout)
                header_charset = response.charset_encoding
    except ClipError:
        raise
    except httpx.TooManyRedirects:
        raise ClipError(f"{url} redirects more than {max_redirects} times (a redirect loop?).") from None
    except httpx.TimeoutException:
        raise ClipError(f"{url} did not answer within {timeout:g} seconds.") from None
    except httpx.UnsupportedProtocol:
        raise ClipError(f"{url} redirects to an address that is not an http or https web page.") from None
    except httpx.InvalidURL:
        raise ClipError(f"{url} is not a valid web address.") from None
    except httpx.ConnectError as exc:
        raise ClipError(_connect_error_message(url, exc)) from None
    except (httpx.HTTPError, httpx.StreamError, OSError, ValueError) as exc:
        raise ClipError(f"Downloading {url} failed: {_reason(exc)}.") from None
    if not _looks_like_html(body) and not _declared_html(response):
        raise ClipError(f"{final_url} did not send a web page (no HTML content type and no HTML inside).")
    return decode_html(body, header_charset), final_url


def _check_response(response: httpx.Response, url: str, max_bytes: int) -> None:
    """Refuse HTTP errors, non-HTML content and bodies announced as too large, before reading."""
    status = response.status_code
    if status >= 400:
        reason = response.reason_phrase or "an error"
        raise ClipError(f"The server answered {status} {reason} for {url}.")
    if not 200 <= status < 300:
        answer = f"{status} {response.reason_phrase}".strip()
        raise ClipError(f"The server answered {answer} for {url} instead of a page.")
    media_type = _media_type(response)
    if media_type and media_type not in _HTML_TYPES:
        raise ClipError(
            f"{url} is {_describe_type(media_type)} ({media_type}), not a web page; only HTML pages can be clipped."
        )
    length = response.headers.get("content-length", "")
    if length.isdigit() and int(length) > max_bytes:
        raise ClipError(f"{url} is too large to clip ({_size(int(length))}; the limit is {_size(max_bytes)}).")


def _read_body(response: httpx.Response, url: str, max_bytes: int, deadline: float, timeout: float) -> bytes:
    chunks: list[bytes] = []
    total = 0
    for chunk in response.iter_bytes():
        total += len(chunk)
        if total > max_bytes:
            raise ClipError(f"{url} is too large to clip (more than {_size(max_bytes)}).")
        if time.monotonic() > deadline:
            raise ClipError(f"{url} took longer than {timeout:g} seconds to download.")
        chunks.append(chunk)
    return b"".join(chunks)


def _media_type(response: httpx.Response) -> str:
    return response.headers.get("content-type", "").split(";", 1)[0].strip().lower()


def _declared_html(response: httpx.Response) -> bool:
    return _media_type(response) in _HTML_TYPES


def _looks_like_html(body: bytes) -> bool:
    head = body[:2048].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return head.startswith(b"<") and any(tag in head for tag in _HTML_SNIFF_TAGS)


def _describe_type(media_type: str) -> str:
    if media_type == "application/pdf":
        return "a PDF document"
    kind = media_type.split("/", 1)[0]
    return {"image": "an image", "video": "a video", "audio": "an audio file"}.get(kind, "a file")


def _size(n: int) -> str:
    return f"{n / 1_000_000:.1f} MB" if n >= 1_000_000 else f"{n / 1000:.0f} kB" if n >= 1000 else f"{n} bytes"


def _connect_error_message(url: str, exc: BaseException) -> str:
    host = urlsplit(url).hostname or url
    for cause in _exception_chain(exc):
        if isinstance(cause, socket.gaierror):
            return f"Could not find the server {host} (name lookup failed); check the address and your connection."
        if isinstance(cause, ConnectionRefusedError):
            return f"The server {host} refused the connection for {url}."
    text = str(exc)
    if "Name or service not known" in text or "nodename nor servname" in text or "getaddrinfo" in text:
        return f"Could not find the server {host} (name lookup failed); check the address and your connection."
    if "refused" in text.lower():
        return f"The server {host} refused the connection for {url}."
    return f"Could not connect to {host}: {_reason(exc)}."


def _exception_chain(exc: BaseException):
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().rstrip(".")
    return text or type(exc).__name__


# --------------------------------------------------------------------------------------
# Decoding
# --------------------------------------------------------------------------------------


def decode_html(body: bytes, header_charset: str | None = None) -> str:
    """Decode with a byte-order mark, else the HTTP charset, else ``<meta>``, else UTF-8.

    Undecodable bytes become U+FFFD. As browsers do, latin-1 and ascii labels are read
    as windows-1252 (a superset that gives curly quotes and the euro sign their meaning).
    """
    for bom, encoding in _BOMS:
        if body.startswith(bom):
            return body.decode(encoding, errors="replace")
    encoding = _codec(header_charset)
    if encoding is None:
        match = _META_CHARSET_RE.search(body[:_META_SCAN_BYTES])
        if match:
            encoding = _codec(match.group(1).decode("ascii", "replace"))
            if encoding and encoding.startswith(("utf-16", "utf-32")):
                encoding = "utf-8"  # a meta tag readable as ASCII cannot be right about UTF-16
    try:
        return body.decode(encoding or "utf-8", errors="replace")
    except LookupError:  # a codec that exists but cannot decode (e.g. a stateful one)
        return body.decode("utf-8", errors="replace")


def _codec(label: str | None) -> str | None:
    if not label:
        return None
    try:
        info = codecs.lookup(label.strip().strip("\"'"))
    except LookupError:
        return None
    if not getattr(info, "_is_text_encoding", True):
        return None  # rot13, base64 and friends are codecs but not charsets
    name = info.name
    return "cp1252" if name in ("iso8859-1", "ascii") else name


# --------------------------------------------------------------------------------------
# Extraction
# --------------------------------------------------------------------------------------

_EXTRACT_OPTIONS = dict(
    output_format="markdown",
    include_links=True,
    include_tables=True,
    include_formatting=True,
    include_comments=False,
    include_images=False,
    with_metadata=False,
    # Precision mode keeps link-heavy boilerplate out; on the test pages it loses no real
    # content, and when it finds nothing, recall mode only finds noscript/nav junk.
    favor_precision=True,
)
_SAFE_LINK_SCHEMES = frozenset({"http", "https", "mailto"})
_MAX_ATTRIBUTE = 8192  # characters; real URLs and class lists stay far below
_TITLE_MAX = 300
_XML_DECLARATION_RE = re.compile(r"^\ufeff?\s*<\?xml[^>]*\?>")


def extract_from_url(url: str, **fetch_options) -> ExtractedPage:
    """Fetch ``url`` and extract it; see :func:`fetch` for the options."""
    html, final_url = fetch(url, **fetch_options)
    return extract_from_html(html, final_url)


def extract_from_html(html: str, url: str | None = None) -> ExtractedPage:
    """Extract the main content of a page as Markdown, with its metadata."""
    where = url or "the page"
    # The text is already decoded: an XML declaration's encoding would make lxml decode it again.
    html = _XML_DECLARATION_RE.sub("", html or "", count=1)
    try:
        tree = trafilatura.load_html(html) if html.strip() else None
    except Exception:  # noqa: BLE001 - lxml/trafilatura raise many kinds on hostile input
        tree = None
    if tree is None:
        raise ClipError(f"{where} could not be read as a web page.")
    try:
        return _extract_tree(tree, url)
    except ClipError:
        raise
    except RecursionError:
        raise ClipError(f"{where} is nested too deeply to be read.") from None
    except Exception as exc:  # noqa: BLE001 - never let an extractor bug escape un-wrapped
        raise ClipError(f"Could not extract the text of {where}: {_reason(exc)}.") from None


def _extract_tree(tree: HtmlElement, url: str | None) -> ExtractedPage:
    where = url or "the page"
    _drop_huge_attributes(tree)
    _drop_permalinks(tree)
    if url:
        tree.make_links_absolute(url, resolve_base_href=True, handle_failures="discard")
    _neutralize_links(tree)
    fallback_title = _first_text(tree, "//h1") or _first_text(tree, "//title")
    # Metadata first: htmldate copies the tree, but trafilatura.extract() prunes it in place.
    meta = trafilatura.extract_metadata(tree, default_url=url, extensive=False)
    nonce = secrets.token_hex(4)
    blocks = _stash_code_blocks(tree, nonce)
    markdown = trafilatura.extract(tree, url=url, **_EXTRACT_OPTIONS)
    content = _tidy(_restore_code_blocks(markdown or "", blocks, nonce))
    if not content.strip():
        raise ClipError(f"No readable text was found on {where}.")
    title = _clean_line(meta.title) or _clean_line(fallback_title) or _title_from_url(url) or "Untitled"
    return ExtractedPage(
        title=title[:_TITLE_MAX].rstrip(),
        content=content,
        url=url or "",
        author=_clean_line(meta.author),
        date=meta.date if meta.date and re.fullmatch(r"\d{4}-\d{2}-\d{2}", meta.date) else None,
        sitename=_clean_line(meta.sitename),
        description=_clean_line(meta.description),
    )


_PERMALINK_CLASS_RE = re.compile(r"headerlink|anchor|permalink|heading-link", re.IGNORECASE)
_PERMALINK_TEXTS = frozenset({"", "¶", "#", "§", "🔗"})


def _drop_permalinks(tree: HtmlElement) -> None:
    """Remove the "¶" / "#" self-links that documentation generators put inside headings."""
    for anchor in list(tree.iter("a")):
        href = (anchor.get("href") or "").strip()
        text = anchor.text_content().strip().lower()
        if href.startswith("#") and text in _PERMALINK_TEXTS and (
            text or _PERMALINK_CLASS_RE.search(anchor.get("class") or "")
        ):
            _remove_keep_tail(anchor)


def _neutralize_links(tree: HtmlElement) -> None:
    """Unwrap javascript:, data: and other non-web links; their text stays as plain text.

    Unwrapping (rather than only dropping the href) also keeps trafilatura's link-density
    filter from discarding the paragraph as boilerplate.
    """
    for anchor in list(tree.iter("a")):
        href = (anchor.get("href") or "").strip().lower()
        scheme = _SCHEME_RE.match(href)
        if (scheme and scheme.group(1) not in _SAFE_LINK_SCHEMES) or len(href) > _MAX_ATTRIBUTE:
            anchor.drop_tag()


def _drop_huge_attributes(tree: HtmlElement) -> None:
    """Delete absurdly long attribute values: they slow trafilatura's class/id matching to
    seconds per megabyte and carry nothing worth keeping (long hrefs are unwrapped later)."""
    for element in tree.iter():
        if not isinstance(element.tag, str):
            continue
        for name, value in list(element.attrib.items()):
            if len(value) > _MAX_ATTRIBUTE and not (element.tag == "a" and name == "href"):
                del element.attrib[name]


def _first_text(tree: HtmlElement, xpath: str) -> str | None:
    found = tree.xpath(xpath)
    return found[0].text_content() if found else None


def _clean_line(value: str | None) -> str | None:
    """Collapse whitespace (newlines included) and drop control characters."""
    if not value:
        return None
    text = "".join(ch for ch in value if ch.isprintable() or ch.isspace())
    text = " ".join(text.split())
    return text or None


def _title_from_url(url: str | None) -> str | None:
    if not url:
        return None
    parts = urlsplit(url)
    segment = parts.path.rstrip("/").rsplit("/", 1)[-1]
    segment = re.sub(r"\.[A-Za-z0-9]{1,5}$", "", segment)
    words = re.sub(r"[-_+]+", " ", segment).strip()
    return words or parts.hostname


def _tidy(markdown: str) -> str:
    """Trim trailing spaces and runs of blank lines outside fenced code; end with one newline."""
    out: list[str] = []
    fence: str | None = None
    for line in markdown.split("\n"):
        stripped = line.strip()
        if fence is None:
            match = re.match(r"^\s*(`{3,})", line)
            if match:
                fence = match.group(1)
            line = line.rstrip()
            if not line and out and not out[-1]:
                continue
        elif stripped.startswith(fence) and stripped.strip("`") == "":
            fence = None
        out.append(line)
    text = "\n".join(out).strip("\n")
    return text + "\n" if text else ""


# --------------------------------------------------------------------------------------
# Code blocks
#
# trafilatura 2.3 renders <pre> as ``` fences without a language, drops blank lines inside
# them, double-decodes entities (&amp;lt; shows as <) and turns one-line blocks or blocks
# inside list items into inline `code`. So every <pre> is swapped for a paragraph holding a
# unique alphanumeric token (Markdown escaping never touches it, and boilerplate removal
# treats it like the text it replaces); after extraction each surviving token becomes a
# proper fence with the exact code. Tokens that vanished were in boilerplate.
# --------------------------------------------------------------------------------------


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


def _stash_code_blocks(tree: HtmlElement, nonce: str) -> dict[int, _CodeBlock]:
    blocks: dict[int, _CodeBlock] = {}
    for pre in list(tree.iter("pre")):
        parent = pre.getparent()
        if parent is None or any(a.tag == "pre" for a in pre.iterancestors()):
            continue  # nested inside another <pre> (already taken) or detached
        if _is_gutter(pre):
            _remove_keep_tail(pre)  # a column of line numbers beside the real code
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


def _remove_keep_tail(element: HtmlElement) -> None:
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
            _remove_keep_tail(child)
    for child in list(pre.iter()):
        if child is not pre and isinstance(child.tag, str) and _has_gutter_class(child):
            _remove_keep_tail(child)  # inline line numbers (Pygments "linenos" spans, Prism rows)
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


def _restore_code_blocks(markdown: str, blocks: dict[int, _CodeBlock], nonce: str) -> str:
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
