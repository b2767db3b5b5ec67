"""Fetch one web page: http(s) with a timeout, a redirect limit and a size cap, decoded with
the charset the page declares. Every failure the user can cause is a ClipError sentence."""

from __future__ import annotations

import codecs
import importlib.metadata
import re
import socket
import threading
import time
from collections.abc import Callable
from urllib.parse import urlsplit

import httpx

from ..errors import ClipError, ClipStopped
from .redirect_guard import peer_guard, redirect_guard

_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_HTML_SNIFF_TAGS = (b"<html", b"<!doctype html", b"<head", b"<body", b"<title", b"<p", b"<div")
SCHEME_RE = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
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
    typed_scheme = "://" in url
    if url.startswith("//"):
        url = "https:" + url
    elif not typed_scheme:
        match = SCHEME_RE.match(url)
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
    if not _looks_like_host(parts.hostname, typed_scheme):
        shown = url if typed_scheme else url.removeprefix("https://")
        raise ClipError(f"{shown} is not a web address: give one such as https://example.org/page.")
    return url


_HOST_LABEL_RE = re.compile(r"[^\W_](?:[\w-]{0,61}[^\W_])?")


def _looks_like_host(host: str, typed_scheme: bool) -> bool:
    """True for a name that can be a server's: an IP address, ``localhost``, or labels of
    letters, digits and inner hyphens with at least one dot ("example.org"); a name of one
    label ("intranet") only when the address gave its scheme. Checked before any network, so
    a word typed as an address ("not-a-url") is never looked up."""
    import ipaddress

    host = host.rstrip(".")
    try:
        ipaddress.ip_address(host.strip("[]"))
        return True
    except ValueError:
        pass
    labels = host.split(".")
    if not all(_HOST_LABEL_RE.fullmatch(label) for label in labels) or labels[-1].isdigit():
        return False
    return len(labels) > 1 or typed_scheme or host.lower() == "localhost"


def fetch(
    url: str,
    *,
    timeout: float = 15.0,
    max_bytes: int = 10_000_000,
    max_redirects: int = 5,
    progress: Callable[[int, int, str], None] | None = None,
    cancel: threading.Event | None = None,
) -> tuple[str, str]:
    """Download an HTML page; return ``(decoded html, final url after redirects)``.

    ``timeout`` bounds connecting, each read and the whole body download. The body is
    streamed and abandoned as soon as it exceeds ``max_bytes``. ``progress(bytes read, bytes
    announced or 0, "fetching")`` is told as it arrives; once ``cancel`` is set the download
    ends with :class:`ClipStopped`.
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
            event_hooks={"request": [redirect_guard(url)], "response": [peer_guard(url)]},
        ) as client:
            with client.stream("GET", url) as response:
                final_url = str(response.url)
                _check_response(response, final_url, max_bytes)
                body = _read_body(response, final_url, max_bytes, deadline, timeout, progress, cancel)
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
        raise ClipError(f"Downloading {url} failed: {reason(exc)}.") from None
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


def _read_body(response: httpx.Response, url: str, max_bytes: int, deadline: float, timeout: float,
               progress: Callable[[int, int, str], None] | None = None,
               cancel: threading.Event | None = None) -> bytes:
    chunks: list[bytes] = []
    total = 0
    length = response.headers.get("content-length", "")
    announced = int(length) if length.isdigit() else 0
    for chunk in response.iter_bytes():
        if cancel is not None and cancel.is_set():
            raise ClipStopped()
        total += len(chunk)
        if progress is not None:
            progress(total, announced, "fetching")
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
    return f"Could not connect to {host}: {reason(exc)}."


def _exception_chain(exc: BaseException | None):
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def reason(exc: BaseException) -> str:
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
    for bom, bom_encoding in _BOMS:
        if body.startswith(bom):
            return body.decode(bom_encoding, errors="replace")
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
