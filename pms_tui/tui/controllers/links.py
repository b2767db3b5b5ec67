"""Walking the link graph from the reader: following links, back and forward, the links
panel (outline, links, backlinks, unlinked mentions, related notes) and how links look in
the reader (live ones as links, dangling ones struck through, embeds with their passage).

A part of :class:`pms_tui.tui.screens.search.SearchScreen`: it owns the ``links_shown``
reactive (controllers.state), the way taken, the links of the note in the reader, the
panel's loading worker and the messages of the reader and the panel.
"""

from __future__ import annotations

import time
from dataclasses import replace
from urllib.parse import quote, unquote, urlsplit

from textual import on, work
from textual.widgets import Markdown
from textual.worker import get_current_worker

from pms_tui.core.errors import PmsError, describe
from pms_tui.core.kb import KnowledgeBase, is_document_name, split_frontmatter
from pms_tui.core.markdown import headings
from pms_tui.core.results import Hit, Link
from pms_tui.core.safe_text import one_line

from ..reading_history import Place, ReadingHistory
from ..widgets.links_panel import LinksPanel, PanelContent, PanelEntry
from ..widgets.reader import Reader
from ..widgets.results import ResultsList
from . import while_running
from .search_runs import SearchRuns

LINK_SCHEME = "pms-note:"  # what a followable link in the reader points to
NOWHERE_SCHEME = "pms-nowhere:"  # a link the index could not resolve: clicking it says why
PANEL_GROUP = "links-panel"  # the panel's loading worker: one at a time, the newest note's


def refusal(link: Link) -> str:
    """One sentence on why ``link`` cannot be followed (its status is not "resolved")."""
    name = link.target or link.anchor
    if link.status == "file":
        return f"{name} is a file, not a note: it is not shown here."
    if link.status == "ambiguous":
        return f"{name} names more than one note; write its folder in the link to choose one."
    if link.status == "outside":
        return f"{name} is outside the collection's folder."
    if link.status == "pending":
        return f"{name} is not resolved yet; sync the collection."
    if not link.target:
        return f"This note has no heading or block {link.anchor}."
    return f"No note named {name} in this collection."


