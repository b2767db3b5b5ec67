"""Walking the link graph from the reader: following links, back and forward, the links
panel (outline, links, backlinks, unlinked mentions, related notes) and how links look in
the reader (live ones as links, dangling ones struck through, embeds with their passage).

Owned by the search screen as ``screen.links``; it declares its state below and reaches the
screen only through :class:`Host` (the reader, the links panel, notifications).
"""

from __future__ import annotations

import re
import time
from urllib.parse import quote, unquote

from pms_tui.core.errors import PmsError, describe
from pms_tui.core.kb import is_document_name, read_note, split_frontmatter
from pms_tui.core.markdown import headings
from pms_tui.core.results import Hit, Link

from ..reading_history import Place, ReadingHistory
from . import Host
from ..widgets.links_panel import LinksPanel, PanelContent, PanelEntry
from ..widgets.reader import Reader

LINK_SCHEME = "pms-note:"  # what a followable link in the reader points to
_WIKI = re.compile(r"(!?)\[\[([^\[\]\n]{0,800}?)\]\]")
_TICKS = re.compile(r"`+")


def code_spans(line: str) -> list[tuple[int, int]]:
    """The inline code spans of one line, as (start, end) offsets: a run of backticks closed by
    the next run of the same length (CommonMark); an unclosed run is literal text."""
    spans: list[tuple[int, int]] = []
    runs = list(_TICKS.finditer(line))
    i = 0
    while i < len(runs):
        opening = runs[i]
        close = next((j for j in range(i + 1, len(runs)) if len(runs[j].group()) == len(opening.group())), None)
        if close is None:
            i += 1
            continue
        spans.append((opening.start(), runs[close].end()))
        i = close + 1
    return spans


def _inner(link: Link) -> tuple[str, str]:
    return link.target.strip().lower(), link.anchor.strip().lower()


