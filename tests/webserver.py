"""A small threaded HTTP server on 127.0.0.1 for the web clipper tests.

``LocalWebServer`` serves canned routes (pages from ``tests/pages``, redirects, errors,
slow and oversized answers) on an ephemeral port. The ``web`` fixture starts one per test
module with :func:`default_routes` installed and stops it afterwards; import it into a test
module with ``from tests.webserver import web  # noqa: F401``.
"""

from __future__ import annotations

import gzip
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

PAGES = Path(__file__).parent / "pages"
SLOW_DELAY = 2.0  # seconds the /slow route waits before answering (cut short on shutdown)
BIG_SIZE = 300_000  # bytes sent by the oversized routes

# What the clipper must make of pages/blog.html: the two code blocks, exactly, and text
# from the boilerplate around the article that must not survive.
PY_CODE = '''def read_lines(path):
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            yield line.rstrip("\\n")


def only_errors(lines, limit=10):
    seen = 0
    for line in lines:
        if "ERROR" in line and seen < limit && True:
            seen += 1
            yield line
  # a line with two leading spaces, kept as is'''

JS_CODE = '''const FENCE = "```";

function* fences(blocks) {
  for (const b of blocks) {
    yield `${FENCE}${b.lang}\\n${b.code}\\n${FENCE}\\n`;
  }
}
const first = fences([{lang: "py", code: "x = 1 < 2"}]).next().value;'''

BLOG_BOILERPLATE = [
    "We use cookies", "Accept all", "Manage preferences", "Browse all tags", "Subscribe to the newsletter",
    "grumpy_dev", "Nice write-up", "Post comment", "Leave a reply", "Advertisement", "CloudHost",
    "Related posts", "Asyncio basics", "All rights reserved", "Privacy policy", "Share on Twitter",
    "dataLayer", "gtag", "Archive",
]


@dataclass
class Route:
    body: bytes = b""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    content_length: bool = True  # False: HTTP/1.0 body delimited by closing the connection