class LinksPart(SearchRuns):
    """Follows links and keeps the way taken; fills the links panel for the note in the reader."""

    def init_links(self) -> None:
        self.reading_history = ReadingHistory()
        self.links_by_line: dict[int, list[Link]] = {}  # of the note in the reader
        self.link_note: tuple[str, str] | None = None  # (collection, relpath) of the note in the reader
        self._followed = False  # the reader shows a note reached by a link, not the results' hit
        self.link_title = ""  # its title
        self.follow_latencies_ms: list[float] = []  # link chosen -> target shown (the app's benchmark)
        self._follow_started = 0.0
        self._results_key: tuple[int | None, str | None] | None = None  # the results' last highlighted passage, query

    def action_links(self, what: str) -> None:
        """The keys: ``panel`` (show or hide it, focusing its list), ``back``, ``forward``."""
        if what == "back":
            self.link_back()
        elif what == "forward":
            self.link_forward()
        else:
            self.links_shown = not self.links_shown
            if self.links_shown:
                self.query_one("#links-list").focus()
            elif self.focused is None or self.focused.id == "links-list":
                self.search_bar.focus()

    def on_links_panel_entry_chosen(self, message: LinksPanel.EntryChosen) -> None:
        if self.has_class("-narrow"):  # the panel stands in the reader's place (app.tcss): it steps aside
            self.links_shown = False
        self.open_entry(message.entry)

    def on_markdown_link_clicked(self, message: Markdown.LinkClicked) -> None:
        if self.follow_href(message.href):
            message.stop()

    def on_reader_hit_shown(self, message: Reader.HitShown) -> None:
        """The reader finished rendering what ``open_entry`` asked for (and the screen showed
        it at ``painted_at``, a ``time.perf_counter()``)."""
        if self._follow_started:
            self.follow_latencies_ms.append(((message.painted_at or time.perf_counter()) - self._follow_started)
                                            * 1000)
            self._follow_started = 0.0

    # -- the reader ------------------------------------------------------------------------------
    def link_href(self, link: Link) -> str:
        """What the reader's rendered ``link`` sends when clicked: the place it leads to, or
        (a link that leads nowhere: dangling, ambiguous, outside, a file) the sentence why."""
        if link.resolved:
            return LINK_SCHEME + self._ref(link)
        return NOWHERE_SCHEME + quote(refusal(link), safe="")

    @staticmethod
    def _ref(link: Link) -> str:
        return quote(f"{link.collection}/{link.target_path}:{link.target_line or 1}", safe="")

    def links_note_shown(self, hit: Hit | None) -> None:
        """The reader is about to show ``hit``: load its note's links, refresh the panel."""
        if hit is None or self.kb is None:
            self.links_by_line, self.link_note = {}, None
            return
        note = (hit.collection, hit.relpath)
        if note != self.link_note:
            self.link_note = note
            try:
                links = self.kb.graph.links(f"{hit.collection}/{hit.relpath}")
            except PmsError:
                links = []
            self.links_by_line = {}
            for link in links:
                self.links_by_line.setdefault(link.line, []).append(link)
            self.link_title = hit.title
            if self.links_shown:
                self.fill_panel(hit)
        self._show_trail()

    def _show_trail(self) -> None:
        history = self.reading_history
        self.links_panel.show_trail(history.trail(), history.can_go_back, history.can_go_forward,
                                    self.link_title if self.link_note is not None else "")

    @on(ResultsList.HitHighlighted)
    @while_running
    def _result_highlighted(self, message: ResultsList.HitHighlighted) -> None:
        self.show_result(message.hit, self._shown_query)

    def show_result(self, hit: Hit | None, query: str | None) -> None:
        """Show the results' highlighted ``hit`` in the reader, unless the results were only
        refreshed (the same query, the same passage highlighted: a sync's or an edit's new
        rows) while the reader shows a note reached by following a link: the walk stays."""
        key = (hit.chunk_id if hit else None, query)
        refreshed, self._results_key = key == self._results_key, key
        shown = self.reader.hit
        if refreshed and hit is not None and shown is not None:
            if shown.chunk_id == hit.chunk_id:
                return  # the passage is shown already: the reader (its view, its scroll) stays as it is
            if self._followed:
                return  # a note reached by following a link: the walk stays
        self._followed = False
        self.reader.show(hit)

    # -- following ---------------------------------------------------------------------------------
    def follow_href(self, href: str) -> bool:
        """A link clicked in the reader: followed, or refused with one sentence. True when it
        was handled (every link is)."""
        if href.startswith(LINK_SCHEME):
            ref = unquote(href[len(LINK_SCHEME):])
            note, _, line = ref.rpartition(":")
            collection, _, path = note.partition("/")
            self.open_entry(PanelEntry(collection, path, int(line) if line.isdigit() else 1))
        elif href.startswith(NOWHERE_SCHEME):
            self._refuse(unquote(href[len(NOWHERE_SCHEME):]))
        elif href.startswith("#"):
            self._follow_within(href[1:])
        else:
            self._follow_markdown_link(href)
        return True

    def _refuse(self, sentence: str) -> None:
        self.notify(one_line(sentence)[:300], severity="warning", timeout=4, markup=False)

    def _follow_within(self, fragment: str) -> None:
        """``[x](#a-heading)``: a place in the note shown."""
        line = None
        if self.link_note is not None and self.kb is not None:
            try:
                line = self.kb.graph.anchor_line(f"{self.link_note[0]}/{self.link_note[1]}", fragment)
            except PmsError:
                line = None
        if line is None:
            self._refuse(f"This note has no heading or block named {unquote(fragment)}.")
            return
        self.open_entry(PanelEntry("", "", line))

    def _follow_markdown_link(self, href: str) -> None:
        """A Markdown link of the note (``[text](other%20note.md#part)``), as the index resolved
        it; a web link or a link to another kind of file is refused with a sentence."""
        if urlsplit(href).scheme or href.startswith("//"):  # the web, mail, another app
            shown = one_line(href)[:200]
            self.app.copy_to_clipboard(href)
            self._refuse(f"{shown} opens outside pms-tui: its address is copied to the clipboard.")
            return
        links = [link for found in self.links_by_line.values() for link in found]
        link = self.kb.graph.link_of_href(href, links) if self.kb is not None else None
        if link is None:
            self._refuse(f"{unquote(href)} is not a note of this collection.")
        elif link.resolved:
            self.open_entry(PanelEntry(link.collection, link.target_path or "", link.target_line or 1))
        else:
            self._refuse(refusal(link))

    def open_entry(self, entry: PanelEntry, record: bool = True) -> None:
        """Show ``entry``'s note in the reader, whole, at its line (an entry with no path: a
        line of the note shown now, from the outline)."""
        self._follow_started = time.perf_counter()
        if not entry.path and self.link_note is not None:
            entry = PanelEntry(self.link_note[0], self.link_note[1], entry.line)
        if self.kb is None:
            return
        try:
            note = self.kb.notes.note(f"{entry.collection}/{entry.path}")  # the engine's one resolver
            chunks = self.kb.chunks_of(note.collection, note.relpath)
        except PmsError as exc:
            self.notify(describe(exc), severity="warning")
            return
        if not chunks:
            self.notify(f"{entry.collection}/{entry.path} is not indexed; sync first.", severity="warning")
            return
        hit = next((c for c in chunks if c.start_line <= entry.line <= c.end_line), chunks[0])
        if record:
            here = self.reading_history.current
            left = self.link_note  # the note in the reader before this one
            if left is not None and (here is None or (here.collection, here.path) != left):
                # the way starts at the note read when the first link was followed (a search
                # result, say): back returns there, and results merely looked at are not steps
                start = self.reader.hit.start_line if self.reader.hit is not None else 1
                self.reading_history.visit(Place(left[0], left[1], start, self.link_title))
            self.reading_history.visit(Place(entry.collection, entry.path, entry.line, hit.title))
        self._followed = True
        self.reader.whole_note_at(hit, entry.line)

    def link_back(self) -> None:
        place = self.reading_history.back()
        if place is None:
            self.notify("Nothing to go back to.", timeout=2)
            return
        self.open_entry(PanelEntry(place.collection, place.path, place.line), record=False)

    def link_forward(self) -> None:
        place = self.reading_history.forward()
        if place is None:
            self.notify("Nothing to go forward to.", timeout=2)
            return
        self.open_entry(PanelEntry(place.collection, place.path, place.line), record=False)

    # -- the panel ---------------------------------------------------------------------------------
    def watch_links_shown(self, shown: bool) -> None:
        self.links_panel.set_class(shown, "-shown")
        self.query_one("#panes").set_class(shown, "-links-shown")
        if shown:
            self.fill_panel(self.reader.hit)

    def fill_panel(self, hit: Hit | None) -> None:
        """Fill the panel for ``hit``'s note: its links, backlinks, mentions and related notes
        are read in an exclusive thread worker (a newer note cancels the older load), and
        shown only if the reader still shows that note when they arrive."""
        if hit is None or self.kb is None:
            self.links_panel.show(PanelContent("", self.reading_history.trail(), [], [], [], [], []))
            return
        self.load_links_panel(self.kb, hit, self.reading_history.trail())

    @work(thread=True, exclusive=True, group=PANEL_GROUP, exit_on_error=False)
    def load_links_panel(self, kb: KnowledgeBase, hit: Hit, trail: str) -> None:
        try:
            content = panel_content(kb, hit, trail)
        except PmsError as exc:
            self.app.call_from_thread(self.notify, describe(exc), severity="warning")
            return
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._panel_loaded, (hit.collection, hit.relpath), content)

    @while_running
    def _panel_loaded(self, note: tuple[str, str], content: PanelContent) -> None:
        if note != self.link_note or not self.links_shown:
            return  # another note is in the reader now (its own load is on its way), or the panel was hidden
        self.links_panel.show(replace(content, trail=self.reading_history.trail()))
        self._show_trail()


