"""Fetching and extraction for the web clipper, against a local server on 127.0.0.1."""

from __future__ import annotations

import socket
import time

import pytest

from pms_tui.core.clip import html_to_markdown as extract_module
from pms_tui.core.clip.fetch import decode_html, fetch, normalize_url, user_agent
from pms_tui.core.clip.html_to_markdown import ExtractedPage, extract_from_html, extract_from_url
from pms_tui.core.errors import ClipError

try:
    from tests.webserver import BLOG_BOILERPLATE, JS_CODE, PY_CODE, SLOW_DELAY, web  # noqa: F401 - fixture used by name
except ImportError:  # tests/ imported as a package
    from tests.webserver import BLOG_BOILERPLATE, JS_CODE, PY_CODE, SLOW_DELAY, web  # noqa: F401


def html_page(body: str, title: str = "Test page") -> str:
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title}</title></head><body><article>"
            "<p>An introductory paragraph that is long enough for the extractor to treat the article as real content.</p>"
            f"{body}<p>A closing paragraph that is also long enough to count as real content for the extractor.</p>"
            "</article></body></html>")


# --------------------------------------------------------------------------------------
# URLs
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("url", ["http://example.org/a", "https://example.org/a?b=c#d", "  https://example.org/  "])
def test_normalize_url_keeps_http_and_https(url):
    assert normalize_url(url) == url.strip()


@pytest.mark.parametrize(("given", "expected"), [
    ("example.org/post", "https://example.org/post"),
    ("localhost:8000/notes", "https://localhost:8000/notes"),
    ("//example.org/x", "https://example.org/x"),
])
def test_normalize_url_adds_https_when_the_scheme_is_missing(given, expected):
    assert normalize_url(given) == expected


@pytest.mark.parametrize(("url", "words"), [
    ("", "give the address"),
    ("   ", "give the address"),
    ("file:///etc/passwd", "not file:"),
    ("ftp://example.org/pub/file", "not ftp:"),
    ("javascript:alert(1)", "not javascript:"),
    ("data:text/html,<p>hi</p>", "not data:"),
    ("mailto:someone@example.org", "not mailto:"),
    ("http:/example.org", "not a valid web address"),
    ("https://", "no host name"),
    ("https://exa mple.org/", "spaces"),
    ("https://example.org:99999/", "not a valid web address"),
])
def test_normalize_url_refuses_everything_else(url, words):
    with pytest.raises(ClipError, match=words):
        normalize_url(url)


def test_user_agent_names_the_clipper():
    assert user_agent().startswith("pms-tui/")
    assert user_agent().endswith("(+local web clipper)")


# --------------------------------------------------------------------------------------
# Fetching
# --------------------------------------------------------------------------------------


def test_fetch_returns_html_and_sends_a_clear_user_agent(web):
    html, final = fetch(web.url("/2024/03/lazy-pipelines/"))
    assert final == web.url("/2024/03/lazy-pipelines/")
    assert "Lazy pipelines with Python generators" in html
    path, headers = web.requests[-1]
    assert path == "/2024/03/lazy-pipelines/"
    assert headers["User-Agent"] == user_agent()


def test_fetch_follows_a_three_hop_redirect_chain(web):
    _, final = fetch(web.url("/go/1"))
    assert final == web.url("/2024/03/lazy-pipelines/")


def test_fetch_stops_at_the_redirect_limit(web):
    with pytest.raises(ClipError, match="redirects more than 2 times"):
        fetch(web.url("/go/1"), max_redirects=2)


def test_fetch_refuses_a_redirect_loop(web):
    with pytest.raises(ClipError, match="redirect loop"):
        fetch(web.url("/loop/a"))


def test_fetch_refuses_a_redirect_to_a_file_url(web):
    with pytest.raises(ClipError, match="not an http or https"):
        fetch(web.url("/to-file"))


@pytest.mark.parametrize(("path", "answer"), [("/missing", "404 Not Found"), ("/broken", "500 Internal Server Error")])
def test_fetch_reports_http_errors(web, path, answer):
    with pytest.raises(ClipError) as caught:
        fetch(web.url(path))
    assert str(caught.value) == f"The server answered {answer} for {web.url(path)}."


def test_fetch_times_out(web):
    started = time.monotonic()
    with pytest.raises(ClipError, match=r"did not answer within 0\.5 seconds"):
        fetch(web.url("/slow"), timeout=0.5)
    assert time.monotonic() - started < SLOW_DELAY


@pytest.mark.parametrize("path", ["/big/declared", "/big/streamed"])
def test_fetch_refuses_oversized_pages(web, path):
    with pytest.raises(ClipError, match="too large to clip"):
        fetch(web.url(path), max_bytes=100_000)


def test_fetch_reads_a_page_just_under_the_limit(web):
    html, _ = fetch(web.url("/big/streamed"), max_bytes=400_000)
    assert html.endswith("</html>")


