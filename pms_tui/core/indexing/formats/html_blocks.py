"""The blocks of an (X)HTML chapter as Markdown: headings as headings (one level below the
chapter's own), paragraphs, list items, preformatted lines and table rows, each escaped so
that no text can open a fence or a heading of its own. Scripts, styles and images are not text.
Used by the EPUB reader; a saved web page goes through the clipper's reader instead (the
page's boilerplate is dropped there, which a book's chapter has none of)."""

from __future__ import annotations

from ..document_reader import escape_line

_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_SKIP = {"#comment", "script", "style", "head", "title", "img", "svg", "math", "object", "video", "audio", "template"}
_BLOCKS = {"p", "div", "section", "article", "main", "body", "header", "footer", "aside", "nav",
           "blockquote", "figure", "figcaption", "dl", "dt", "dd", "address", "center", "hgroup",
           "ul", "ol", "li", "table", "pre", "hr", "br", *_HEADINGS}


def _local(tag: object) -> str:
    """An element's tag without its namespace ("#comment" for comments and processing instructions)."""
    return tag.rsplit("}", 1)[-1].lower() if isinstance(tag, str) else "#comment"


def _words(parts) -> str:
    return " ".join(" ".join(parts).split())


def _inline_text(el) -> list[str]:
    """The text of an inline element and what it holds (its tail is its parent's)."""
    if _local(el.tag) in _SKIP:
        return []
    out = [el.text or ""]
    for child in el:
        out += _inline_text(child)
        out.append(child.tail or "")
    return out


class _Writer:
    def __init__(self, shift: int) -> None:
        self.shift = shift
        self.blocks: list[str] = []
        self.pending: list[str] = []

    def flush(self) -> None:
        text = _words(self.pending)
        self.pending = []
        if text:
            self.blocks.append(escape_line(text))

    def block(self, el) -> None:
        tag = _local(el.tag)
        if tag in _SKIP:
            return
        if tag in _HEADINGS:
            self.flush()
            text = _words(_inline_text(el))
            if text:
                self.blocks.append("#" * min(_HEADINGS[tag] + self.shift, 6) + " " + text)
        elif tag == "pre":
            self.flush()
            lines = [escape_line(line) for line in "".join(_inline_text(el)).split("\n")]
            if any(lines):
                self.blocks.append("\n".join(lines).strip("\n"))
        elif tag == "table":
            self.flush()
            rows = []
            for row in el.iter():
                if _local(row.tag) == "tr":
                    cells = [_words(_inline_text(c)) for c in row if _local(c.tag) in ("td", "th")]
                    if any(cells):
                        rows.append(escape_line(" | ".join(cells)))
            if rows:
                self.blocks.append("\n".join(rows))
        elif tag == "li":
            self.flush()
            own: list[str] = [el.text or ""]
            nested = []
            for child in el:
                if _local(child.tag) in ("ul", "ol"):
                    nested.append(child)
                else:
                    own += _inline_text(child)
                own.append(child.tail or "")
            text = _words(own)
            if text:
                self.blocks.append("- " + text)
            for child in nested:
                self.block(child)
        elif tag in ("br", "hr"):
            self.flush()
        elif tag in _BLOCKS or _has_block(el):
            self.flush()
            self.pending.append(el.text or "")
            for child in el:
                if _local(child.tag) in _BLOCKS or _has_block(child):
                    self.block(child)
                else:
                    self.pending += _inline_text(child)
                self.pending.append(child.tail or "")
            self.flush()
        else:
            self.pending += _inline_text(el)


def _has_block(el) -> bool:
    return any(_local(d.tag) in _BLOCKS for d in el.iterdescendants())


def markdown(body, shift: int = 1) -> list[str]:
    """The Markdown blocks of ``body`` (an lxml element), headings ``shift`` levels down."""
    writer = _Writer(shift)
    writer.block(body)
    writer.flush()
    return writer.blocks