def panel_content(kb: KnowledgeBase, hit: Hit, trail: str) -> PanelContent:
    """What the links panel lists for ``hit``'s note (read from the index and the note's file:
    run off the UI thread). Raises PmsError when the note cannot be read."""
    name = f"{hit.collection}/{hit.relpath}"
    links = kb.graph.links(name)
    backlinks = kb.graph.backlinks(name)
    mentions = kb.graph.mentions(name, limit=20)
    related, why = [], ""
    if kb.model.mismatch:
        why = "related notes need `pms-tui reindex`"
    else:
        related = kb.graph.related(name, k=10)
        if not related:
            why = "no vectors yet for this note (sync embeds them)"
    try:
        body, offset = _note_text(hit, kb)
        outline = [(h.text, h.level, h.start + offset + 1) for h in headings(body)]
    except (OSError, PmsError):
        outline = []
    linked = {r.target_path for r in links if r.resolved}
    return PanelContent(
        title=hit.title,
        trail=trail,
        outline=outline,
        links=[(_shown(link), PanelEntry(link.collection, link.target_path or "", link.target_line or 1)
                if link.resolved else None, link.status) for link in links],
        backlinks=[(b.source_title or b.source, b.text.strip(), PanelEntry(b.collection, b.source, b.line))
                   for b in backlinks],
        mentions=[(m.title, m.text, PanelEntry(m.collection, m.path, m.line)) for m in mentions],
        related=[(r.title, r.score, ("↔ " if r.links_here else "→ ") if r.path in linked else
                  ("← " if r.links_here else "  "), PanelEntry(r.collection, r.path, r.line))
                 for r in related],
        related_note=why,
    )


def _shown(link: Link) -> str:
    """Where a link leads, as the panel lists it: the note's title (what was written, when it
    leads nowhere) and the heading or block, if any."""
    if link.resolved:
        text = link.target_title or (link.target_path or "").rsplit("/", 1)[-1].removesuffix(".md")
    else:
        text = link.target or link.source_title
    if link.anchor:
        text += f" › {link.anchor}"
    return ("⧉ " if link.embed else "") + text


def _note_text(hit: Hit, kb: KnowledgeBase) -> tuple[str, int]:
    """The note's body (frontmatter left out) and the file line before its first line, read as
    the engine reads a note (only from inside its collection's folder); a PDF's or Word file's
    text from the index (its outline is its pages)."""
    text = kb.notes.note_text(kb.notes.note(f"{hit.collection}/{hit.relpath}"))
    if is_document_name(hit.relpath):
        return text, 0
    _, body, offset = split_frontmatter(text)
    return body, offset