@pytest.mark.parametrize(("path", "kind"), [
    ("/paper.pdf", "a PDF document"), ("/photo.png", "an image"), ("/notes.txt", "a file"),
])
def test_fetch_refuses_content_that_is_not_html(web, path, kind):
    with pytest.raises(ClipError, match=f"is {kind} .*not a web page"):
        fetch(web.url(path))


def test_fetch_sniffs_html_without_a_content_type(web):
    html, _ = fetch(web.url("/untyped"))
    assert "Configuration reference" in html


def test_fetch_decodes_gzip(web):
    html, _ = fetch(web.url("/gzipped"))
    assert "Configuration reference" in html


def test_fetch_reports_a_refused_connection():
    with socket.socket() as sock:  # a port that was free a moment ago and has no listener
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(ClipError, match="refused the connection"):
        fetch(f"http://127.0.0.1:{port}/", timeout=2)


def test_fetch_reports_a_failed_name_lookup(monkeypatch):
    def no_dns(*args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", no_dns)
    with pytest.raises(ClipError, match="Could not find the server no-such-host.invalid"):
        fetch("http://no-such-host.invalid/page", timeout=2)


# --------------------------------------------------------------------------------------
# Charsets
# --------------------------------------------------------------------------------------


def test_charset_from_the_http_header(web):
    page = extract_from_url(web.url("/recettes/creme-brulee"))
    assert page.title == "Crème brûlée à la façon de grand-mère"
    assert page.author == "Hélène Côté"
    assert "Comptez environ 12 € d’ingrédients" in page.content  # € and ’ exist only in windows-1252
    assert "« œufs frais »" in page.content
    assert "\ufffd" not in page.content


def test_charset_from_a_meta_tag_only(web):
    html, _ = fetch(web.url("/recettes/tarte-tatin"))
    assert "Tarte tatin à l’ancienne, façon Hélène" in html
    page = extract_from_html(html, web.url("/recettes/tarte-tatin"))
    assert "c’est “la” touche finale" in page.content
    assert "\ufffd" not in page.content


@pytest.mark.parametrize(("body", "header", "expected"), [
    ("café".encode("utf-8"), None, "café"),
    ("café".encode("cp1252"), "windows-1252", "café"),
    ("<meta charset='iso-8859-1'>café €".encode("cp1252"), None, "<meta charset='iso-8859-1'>café €"),
    ('<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">é'.encode("latin-1"), None,
     '<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">é'),
    ("<meta charset='utf-8'>é".encode("utf-8"), "iso-8859-1", "<meta charset='utf-8'>Ã©"),  # header wins
    (b"\xef\xbb\xbf" + "é".encode("utf-8"), "iso-8859-1", "é"),  # a byte-order mark wins
    ("é".encode("utf-8"), "no-such-charset", "é"),
    ("é".encode("utf-8"), "rot13", "é"),  # a codec but not a charset
    (b"caf\xe9", None, "caf\ufffd"),  # undeclared and not UTF-8: replaced, never an exception
])
def test_decode_html(body, header, expected):
    assert decode_html(body, header) == expected


# --------------------------------------------------------------------------------------
# Extraction
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def blog(web) -> ExtractedPage:
    return extract_from_url(web.url("/go/1"))


def test_blog_metadata(blog, web):
    assert blog.title == "Lazy pipelines with Python generators"
    assert blog.url == web.url("/2024/03/lazy-pipelines/")
    assert blog.author == "Ada Lindqvist"
    assert blog.date == "2024-03-15"
    assert blog.sitename == "Byte Sized Notes"
    assert blog.description.startswith("How generators let you stream")


def test_blog_code_blocks_are_fenced_with_language_and_exact_code(blog):
    assert f"\n```python\n{PY_CODE}\n```\n" in blog.content
    assert f"\n````js\n{JS_CODE}\n````\n" in blog.content  # longer fence: the code holds ```


def test_blog_keeps_structure(blog, web):
    content = blog.content
    assert "\n## A pipeline in three stages\n" in content
    assert "*lazily*" in content and "**far larger than memory**" in content
    assert f"[the companion page]({web.url('/code/pipelines/')})" in content  # made absolute
    assert "[functional programming HOWTO](https://docs.python.org/3/howto/functional.html#generators)" in content
    assert "- filtering never builds a list;" in content
    assert "| Approach | Memory | Restartable |" in content
    assert "| Generator expression | O(1) | no |" in content
    assert "Call `next()` on a generator" in content  # inline code stays inline


@pytest.mark.parametrize("text", BLOG_BOILERPLATE)
def test_blog_boilerplate_is_gone(blog, text):
    assert text not in blog.content


def test_docs_page_keeps_deep_headings_and_nested_code(web):
    page = extract_from_url(web.url("/docs/config.html"))
    assert page.title == "Configuration reference"
    content = page.content
    for heading in ("# Configuration reference", "## The server section", "### Listening address",
                    "#### IPv6 addresses", "### Workers", "## The storage section"):
        assert f"\n{heading}\n" in f"\n{content}"
    assert "¶" not in content  # permalink anchors dropped
    assert '```toml\n[server]\nhost = "127.0.0.1"\nport = 8080\n```' in content  # Sphinx + Pygments spans
    assert "1. Stop the background service:\n   ```bash\n   sudo systemctl stop stackyard\n   ```\n2. Run it" in content
    for text in ("Search docs", "Docs home", "Previous: Installation guide", "Built with Sphinx", "Changelog"):
        assert text not in content


def test_page_with_nothing_to_extract(web):
    with pytest.raises(ClipError, match="No readable text was found"):
        extract_from_url(web.url("/app"))


def test_xhtml_declaration_does_not_cause_double_decoding():
    html = ('<?xml version="1.0" encoding="ISO-8859-1"?>\n'
            '<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Crème brûlée</title></head><body><div>'
            "<p>Une crème brûlée très réussie, avec une croûte de caramel bien craquante et onctueuse.</p>"
            "</div></body></html>")
    page = extract_from_html(html, "https://example.org/")
    assert page.title == "Crème brûlée"
    assert "croûte de caramel" in page.content


@pytest.mark.parametrize("html", ["", "   ", "\x00\x01\x02", "just words, no markup at all"])
def test_garbage_input_raises_clip_error(html):
    with pytest.raises(ClipError):
        extract_from_html(html, "https://example.org/x")


def test_hostile_scripts_leave_no_trace(web):
    page = extract_from_url(web.url("/hostile/scripts"))
    assert page.title.startswith("Scripts")
    assert "Second real paragraph with an evil link and a data link." in page.content
    for text in ("INJECTED", "FAKE HEADING", "STYLE TEXT", "alert", "javascript:", "data:", "NOSCRIPT"):
        assert text not in page.content


def test_relative_links_without_a_page_url_are_kept():
    content = extract_from_html(html_page('<p>See <a href="/about">the about page</a> for more about us.</p>')).content
    assert "[the about page](/about)" in content


def test_hostile_deep_nesting(web):
    page = extract_from_url(web.url("/hostile/deep"))
    assert "still has a real paragraph" in page.content


def test_hostile_huge_attributes(web):
    page = extract_from_url(web.url("/hostile/attribute"))  # bounded work; timed by benchmarks, not here
    assert "attributes are megabytes long" in page.content
    assert "a very long link and more ordinary text" in page.content  # the 1 MB href is unwrapped
    assert max(len(line) for line in page.content.splitlines()) < 1000


def test_titles_are_single_lines(web):
    assert extract_from_url(web.url("/releases/2.0")).title == "Release notes for version 2.0"
    assert extract_from_url(web.url("/security/traversal")).title == "../../etc/passwd"


def test_extraction_is_fast(web):
    """Also prints the measured time per page (run pytest with -s to see it)."""
    paths = ["/2024/03/lazy-pipelines/", "/docs/config.html", "/recettes/creme-brulee", "/hostile/deep"]
    pages = {path: fetch(web.url(path)) for path in paths}
    extract_from_html(*pages[paths[0]])  # warm-up: trafilatura loads its tables lazily
    for path, (html, url) in pages.items():
        started = time.perf_counter()
        extract_from_html(html, url)
        elapsed = time.perf_counter() - started
        print(f"extract {path}: {elapsed * 1000:.1f} ms")
        assert elapsed < 1.0


# --------------------------------------------------------------------------------------
# Code blocks in the wild
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("block", "language"), [
    ('<pre><code class="language-python">x = 1</code></pre>', "python"),
    ('<pre class="lang-js"><code>x = 1</code></pre>', "js"),
    ('<div class="highlight highlight-source-python notranslate"><pre>x = 1</pre></div>', "python"),  # GitHub
    ('<div class="snippet-clipboard-content"><pre lang="rust" class="notranslate"><code>x = 1</code></pre></div>', "rust"),
    ('<div class="highlight-python notranslate"><div class="highlight"><pre>x = 1</pre></div></div>', "python"),  # Sphinx
    ('<div class="language-ruby highlighter-rouge"><div class="highlight"><pre class="highlight"><code>x = 1</code></pre></div></div>', "ruby"),  # Jekyll
    ('<pre tabindex="0" class="chroma"><code class="language-go" data-lang="go">x = 1</code></pre>', "go"),  # Hugo
    ('<pre data-language="sql">x = 1</pre>', "sql"),
    ('<pre class="sourceCode haskell"><code class="sourceCode haskell">x = 1</code></pre>', "haskell"),  # pandoc
    ('<pre class="brush: js; gutter: false">x = 1</pre>', "js"),  # SyntaxHighlighter
    ('<pre><code class="hljs python">x = 1</code></pre>', "python"),  # highlight.js
    ('<pre class="lang-js s-code-block"><code class="hljs language-javascript">x = 1</code></pre>', "javascript"),
    ('<pre><code>x = 1</code></pre>', ""),
    ('<pre><code class="nohighlight">x = 1</code></pre>', ""),
    ('<pre><code class="language-bad`name">x = 1</code></pre>', ""),
])
def test_code_language_detection(block, language):
    content = extract_from_html(html_page(block), "https://example.org/").content
    assert f"\n```{language}\nx = 1\n```\n" in content