class LocalWebServer:
    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.requests: list[tuple[str, dict[str, str]]] = []  # (path, headers) as received
        self.stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- routes -------------------------------------------------------------------------
    def add(self, path: str, body: bytes | str = b"", *, status: int = 200,
            content_type: str | None = "text/html; charset=utf-8", headers: dict[str, str] | None = None,
            delay: float = 0.0, content_length: bool = True) -> str:
        data = body.encode("utf-8") if isinstance(body, str) else body
        all_headers = {"Content-Type": content_type} if content_type else {}
        all_headers.update(headers or {})
        self.routes[path] = Route(data, status, all_headers, delay, content_length)
        return self.url(path)

    def add_page(self, path: str, filename: str, *, encoding: str = "utf-8",
                 content_type: str | None = "text/html; charset=utf-8") -> str:
        """Serve ``tests/pages/<filename>`` re-encoded as ``encoding``."""
        html = (PAGES / filename).read_text(encoding="utf-8")
        return self.add(path, html.encode(encoding), content_type=content_type)

    def redirect(self, path: str, location: str, status: int = 302) -> str:
        return self.add(path, b"", status=status, content_type=None, headers={"Location": location})

    def url(self, path: str = "/") -> str:
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}{path}"

    # -- lifecycle ----------------------------------------------------------------------
    def start(self) -> LocalWebServer:
        handler = type("Handler", (_Handler,), {"site": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)


class _Handler(BaseHTTPRequestHandler):
    site: LocalWebServer
    protocol_version = "HTTP/1.0"

    def do_GET(self) -> None:  # noqa: N802 - http.server naming
        self.site.requests.append((self.path, dict(self.headers.items())))
        route = self.site.routes.get(self.path.split("?", 1)[0])
        if route is None:
            route = Route(b"<html><body><h1>Not found</h1></body></html>", 404, {"Content-Type": "text/html"})
        if route.delay and self.site.stopping.wait(route.delay):
            return
        try:
            self.send_response(route.status)
            for name, value in route.headers.items():
                self.send_header(name, value)
            if route.content_length:
                self.send_header("Content-Length", str(len(route.body)))
            self.end_headers()
            for start in range(0, len(route.body), 16_384):
                self.wfile.write(route.body[start : start + 16_384])
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading (size limit), as intended

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - silence request logging
        pass


def _deep_page(depth: int) -> str:
    return ("<!DOCTYPE html><html><head><title>Deep nesting</title></head><body><article>"
            "<p>This page nests its markup absurdly deep to trip up recursive parsers, but it still has a real paragraph.</p>"
            + "<div><span>" * depth + "bottom of the well" + "</span></div>" * depth
            + "</article></body></html>")


def _huge_attribute_page(size: int) -> str:
    return ("<!DOCTYPE html><html><head><title>Huge attribute</title>"
            f'<meta name="description" content="{"d" * size}"></head><body><article>'
            f'<p data-blob="{"x" * size}" class="{"c " * (size // 2)}">A paragraph whose attributes are megabytes long, '
            "which must not slow the clipper down to a crawl or break the note it writes.</p>"
            f'<p><a href="{"https://example.org/" + "a" * size}">a very long link</a> and more ordinary text to keep.</p>'
            "</article></body></html>")


_SCRIPT_PAGE = """<!DOCTYPE html><html><head><title>Scripts <script>alert(1)</script> everywhere</title>
<script>document.write("<p>INJECTED BY SCRIPT</p>");</script><style>p { color: red } /* STYLE TEXT */</style></head>
<body><article><h1>Scripts everywhere</h1>
<p>Only this paragraph and the next one are real content; the scripts around them must leave no trace in the note.</p>
<script>var x = "</p><h1>FAKE HEADING</h1>";</script>
<p>Second real paragraph with an <a href="javascript:alert('pwned')">evil link</a> and a <a href="data:text/html,boom">data link</a>.</p>
<noscript><p>NOSCRIPT FALLBACK</p></noscript><iframe src="https://ads.example.net/frame"></iframe>
</article></body></html>"""

_PDF = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"
_PNG = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489")


def default_routes(site: LocalWebServer) -> None:
    """Every route the clipper tests use."""
    site.add_page("/2024/03/lazy-pipelines/", "blog.html")
    site.add_page("/docs/config.html", "docs.html")
    site.add_page("/recettes/creme-brulee", "latin1-header.html", encoding="cp1252",
                  content_type="text/html; charset=windows-1252")
    site.add_page("/recettes/tarte-tatin", "latin1-meta.html", encoding="cp1252", content_type="text/html")
    site.add_page("/security/traversal", "passwd-title.html")
    site.add_page("/edge/yaml-title", "yaml-title.html")
    site.add_page("/releases/2.0", "newline-title.html")
    site.add_page("/app", "empty.html")
    # redirects: a three-hop chain ending on the blog post, and a two-page loop
    site.redirect("/go/1", "/go/2", 301)
    site.redirect("/go/2", site.url("/go/3"), 302)
    site.redirect("/go/3", "/2024/03/lazy-pipelines/", 307)
    site.redirect("/loop/a", "/loop/b")
    site.redirect("/loop/b", "/loop/a")
    site.redirect("/to-file", "file:///etc/passwd")
    # errors and hostile answers
    site.add("/missing", "<html><body><h1>Page not found</h1><p>Sorry.</p></body></html>", status=404)
    site.add("/broken", "<html><body><h1>Internal Server Error</h1></body></html>", status=500)
    site.add("/slow", (PAGES / "blog.html").read_bytes(), delay=SLOW_DELAY)
    big = b"<!DOCTYPE html><html><body><article>" + b"<p>padding text " + b"x" * BIG_SIZE + b"</p></article></body></html>"
    site.add("/big/declared", big)
    site.add("/big/streamed", big, content_length=False)
    site.add("/paper.pdf", _PDF, content_type="application/pdf")
    site.add("/photo.png", _PNG, content_type="image/png")
    site.add("/notes.txt", "just some plain text, not a web page", content_type="text/plain; charset=utf-8")
    site.add("/untyped", (PAGES / "docs.html").read_bytes(), content_type=None)
    site.add("/gzipped", gzip.compress((PAGES / "docs.html").read_bytes()),
             headers={"Content-Encoding": "gzip"})
    site.add("/hostile/deep", _deep_page(3000))
    site.add("/hostile/attribute", _huge_attribute_page(1_000_000))
    site.add("/hostile/scripts", _SCRIPT_PAGE)


@pytest.fixture(scope="module")
def web():
    """A started :class:`LocalWebServer` with :func:`default_routes`; stopped after the module."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("NO_PROXY", "127.0.0.1,localhost")  # a developer's proxy must not see these
        patch.setenv("no_proxy", "127.0.0.1,localhost")
        site = LocalWebServer().start()
        default_routes(site)
        try:
            yield site
        finally:
            site.stop()