class LinksController:
    """Follows links and keeps the way taken; fills the links panel for the note in the reader."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self.history = ReadingHistory()
        self.links_by_line: dict[int, list[Link]] = {}  # of the note in the reader
        self.note: tuple[str, str] | None = None  # (collection, relpath) of the note in the reader
        self.title = ""  # its title
        self.follow_latencies_ms: list[float] = []  # link chosen -> target shown (the app's benchmark)
        self._follow_started = 0.0
        self._results_key: tuple[int | None, str | None] | None = None  # the results' last highlighted passage, query

    @property
    def kb(self):
        return self.host.kb

    @property
    def reader(self) -> Reader:
        return self.host.reader

    @property
    def panel(self) -> LinksPanel:
        return self.host.query_one(LinksPanel)

    def notify(self, message: str, **options) -> None:
        self.host.notify(message, **options)

    def act(self, what: str) -> None:
        """The keys: ``panel`` (show or hide it, focusing its list), ``back``, ``forward``."""
        if what == "back":
            self.back()
        elif what == "forward":
            self.forward()
        elif self.toggle_panel():
            self.host.query_one("#links-list").focus()
        elif self.host.focused is None or self.host.focused.id == "links-list":
            self.host.search_bar.focus()

    # -- the reader ------------------------------------------------------------------------------
    def decorate(self, hit: Hit, text: str, first_line: int) -> str:
        """The reader's Markdown with the note's wikilinks made followable: a live link
        becomes a Markdown link to ``pms-note:N``, a dangling one is struck through, an embed
        is followed by its passage on the same line (so line numbers stay)."""
        self.note_shown(hit)
        if self.kb is None or "[[" not in text:
            return text
        lines = text.split("\n")
        for i, line in enumerate(lines):
            found = self.links_by_line.get(first_line + i)
            if found:
                spans = code_spans(line) if "`" in line else []
                lines[i] = _WIKI.sub(lambda m: m.group(0) if any(a <= m.start() < b for a, b in spans)
                                     else self._render(m, found), line)
        return "\n".join(lines)

    def _render(self, match: re.Match, found: list[Link]) -> str:
        inner = match.group(2)
        target, _, label = inner.partition("|")
        target, _, anchor = target.partition("#")
        key = (target.strip().lower(), anchor.strip().lower())
        link = next((item for item in found if _inner(item) == key), None)
        if link is None:
            return match.group(0)
        shown = (label or link.label or (target + (f" › {anchor}" if anchor else "")) or anchor).strip()
        shown = shown.replace("[", "(").replace("]", ")")
        if link.embed:
            if not link.resolved:
                return f"*⧉ {shown}*" if link.status == "file" else f"~~⧉ {shown}~~"
            passage = self.kb.passage(link, 300).replace("[", "(").replace("]", ")").replace("`", "'")
            return f"[⧉ {shown}]({LINK_SCHEME}{self._ref(link)}) *“{passage}”*"
        if not link.resolved:
            return f"~~{shown}~~"
        return f"[{shown}]({LINK_SCHEME}{self._ref(link)})"

    @staticmethod
    def _ref(link: Link) -> str:
        return quote(f"{link.collection}/{link.target_path}:{link.target_line or 1}", safe="")

    def note_shown(self, hit: Hit | None) -> None:
        """The reader is about to show ``hit``: load its note's links, refresh the panel."""
        if hit is None or self.kb is None:
            self.links_by_line, self.note = {}, None
            return
        note = (hit.collection, hit.relpath)
        if note != self.note:
            self.note = note
            try:
                links = self.kb.links(f"{hit.collection}/{hit.relpath}")
            except PmsError:
                links = []
            self.links_by_line = {}
            for link in links:
                self.links_by_line.setdefault(link.line, []).append(link)
            self.title = hit.title
            if self.panel.has_class("-shown"):
                self.fill_panel(hit)
        self.panel.show_trail(self.history.trail(), self.history.can_go_back, self.history.can_go_forward)

    def show_result(self, hit: Hit | None, query: str | None) -> None:
        """Show the results' highlighted ``hit`` in the reader, unless the results were only
        refreshed (the same query, the same passage highlighted: a sync's or an edit's new
        rows) while the reader shows a note reached by following a link: the walk stays."""
        key = (hit.chunk_id if hit else None, query)
        refreshed, self._results_key = key == self._results_key, key
        shown = self.reader.hit
        if refreshed and hit is not None and shown is not None and shown.chunk_id != hit.chunk_id:
            return
        self.reader.show(hit)

    # -- following ---------------------------------------------------------------------------------
    def follow_href(self, href: str) -> bool:
        """A link clicked in the reader; True when it was one of ours."""
        if not href.startswith(LINK_SCHEME):
            return self._follow_markdown_link(href)
        ref = unquote(href[len(LINK_SCHEME):])
        note, _, line = ref.rpartition(":")
        collection, _, path = note.partition("/")
        self.open(PanelEntry(collection, path, int(line) if line.isdigit() else 1))
        return True

    def _follow_markdown_link(self, href: str) -> bool:
        """A Markdown link of the note (``[text](other%20note.md#part)``), as the index resolved it."""
        path, _, _ = unquote(href).partition("#")
        for links in self.links_by_line.values():
            for link in links:
                if link.syntax == "md" and link.target == path.replace("\\", "/"):
                    if link.resolved:
                        self.open(PanelEntry(link.collection, link.target_path, link.target_line or 1))
                    else:
                        self.notify(f"That link leads nowhere in the collection ({link.status}).", timeout=3)
                    return True
        return False

    def open(self, entry: PanelEntry, record: bool = True) -> None:
        """Show ``entry``'s note in the reader, whole, at its line (an entry with no path: a
        line of the note shown now, from the outline)."""
        self._follow_started = time.perf_counter()
        if not entry.path and self.note is not None:
            entry = PanelEntry(self.note[0], self.note[1], entry.line)
        try:
            chunks = self.kb.chunks_of(entry.collection, entry.path)
        except PmsError as exc:
            self.notify(describe(exc), severity="warning")
            return
        if not chunks:
            self.notify(f"{entry.collection}/{entry.path} is not indexed; sync first.", severity="warning")
            return
        hit = next((c for c in chunks if c.start_line <= entry.line <= c.end_line), chunks[0])
        if record:
            here = self.history.current
            if self.note is not None and (here is None or (here.collection, here.path) != self.note):
                # the way starts at the note read when the first link was followed (a search
                # result, say): back returns there, and results merely looked at are not steps
                start = self.reader.hit.start_line if self.reader.hit is not None else 1
                self.history.visit(Place(self.note[0], self.note[1], start, self.title))
            self.history.visit(Place(entry.collection, entry.path, entry.line, hit.title))
        self.reader.whole_note_at(hit, entry.line)

    def shown(self, painted_at: float | None = None) -> None:
        """The reader finished rendering what ``open`` asked for (and the screen showed it at
        ``painted_at``, a ``time.perf_counter()``)."""
        if self._follow_started:
            self.follow_latencies_ms.append(((painted_at or time.perf_counter()) - self._follow_started) * 1000)
            self._follow_started = 0.0

    def back(self) -> None:
        place = self.history.back()
        if place is None:
            self.notify("Nothing to go back to.", timeout=2)
            return
        self.open(PanelEntry(place.collection, place.path, place.line), record=False)

    def forward(self) -> None:
        place = self.history.forward()
        if place is None:
            self.notify("Nothing to go forward to.", timeout=2)
            return
        self.open(PanelEntry(place.collection, place.path, place.line), record=False)

    # -- the panel ---------------------------------------------------------------------------------
    def toggle_panel(self) -> bool:
        """Show or hide the panel; True when it is shown now."""
        shown = not self.panel.has_class("-shown")
        self.panel.set_class(shown, "-shown")
        if shown:
            self.fill_panel(self.reader.hit)
        return shown

    def fill_panel(self, hit: Hit | None) -> None:
        if hit is None or self.kb is None:
            self.panel.show(PanelContent("", self.history.trail(), [], [], [], [], []))
            return
        name = f"{hit.collection}/{hit.relpath}"
        try:
            links = self.kb.links(name)
            backlinks = self.kb.backlinks(name)
            mentions = self.kb.mentions(name, limit=20)
        except PmsError as exc:
            self.notify(describe(exc), severity="warning")
            return
        related, why = [], ""
        if self.kb.model_mismatch:
            why = "related notes need `pms-tui reindex`"
        else:
            related = self.kb.related(name, k=10)
            if not related:
                why = "no vectors yet for this note (sync embeds them)"
        try:
            body, offset = _note_text(hit, self.kb)
            outline = [(h.text, h.level, h.start + offset + 1) for h in headings(body)]
        except (OSError, PmsError):
            outline = []
        linked = {r.target_path for r in links if r.resolved}
        content = PanelContent(
            title=hit.title,
            trail=self.history.trail(),
            outline=outline,
            links=[(_shown(link), PanelEntry(link.collection, link.target_path, link.target_line or 1)
                    if link.resolved else None, link.status) for link in links],
            backlinks=[(b.source_title or b.source, b.text.strip(), PanelEntry(b.collection, b.source, b.line))
                       for b in backlinks],
            mentions=[(m.title, m.text, PanelEntry(m.collection, m.path, m.line)) for m in mentions],
            related=[(r.title, r.score, ("↔ " if r.links_here else "→ ") if r.path in linked else
                      ("← " if r.links_here else "  "), PanelEntry(r.collection, r.path, r.line))
                     for r in related],
            related_note=why,
        )
        self.panel.show(content)
        self.panel.show_trail(self.history.trail(), self.history.can_go_back, self.history.can_go_forward)


def _shown(link: Link) -> str:
    text = link.label or link.target or link.source_title
    if link.anchor:
        text += f" › {link.anchor}"
    return ("⧉ " if link.embed else "") + text


def _note_text(hit: Hit, kb) -> tuple[str, int]:
    """The note's body (frontmatter left out) and the file line before its first line; a PDF's
    or Word file's text from the index (its outline is its pages)."""
    if is_document_name(hit.relpath):
        return kb.document_text(hit.collection, hit.relpath), 0
    _, body, offset = split_frontmatter(read_note(hit.path).text)
    return body, offset