@pytest.mark.parametrize(("block", "code"), [
    ("<pre><code>a = 1\n\n\nb = 2\n</code></pre>", "a = 1\n\n\nb = 2"),  # blank lines kept
    ("<pre>\n    indented first\n\tTab\n</pre>", "    indented first\n\tTab"),  # first indent kept
    ("<pre><code>&lt;div&gt;&amp;amp;&lt;/div&gt;</code></pre>", "<div>&amp;</div>"),  # decoded exactly once
    ("<pre><code>line1<br>line2<br/>  line3</code></pre>", "line1\nline2\n  line3"),
    ("<pre><code>*not emph* _x_ [a](b)\n# not a heading\n| a | b |</code></pre>", "*not emph* _x_ [a](b)\n# not a heading\n| a | b |"),
    ("<pre><code>x = 1   \ny = 2</code></pre>", "x = 1   \ny = 2"),  # trailing spaces kept inside code
    ('<pre><span class="k">def</span> <span class="nf">f</span>():\n    <span class="k">return</span> 1</pre>', "def f():\n    return 1"),
    ('<pre><button class="copy">Copy</button>x = 1</pre>', "x = 1"),
])
def test_code_text_is_exact(block, code):
    content = extract_from_html(html_page(block), "https://example.org/").content
    assert f"\n```\n{code}\n```\n" in content


