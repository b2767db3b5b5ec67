"""The screen's link walker: following links from the reader, back and forward, the links
panel's content (outline, links, backlinks, unlinked mentions, related notes) and how links
look in the reader (live ones as links, dangling ones struck through, embeds with their
passage: it is the reader's :class:`~pms_tui.tui.widgets.obsidian.ReaderLinks`).

It owns the way taken, the links of the note in the reader and the panel's loading worker;
the screen hands it what the reader shows and reacts to what it posts: a note to open
(``LinkWalker.NoteOpened``), the way taken (``TrailChanged``), the panel's content
(``PanelLoaded``).
"""

from __future__ import annotations

import time
from dataclasses import replace
from urllib.parse import quote, unquote, urlsplit

from textual import work
from textual.message import Message
from textual.worker import Worker, WorkerState

from pms_tui.core.errors import PmsError, describe
from pms_tui.core.kb import KnowledgeBase, is_document_name, split_frontmatter
from pms_tui.core.markdown import headings
from pms_tui.core.results import Hit, Link, note_id
from pms_tui.core.safe_text import one_line

from ..reading_history import Place, ReadingHistory
from ..widgets.links_panel import PanelContent, PanelEntry
from . import Part, while_running

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


class LinkWalker(Part):
    """Follows links and keeps the way taken; gathers the links panel's content for the note
    in the reader."""

    class NoteOpened(Message):
        """A link (or the panel, or back / forward) leads to ``hit``'s note at ``line``: the
        reader shows it whole there."""

        def __init__(self, hit: Hit, line: int) -> None:
            super().__init__()
            self.hit = hit
            self.line = line

    class TrailChanged(Message):
        """The way taken, and the note it stands at (its title; "" for none)."""

        def __init__(self, trail: str, can_go_back: bool, can_go_forward: bool, title: str) -> None:
            super().__init__()
            self.trail = trail
            self.can_go_back = can_go_back
            self.can_go_forward = can_go_forward
            self.title = title

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, LinkWalker.TrailChanged)

    class PanelLoaded(Message):
        """What the links panel lists for the note in the reader."""

        def __init__(self, content: PanelContent) -> None:
            super().__init__()
            self.content = content

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, LinkWalker.PanelLoaded)

    def __init__(self, kb, keymap=None, **kwargs) -> None:
        super().__init__(kb, keymap, **kwargs)
        self.reading_history = ReadingHistory()
        self.links_by_line: dict[int, list[Link]] = {}  # of the note in the reader
        self.link_note: tuple[str, str] | None = None  # (collection, relpath) of the note in the reader
        self.link_title = ""  # its title
        self._links_of: tuple[str, str, float | None] | None = None  # the note and version its links were read for
        self.panel_shown = False  # the links panel is shown: it follows the reader's note
        self._followed = False  # the reader shows a note reached by a link, not the results' hit
        self.follow_latencies_ms: list[float] = []  # link chosen -> target shown (the app's benchmark)
        self._follow_started = 0.0
        self._results_key: tuple[int | None, str | None] | None = None  # the results' last highlighted passage, query

    def __hash__(self) -> int:  # the reader's parser is made once per ReaderLinks (note_parser's cache)
        return id(self)

    # -- the reader's links (widgets.obsidian.ReaderLinks) ----------------------------------------
    def note_shown(self, hit: Hit | None, text: str = "", first_line: int = 1) -> str:
        """The reader is about to render ``text`` of ``hit``'s note: its links are loaded, the
        panel follows."""
        if hit is None or self.kb is None:
            self.links_by_line, self.link_note, self._links_of = {}, None, None
            return text
        note = (hit.collection, hit.relpath)
        if (*note, hit.modified) != self._links_of:  # another note, or this one synced since
            self.link_note, self._links_of = note, (*note, hit.modified)
            try:
                links = self.kb.graph.links(hit.id)
            except PmsError:
                links = []
            self.links_by_line = {}
            for link in links:
                self.links_by_line.setdefault(link.line, []).append(link)
            self.link_title = hit.title
            if self.panel_shown:
                self.fill_panel(hit)
        self._trail_changed()
        return text

    def links(self) -> list[Link]:
        return [link for found in self.links_by_line.values() for link in found]

    def href(self, link: Link) -> str:
        """What the reader's rendered ``link`` sends when clicked: the place it leads to, or
        (a link that leads nowhere: dangling, ambiguous, outside, a file) the sentence why."""
        if link.resolved:
            return LINK_SCHEME + quote(f"{note_id(link.collection, link.target_path or '')}:{link.target_line or 1}", safe="")
        return NOWHERE_SCHEME + quote(refusal(link), safe="")

    def passage(self, link: Link) -> str:
        try:
            return one_line(self.kb.graph.passage(link, 300)) if self.kb is not None else ""
        except PmsError:  # (its collection just removed): the embed shows without its passage
            return ""

    def _trail_changed(self) -> None:
        history = self.reading_history
        self.post_message(self.TrailChanged(history.trail(), history.can_go_back, history.can_go_forward,
                                            self.link_title if self.link_note is not None else ""))

    def note_painted(self, painted_at: float | None) -> None:
        """The reader showed what ``open`` asked for (at ``painted_at``, a ``time.perf_counter()``)."""
        if self._follow_started:
            self.follow_latencies_ms.append(((painted_at or time.perf_counter()) - self._follow_started) * 1000)
            self._follow_started = 0.0

    def result_highlighted(self, hit: Hit | None, query: str | None, shown: Hit | None) -> bool:
        """The results' highlighted ``hit`` (the reader shows ``shown``): True when the reader
        should show it, False when the results were only refreshed (the same query, the same
        passage highlighted: a sync's or an edit's new rows) and the reader shows that passage
        already or a note reached by following a link (the walk stays)."""
        key = (hit.chunk_id if hit else None, query)
        refreshed, self._results_key = key == self._results_key, key
        if refreshed and hit is not None and shown is not None and (shown.chunk_id == hit.chunk_id or self._followed):
            return False
        self._followed = False
        return True

    # -- following ---------------------------------------------------------------------------------
    def follow(self, href: str, shown: Hit | None) -> bool:
        """A link clicked in the reader (which shows ``shown``): followed, or refused with one
        sentence. True when it was handled (every link is)."""
        if href.startswith(LINK_SCHEME):
            ref = unquote(href[len(LINK_SCHEME):])
            note, _, line = ref.rpartition(":")
            collection, _, path = note.partition("/")
            self.open(PanelEntry(collection, path, int(line) if line.isdigit() else 1), shown)
        elif href.startswith(NOWHERE_SCHEME):
            self._refuse(unquote(href[len(NOWHERE_SCHEME):]))
        elif href.startswith("#"):
            self._follow_within(href[1:], shown)
        else:
            self._follow_markdown_link(href, shown)
        return True

    def _refuse(self, sentence: str) -> None:
        self.notify(one_line(sentence)[:300], severity="warning", timeout=4, markup=False)

    def _follow_within(self, fragment: str, shown: Hit | None) -> None:
        """``[x](#a-heading)``: a place in the note shown."""
        line = None
        if self.link_note is not None and self.kb is not None:
            try:
                line = self.kb.graph.anchor_line(note_id(*self.link_note), fragment)
            except PmsError:
                line = None
        if line is None:
            self._refuse(f"This note has no heading or block named {unquote(fragment)}.")
            return
        self.open(PanelEntry("", "", line), shown)

    def _follow_markdown_link(self, href: str, shown: Hit | None) -> None:
        """A Markdown link of the note (``[text](other%20note.md#part)``), as the index resolved
        it; a web link or a link to another kind of file is refused with a sentence."""
        if urlsplit(href).scheme or href.startswith("//"):  # the web, mail, another app
            self.app.copy_to_clipboard(href)
            self._refuse(f"{one_line(href)[:200]} opens outside pms-tui: its address is copied to the clipboard.")
            return
        link = self.kb.graph.link_of_href(href, self.links()) if self.kb is not None else None
        if link is None:
            self._refuse(f"{unquote(href)} is not a note of this collection.")
        elif link.resolved:
            self.open(PanelEntry(link.collection, link.target_path or "", link.target_line or 1), shown)
        else:
            self._refuse(refusal(link))

    def open(self, entry: PanelEntry, shown: Hit | None, record: bool = True) -> None:
        """Open ``entry``'s note, whole, at its line (an entry with no path: a line of the note
        shown now, from the outline); ``shown``: what the reader shows now."""
        self._follow_started = time.perf_counter()
        if not entry.path and self.link_note is not None:
            entry = PanelEntry(self.link_note[0], self.link_note[1], entry.line)
        if self.kb is None:
            return
        try:
            note = self.kb.notes.note(note_id(entry.collection, entry.path))  # the engine's one resolver
            chunks = self.kb.chunks_of(note.collection, note.relpath)
        except PmsError as exc:
            self.notify(describe(exc), severity="warning")
            return
        if not chunks:
            self.notify(f"{note_id(entry.collection, entry.path)} is not indexed; sync first.", severity="warning")
            return
        hit = next((c for c in chunks if c.start_line <= entry.line <= c.end_line), chunks[0])
        if record:
            here = self.reading_history.current
            left = self.link_note  # the note in the reader before this one
            if left is not None and (here is None or (here.collection, here.path) != left):
                # the way starts at the note read when the first link was followed (a search
                # result, say): back returns there, and results merely looked at are not steps
                start = shown.start_line if shown is not None else 1
                self.reading_history.visit(Place(left[0], left[1], start, self.link_title))
            self.reading_history.visit(Place(entry.collection, entry.path, entry.line, hit.title))
        self._followed = True
        self.post_message(self.NoteOpened(hit, entry.line))

    def back(self, shown: Hit | None) -> None:
        place = self.reading_history.back()
        if place is None:
            self.notify("Nothing to go back to.", timeout=2)
            return
        self.open(PanelEntry(place.collection, place.path, place.line), shown, record=False)

    def forward(self, shown: Hit | None) -> None:
        place = self.reading_history.forward()
        if place is None:
            self.notify("Nothing to go forward to.", timeout=2)
            return
        self.open(PanelEntry(place.collection, place.path, place.line), shown, record=False)

    # -- the panel ---------------------------------------------------------------------------------
    def show_panel(self, shown: bool, hit: Hit | None) -> None:
        """The links panel was shown (for the reader's ``hit``) or hidden."""
        self.panel_shown = shown
        if shown:
            self.fill_panel(hit)

    def fill_panel(self, hit: Hit | None) -> None:
        """The panel's content for ``hit``'s note: its links, backlinks, mentions and related
        notes are read in an exclusive thread worker (a newer note cancels the older load),
        and posted only if the reader still shows that note when they arrive."""
        if hit is None or self.kb is None:
            self.post_message(self.PanelLoaded(PanelContent("", self.reading_history.trail(), [], [], [], [], [])))
            return
        self.load_links_panel(self.kb, hit, self.reading_history.trail())

    @work(thread=True, exclusive=True, group=PANEL_GROUP, exit_on_error=False)
    def load_links_panel(self, kb: KnowledgeBase, hit: Hit, trail: str) -> tuple[tuple[str, str], PanelContent]:
        return (hit.collection, hit.relpath), panel_content(kb, hit, trail)

    @while_running
    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != PANEL_GROUP:
            return
        if event.state == WorkerState.ERROR:
            event.stop()
            error = event.worker.error
            self.notify(describe(error) if error is not None else "The note's links cannot be read.",
                        severity="warning")
        elif event.state == WorkerState.SUCCESS and event.worker.result is not None:
            note, content = event.worker.result
            if note == self.link_note and self.panel_shown:  # else another note's load is on its way
                self.post_message(self.PanelLoaded(replace(content, trail=self.reading_history.trail())))
                self._trail_changed()


def panel_content(kb: KnowledgeBase, hit: Hit, trail: str) -> PanelContent:
    """What the links panel lists for ``hit``'s note (read from the index and the note's file:
    run off the UI thread). Raises PmsError when the note cannot be read."""
    name = hit.id
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
    text = kb.notes.note_text(kb.notes.note(hit.id))
    if is_document_name(hit.relpath):
        return text, 0
    _, body, offset = split_frontmatter(text)
    return body, offset
