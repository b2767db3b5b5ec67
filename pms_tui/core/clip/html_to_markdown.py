"""Turn a web page into clean Markdown plus metadata with trafilatura.

Boilerplate (navigation, banners, comments, footers) is dropped and the article kept as
Markdown: headings, lists, links, tables, emphasis, and fenced code blocks with their
language (``code_blocks`` keeps them out of the extractor's way). Knows nothing about notes,
folders or the UI. Every failure is a ClipError carrying one readable sentence.
"""

from __future__ import annotations

import html as html_module
import re
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import trafilatura
from lxml.html import HtmlElement

from ..errors import ClipError, ClipStopped
from ..safe_text import safe_text
from .code_blocks import remove_keep_tail, restore_code_blocks, stash_code_blocks
from .fetch import SCHEME_RE, fetch, reason
from .markdown_tidy import tidy

__all__ = ["ClipError", "ExtractedPage", "extract_from_html", "extract_from_url"]


@dataclass
class ExtractedPage:
    title: str
    content: str  # Markdown body
    url: str  # final URL after redirects
    author: str | None = None
    date: str | None = None  # ISO yyyy-mm-dd when known
    sitename: str | None = None
    description: str | None = None



_EXTRACT_OPTIONS: dict[str, Any] = dict(  # keyword arguments of several types
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
# A page past this many characters of HTML is extracted with trafilatura's ``fast`` option:
# its own extractor alone, without the readability and jusText fallbacks it otherwise runs and
# compares (in a profile of a 4.8 MB page, 8 of trafilatura's 21 seconds; the same text either
# way: benchmarks/big_clip.py --both). A page that large holds its article in plain sight;
# the fallbacks help short, odd pages.
FAST_FROM_CHARS = 1_000_000
_SAFE_LINK_SCHEMES = frozenset({"http", "https", "mailto"})
_MAX_ATTRIBUTE = 8192  # characters; real URLs and class lists stay far below
_TITLE_MAX = 300
_XML_DECLARATION_RE = re.compile(r"^\ufeff?\s*<\?xml[^>]*\?>")


def extract_from_url(url: str, *, progress: Callable[[int, int, str], None] | None = None,
                     cancel: threading.Event | None = None, **fetch_options) -> ExtractedPage:
    """Fetch ``url`` and extract it; see :func:`fetch` for the options. ``progress(done, total,
    stage)`` hears "fetching" (bytes) and "extracting" (the page's characters); ``cancel``
    set ends it with ClipStopped between the two, or while fetching."""
    html, final_url = fetch(url, progress=progress, cancel=cancel, **fetch_options)
    if cancel is not None and cancel.is_set():
        raise ClipStopped()
    if progress is not None:
        progress(0, len(html), "extracting")
    return extract_from_html(html, final_url, cancel=cancel)


def extract_from_html(html: str, url: str | None = None, *, cancel: threading.Event | None = None) -> ExtractedPage:
    """Extract the main content of a page as Markdown, with its metadata. ``cancel`` set ends
    it with ClipStopped between its steps (trafilatura's own run is not interrupted)."""
    where = url or "the page"
    # The text is already decoded: an XML declaration's encoding would make lxml decode it again.
    html = _XML_DECLARATION_RE.sub("", html or "", count=1)
    html = neutralize_controls(html)
    try:
        tree = trafilatura.load_html(html) if html.strip() else None
    except Exception:  # noqa: BLE001 - lxml/trafilatura raise many kinds on hostile input
        tree = None
    if tree is None:
        raise ClipError(f"{where} could not be read as a web page.")
    try:
        return _extract_tree(tree, url, len(html), cancel)
    except ClipError:
        raise
    except RecursionError:
        raise ClipError(f"{where} is nested too deeply to be read.") from None
    except Exception as exc:  # noqa: BLE001 - never let an extractor bug escape un-wrapped
        raise ClipError(f"Could not extract the text of {where}: {reason(exc)}.") from None


_CHAR_REF_RE = re.compile(r"&#(?:[xX]([0-9a-fA-F]{1,8})|([0-9]{1,10}));?")


def neutralize_controls(page: str) -> str:
    """Control characters in a page, raw or as numeric references (``&#27;``), become visible
    text (``^[``): they are data, and lxml refuses them (the page was once "unreadable").
    References to 128-159 mean windows-1252 characters, as in browsers."""

    def replace(match: re.Match) -> str:
        code = int(match.group(1), 16) if match.group(1) else int(match.group(2))
        if code in (9, 10, 13) or (code >= 0x20 and not 0x7F <= code <= 0x9F and not 0xD800 <= code <= 0xDFFF
                                   and code <= 0x10FFFF):
            return match.group(0)
        if 0x80 <= code <= 0x9F:
            try:
                return bytes([code]).decode("cp1252")
            except UnicodeDecodeError:
                pass
        if code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
            return "\ufffd"
        return safe_text(chr(code), keep="")

    return safe_text(_CHAR_REF_RE.sub(replace, page), keep="\t\n\r")


def _extract_tree(tree: HtmlElement, url: str | None, size: int = 0,
                  cancel: threading.Event | None = None) -> ExtractedPage:
    where = url or "the page"

    def stop_if_cancelled() -> None:
        if cancel is not None and cancel.is_set():
            raise ClipStopped()

    _drop_huge_attributes(tree)
    _drop_permalinks(tree)
    _neutralize_links(tree)  # before resolving: "java&#x09;script:" would pass as a relative URL
    if url:
        tree.make_links_absolute(url, resolve_base_href=True, handle_failures="discard")
    _neutralize_links(tree)
    fallback_title = _first_text(tree, "//h1") or _first_text(tree, "//title")
    # Metadata first: htmldate copies the tree, but trafilatura.extract() prunes it in place.
    meta = trafilatura.extract_metadata(tree, default_url=url, extensive=False)
    stop_if_cancelled()
    nonce = secrets.token_hex(4)
    blocks = stash_code_blocks(tree, nonce)
    markdown = trafilatura.extract(tree, url=url, **_EXTRACT_OPTIONS, fast=size >= FAST_FROM_CHARS)
    stop_if_cancelled()
    content = tidy(restore_code_blocks(markdown or "", blocks, nonce))
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
            remove_keep_tail(anchor)


def _neutralize_links(tree: HtmlElement) -> None:
    """Unwrap javascript:, data: and other non-web links; their text stays as plain text.

    Unwrapping (rather than only dropping the href) also keeps trafilatura's link-density
    filter from discarding the paragraph as boilerplate.
    """
    for anchor in list(tree.iter("a")):
        href = anchor.get("href") or ""
        if len(href) > _MAX_ATTRIBUTE or not _safe_href(href):
            anchor.drop_tag()


# What a browser (and a Markdown renderer, which decodes entities in link destinations)
# ignores in a URL: ASCII whitespace and controls anywhere, so "java\tscript:" is javascript:.
_URL_IGNORED_RE = re.compile(r"[\x00-\x20\x7f]+")


def _safe_href(href: str) -> bool:
    """True for http(s), mailto and scheme-less (relative) links, however they are encoded."""
    cleaned = href
    for _ in range(3):  # entities inside entities: &amp;#x09;
        unescaped = html_module.unescape(cleaned)
        if unescaped == cleaned:
            break
        cleaned = unescaped
    cleaned = _URL_IGNORED_RE.sub("", cleaned).lower()
    scheme = SCHEME_RE.match(cleaned)
    if scheme:
        return scheme.group(1) in _SAFE_LINK_SCHEMES
    return ":" not in cleaned.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]


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