def test_fence_is_longer_than_any_backtick_run():
    content = extract_from_html(html_page("<pre><code>`````\nfive\n</code></pre>"), "https://example.org/").content
    assert "\n``````\n`````\nfive\n``````\n" in content


def test_line_number_gutters_are_dropped():
    table = ('<table class="highlighttable"><tr><td class="linenos"><div class="linenodiv"><pre>1\n2</pre></div></td>'
             '<td class="code"><div class="highlight"><pre>a = 1\nb = 2</pre></div></td></tr></table>')
    content = extract_from_html(html_page(table), "https://example.org/").content
    assert "```\n1\n2\n```" not in content
    assert "a = 1" in content


@pytest.mark.parametrize("block", [
    '<pre><span class="linenos">1</span>a = 1\n<span class="linenos">2</span>b = 2</pre>',  # Pygments inline
    '<pre class="line-numbers language-py"><code>a = 1\nb = 2<span class="line-numbers-rows"><span></span><span></span></span></code></pre>',  # Prism
])
def test_inline_line_numbers_are_dropped(block):
    content = extract_from_html(html_page(block), "https://example.org/").content
    assert "\na = 1\nb = 2\n```" in content


def test_code_inside_a_list_item_stays_in_the_item():
    block = "<ul><li>Install it:<pre><code class='language-sh'>pip install pms-tui</code></pre></li><li>Run it.</li></ul>"
    content = extract_from_html(html_page(block), "https://example.org/").content
    assert "- Install it:\n  ```sh\n  pip install pms-tui\n  ```\n- Run it." in content


def test_code_inside_a_table_cell_becomes_inline_code():
    block = ("<table><tr><th>Command</th><th>Effect</th></tr>"
             "<tr><td><pre>ls | wc -l</pre></td><td>counts files</td></tr></table>")
    content = extract_from_html(html_page(block), "https://example.org/").content
    assert "`ls \\| wc -l`" in content
    assert "PMSCODE" not in content


def test_code_in_boilerplate_is_dropped_with_it():
    html = html_page("<p>Body text.</p>").replace(
        "</article>", "</article><footer><pre>footer_snippet()</pre><p>Copyright</p></footer>")
    content = extract_from_html(html, "https://example.org/").content
    assert "footer_snippet" not in content and "PMSCODE" not in content


def test_no_placeholder_survives(blog):
    assert "PMSCODE" not in blog.content


def test_extractor_bugs_are_wrapped(monkeypatch):
    def boom(*args, **kwargs):
        raise RuntimeError("internal failure")

    monkeypatch.setattr(extract_module.trafilatura, "extract", boom)
    with pytest.raises(ClipError, match="Could not extract the text of https://example.org/"):
        extract_from_html(html_page("<p>x</p>"), "https://example.org/")
