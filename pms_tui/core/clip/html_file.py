"""An HTML file kept in a collection's folder (a page saved from a browser, an export), read as
the clipper reads a web page: the same decoding (``fetch.decode_html``: byte-order mark, then
``<meta charset>``, then UTF-8) and the same conversion to Markdown (``html_to_markdown``:
trafilatura, boilerplate dropped, links made safe), so a saved page and a clipped one read
alike. Run inside the document reader's child process (``document_reader.FORMATS`` names it),
within its limits; never writes anything.
"""

from __future__ import annotations

from ..errors import ClipError
from .fetch import decode_html
from .html_to_markdown import extract_from_html

# The clipper's limit for a page it downloads (fetch's max_bytes)
MAX_HTML_BYTES = 10_000_000


def read(path: str, max_chars: int) -> dict:
    with open(path, "rb") as handle:
        body = handle.read(MAX_HTML_BYTES + 1)
    if len(body) > MAX_HTML_BYTES:
        return {"skip": f"an HTML file larger than {MAX_HTML_BYTES / 1e6:g} MB (the clipper's limit for a page)"}
    try:
        page = extract_from_html(decode_html(body))
    except ClipError as exc:
        return {"skip": str(exc).rstrip(".").replace("the page", "it", 1)}
    text = page.content
    return {"markdown": text[:max_chars], "title": page.title, "truncated": max(len(text) - max_chars, 0)}
