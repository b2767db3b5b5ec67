"""Sync: bring the index in step with the folders, doing only the work that changed.

The plan (``plan.py``) says which notes are new, modified, touched or deleted. Changed notes
are chunked and written, text first: the documents, their chunks and their full-text rows go in
one transaction per group of notes (at most ``GROUP_NOTES`` notes, ``GROUP_CHARS`` of chunk
text, or ``GROUP_SECONDS`` from the group's first note), so every note is searchable by its
words within a fraction of a second and a crash, kill or cancel between groups leaves a
consistent index that the next sync completes. A transaction per note cost twice the text
phase of 38ea43d's sync (every commit also flushes FTS5's pending terms as a new segment).
Chunk texts never embedded before are queued (``vectors.pending_text``) rather than
embedded here; ``embed_queue.drain`` fills their vectors in behind. Vectors are keyed by the
hash of their embed_text, so an edited paragraph queues one chunk and identical chunks share
one vector.
"""

from __future__ import annotations

import json
import os
import stat
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from ..config import Settings
from ..errors import SkipFile
from ..markdown import file_name_key, name_key
from ..results import SyncProgress, SyncReport, note_id
from ..store import Store
from ..store import chunks as chunk_rows
from ..store import collections as collection_rows
from ..store import documents as document_rows
from ..store import facets as facet_rows
from ..store import fts
from ..store import language
from ..store import links as link_rows
from ..store import skipped as skipped_rows
from ..store import vectors as vector_rows
from .chunk import Chunk, parse_note
from .collections import Collection
from . import documents as document_rules
from . import facets as facet_rules
from . import link_resolve
from . import links as link_rules
from . import pages as page_format
from . import navigation_pages
from .embed import embed_hash
from .notes import read_note, sha256_file, trusted_mtime
from .plan import CollectionPlan, FileState, plan_collection

# Progress is reported at most this often (seconds) within a phase; a front end that redraws
# on every note would take CPU from the model (see docs/benchmarks.md, app vs CLI).
PROGRESS_EVERY = 0.1
# A group of notes written in one transaction (see the module's docstring): bounded in count,
# in text held in memory, and in how long its first note waits to be searchable.
GROUP_NOTES = 64
GROUP_CHARS = 4_000_000
GROUP_SECONDS = 0.1
# Merge the full-text index after a sync that wrote at least this many chunks and this share
# of the index (see Indexer._compact_fts).
FTS_COMPACT_MIN_CHUNKS = 1000
FTS_COMPACT_SHARE = 0.1


@dataclass
class PreparedDoc:
    collection: Collection
    state: FileState
    sha256: str
    title: str
    frontmatter: dict
    chunks: list[Chunk]
    hashes: list[str]
    is_new: bool
    tags: list[str]
    note_date: str | None
    links: link_rules.NoteLinks | None = None
    navigation: frozenset[int] = frozenset()  # the seqs of chunks on a PDF's contents or index pages


def collect_garbage(store: Store) -> int:
    """Drop vectors no chunk uses any more (after deletes, edits and removed collections)."""
    with store.transaction() as conn:
        return vector_rows.delete_unused(conn)


class Indexer:
    """Runs the text part of one sync: plans, reads, chunks and writes, reporting progress.

    ``cancel`` (a threading.Event) is checked between documents: a cancelled sync stops
    there, keeps what it wrote, and reports ``cancelled``; the next sync does the rest.
    ``extract_links = False`` leaves the link graph out (the benchmark's side by side).
    """

    extract_links = True

    def __init__(
        self,
        store: Store,
        settings: Settings,
        progress: SyncProgress | None = None,
        cancel: threading.Event | None = None,
        retry_skipped: bool = False,
    ):
        self.store = store
        self.retry_skipped = retry_skipped
        self.settings = settings
        self.progress = progress or (lambda done, total, phase: None)
        self.cancel = cancel
        self.report = SyncReport()
        self.done = 0
        self.total = 0
        self._phase = ""
        self._last_progress = 0.0
        self._ocr: str | None = None

    @property
    def conn(self):
        """The store's connection for this moment: the writer inside a transaction (where the
        transaction's reads must see its writes), this thread's reader outside."""
        return self.store.conn

    def _cancelled(self) -> bool:
        if self.cancel is not None and self.cancel.is_set():
            self.report.cancelled = True
        return self.report.cancelled

    def run(self, collections: list[Collection], only_paths: set[str] | None = None) -> SyncReport:
        started = time.perf_counter()
        self.progress(0, 0, "scanning")
        plans = []
        seen = 0
        follow = bool(getattr(self.settings, "follow_external_links", False))
        for collection in collections:
            plans.append(plan_collection(self.conn, collection, only_paths, follow,
                                         self.settings.max_note_bytes, self.retry_skipped))
            plan = plans[-1]
            seen += plan.unchanged + len(plan.new) + len(plan.modified) + len(plan.touched)
            self.progress(seen, 0, "scanning")
        for plan in plans:
            if plan.problem:
                self.report.problems.append(plan.problem)
            self.report.unchanged += plan.unchanged
            self.report.skipped_before += len(plan.skipped)
            self._record_link_skips(plan)
        self.total = sum(len(p.new) + len(p.modified) + len(p.deleted) for p in plans)
        for plan in plans:
            self._apply_touched(plan)
            self._delete(plan)
        if any(p.new or p.modified for p in plans):
            self._phase, self._last_progress = "reading", 0.0  # the first note is always told
            self.progress(self.done, self.total, "reading")
        group: list[PreparedDoc] = []
        group_chars, group_started = 0, 0.0
        for plan in plans:
            for state, is_new in [(s, True) for s in plan.new] + [(s, False) for s in plan.modified]:
                if self._cancelled():
                    break
                doc = self._prepare(plan.collection, state, is_new)
                if doc is None:
                    continue
                if not group:
                    group_started = time.monotonic()
                group.append(doc)
                self._tick("reading")  # read: a cancel now stops before the next note, this group written
                group_chars += sum(len(c.text) for c in doc.chunks)
                if (len(group) >= GROUP_NOTES or group_chars >= GROUP_CHARS
                        or time.monotonic() - group_started >= GROUP_SECONDS):
                    self._write(group)
                    group, group_chars = [], 0
        if group:
            self._write(group)
        if self.extract_links:
            self._link_notes(plans, only_paths)
        # every sync: an edit, a delete, a removed collection or a killed run may have left
        # vectors no chunk uses (one indexed query over the vectors table)
        collect_garbage(self.store)
        self._compact_fts()
        if not self.report.cancelled:
            now = time.time()
            with self.store.transaction() as conn:
                for plan in plans:
                    if not plan.problem:
                        collection_rows.set_last_sync(conn, plan.collection.id, now)
        self.report.seconds = time.perf_counter() - started
        return self.report

    def _tick(self, phase: str) -> None:
        self.done += 1
        now = time.monotonic()
        if phase != self._phase or now - self._last_progress >= PROGRESS_EVERY or self.done == self.total:
            self._phase, self._last_progress = phase, now
            self.progress(self.done, self.total, phase)

    def _record_link_skips(self, plan: CollectionPlan) -> None:
        """Report links not followed (once), and forget skips of files gone or indexed."""
        cid = plan.collection.id
        for rel, why in plan.link_skips:
            self.report.skipped.append((note_id(plan.collection.name, rel), why))
        if plan.link_skips or plan.stale_skips:
            with self.store.transaction() as conn:
                skipped_rows.record(conn, cid, [skipped_rows.SkippedFile(rel, -1, -1, why)
                                                for rel, why in plan.link_skips])
                skipped_rows.forget(conn, cid, plan.stale_skips)

    def _skip(self, collection: Collection, state: FileState, reason: str, passing: bool = False) -> None:
        """A file that cannot be indexed: reported now, remembered so ``status`` counts it as
        skipped (not new) until it changes or, for a cause that can pass, until its next try."""
        with self.store.transaction() as conn:
            skip = skipped_rows.failed(conn, collection.id, state.rel, state.size, state.mtime_ns, reason, passing)
        self.report.skipped.append((note_id(collection.name, state.rel), skip.told(time.time())))
        self._tick("reading")

    def _apply_touched(self, plan: CollectionPlan) -> None:
        if not plan.touched:
            return
        with self.store.transaction() as conn:
            stats = [(s.size, trusted_mtime(s.mtime_ns), doc_id) for s, doc_id in plan.touched]
            document_rows.update_stats(conn, stats)
        self.report.unchanged += len(plan.touched)

    def _delete(self, plan: CollectionPlan) -> None:
        for rel, doc_id in plan.deleted:
            if self._cancelled():
                return
            with self.store.transaction() as conn:
                document_rows.delete(conn, doc_id)
            self.report.deleted.append(note_id(plan.collection.name, rel))
            self._tick("deleting")

    def _prepare(self, collection: Collection, state: FileState, is_new: bool) -> PreparedDoc | None:
        if document_rules.is_document_name(state.rel):
            return self._prepare_document(collection, state, is_new)
        path = collection.path / state.rel
        try:
            settings = self.settings
            note_data = read_note(path, settings.max_note_bytes)
            note = parse_note(note_data.text, Path(state.rel).name, settings.chunk_target, settings.chunk_overlap)
        except SkipFile as exc:
            self._skip(collection, state, str(exc), exc.passing)
            return None
        except Exception as exc:  # a parser bug must not stop the sync
            self._skip(collection, state, f"could not be parsed ({type(exc).__name__}: {exc})")
            return None
        # the stat of exactly the bytes read (taken before reading; -1 when the file changed
        # while it was read, or too recently to trust): an edit during sync is seen next time
        state = FileState(state.rel, note_data.size, note_data.mtime_ns)
        hashes = [embed_hash(c.embed_text) for c in note.chunks]
        day = facet_rules.note_date(note.metadata)
        # the tags of the note's body as the chunker scanned it (a long note is scanned once)
        tags = facet_rules.note_tags(note.metadata, note.body, note.structure)
        return PreparedDoc(collection, state, note_data.sha256, note.title, note.metadata, note.chunks, hashes,
                           is_new, tags, day.isoformat() if day else None,
                           self._links_of(collection, state.rel, note.body, note.body_offset, note.metadata,
                                         note.structure))

    def _prepare_document(self, collection: Collection, state: FileState, is_new: bool) -> PreparedDoc | None:
        """A PDF or Word file: its text read in a child process within the limits per document
        (documents.py), chunked as Markdown with its pages as headings. Nothing is written
        beside it; its text lives in its chunks."""
        path = collection.path / state.rel
        name = note_id(collection.name, state.rel)
        try:
            before = os.stat(path)
            if not stat.S_ISREG(before.st_mode):  # (a FIFO put in its place must not hang the hashing)
                raise SkipFile("not a regular file")
            sha256 = sha256_file(path)
            extracted = document_rules.extract(path, self.settings.max_note_bytes, self.cancel,
                                               ocr_languages=self._ocr_languages())
            note = document_rules.parse_document(extracted, Path(state.rel).name, self.settings.chunk_target,
                                                 self.settings.chunk_overlap)
            after = os.stat(path)
        except SkipFile as exc:
            if self._cancelled():  # (the reader stopped by the cancel: no skip, the next sync reads it)
                return None
            self._skip(collection, state, str(exc), exc.passing)
            return None
        except OSError as exc:
            self._skip(collection, state, f"unreadable ({exc.strerror or exc})", passing=True)
            return None
        except Exception as exc:  # a parser bug must not stop the sync
            self._skip(collection, state, f"could not be parsed ({type(exc).__name__}: {exc})")
            return None
        changed = (before.st_size, before.st_mtime_ns) != (after.st_size, after.st_mtime_ns)
        state = FileState(state.rel, before.st_size, -1 if changed else trusted_mtime(before.st_mtime_ns))
        if extracted.truncated:
            left = (f"{extracted.truncated:,} pages" if extracted.pages else f"{extracted.truncated:,} characters")
            self.report.skipped.append((name, f"only its first {self.settings.max_note_mb} MB of text is indexed "
                                        f"({left} left out; max_note_mb in config.toml)"))
        if extracted.unread:
            self.report.skipped.append((name, extracted.unread))
        self.report.documents.append(
            f"{name} ({extracted.pages} page{'s' if extracted.pages != 1 else ''})" if extracted.pages else name)
        links = None
        if self.extract_links and note.structure is not None:
            links = link_rules.NoteLinks()
            for h in note.structure.headings[:link_rules.MAX_ANCHORS]:
                line = h.start + note.body_offset + 1
                links.anchors.append(link_rules.Anchor("heading", link_rules.anchor_key(h.text), line, h.text))
                page = page_format.anchor(h.text)
                if page:
                    links.anchors.append(link_rules.Anchor("heading", page, line, h.text))
        hashes = [embed_hash(c.embed_text) for c in note.chunks]
        navigation = frozenset(navigation_pages.seqs(note.body, note.chunks)) if extracted.pages else frozenset()
        return PreparedDoc(collection, state, sha256, note.title, {}, note.chunks, hashes, is_new, [], None, links,
                           navigation)

    def _ocr_languages(self) -> str:
        """What OCR reads scanned pages and images in: ``ocr_languages``, else English and the
        languages of the notes the index holds (once per sync)."""
        if self._ocr is None:
            from . import ocr

            self._ocr = ocr.languages_for(self.settings.ocr_languages, language.present(self.conn))
        return self._ocr

    def _links_of(self, collection: Collection, rel: str, body: str, offset: int, meta: dict, structure=None):
        if not self.extract_links:
            return None
        try:
            found = link_rules.extract(body, offset, meta, structure)
        except Exception as exc:  # a parser bug must not stop the sync: the note is indexed without links
            self.report.skipped.append((note_id(collection.name, rel), f"links not read ({type(exc).__name__})"))
            return None
        if found.dropped:
            self.report.skipped.append((note_id(collection.name, rel), f"only its first {link_rules.MAX_LINKS:,} "
                                        f"links are in the link graph ({found.dropped:,} more left out)"))
        return found

    def _link_notes(self, plans: list[CollectionPlan], only_paths: set[str] | None) -> None:
        """Read the links of notes indexed before the link graph existed (once), then resolve
        every pending link: a note written, renamed or deleted in this sync (or a run killed
        before this point) left the links it concerns pending."""
        if only_paths is None and not self._cancelled() and link_resolve.backfill_pending(self.store):
            for plan in plans:
                for doc_id, rel in link_rows.documents_without_links(self.conn, plan.collection.id):
                    if self._cancelled():
                        break
                    try:
                        data = read_note(plan.collection.path / rel)
                        note = parse_note(data.text, Path(rel).name, self.settings.chunk_target, 0)
                    except Exception:  # noqa: BLE001 - unreadable now: the next sync sees it changed
                        continue
                    found = self._links_of(plan.collection, rel, note.body, note.body_offset, note.metadata,
                                           note.structure)
                    if found is not None:
                        with self.store.transaction() as conn:
                            self._write_links(conn, doc_id, plan.collection.id, rel, found)
            if not self.report.cancelled:
                link_resolve.backfill_done(self.store)
        link_resolve.resolve_pending(self.store, [p.collection.id for p in plans])

    @staticmethod
    def _write_links(conn, doc_id: int, collection_id: int, rel: str, found: link_rules.NoteLinks) -> None:
        names = {name_key(alias): "alias" for alias in found.aliases}
        names[file_name_key(rel)] = "file"
        link_rows.write(
            conn, doc_id, collection_id, names,
            (link_rows.NewLink(link.line, link.embed, link.syntax, link.target, link.anchor, link.label,
                               file_name_key(link.target)) for link in found.links),
            ((a.key, a.kind, a.line, a.text) for a in found.anchors),
        )

    def _write(self, docs: list[PreparedDoc]) -> None:
        """Notes in one transaction: their rows, their chunks, and their new texts queued."""
        queued = []
        with self.store.transaction() as conn:
            for doc in docs:
                wanted: dict[str, str] = {}
                for chunk, h in zip(doc.chunks, doc.hashes):
                    wanted.setdefault(h, chunk.embed_text)
                known = vector_rows.lookup(conn, list(wanted))
                missing = {h: text for h, text in wanted.items() if h not in known}
                if missing:
                    known.update(vector_rows.enqueue(conn, missing))
                self._write_document(doc, known)
                skipped_rows.forget(conn, doc.collection.id, [doc.state.rel])
                queued.append(len(missing))
        for doc, queued_texts in zip(docs, queued):
            self.report.chunks_queued += queued_texts
            self.report.chunks_reused += len(doc.chunks) - queued_texts
            added = self.report.added if doc.is_new else self.report.modified
            added.append(note_id(doc.collection.name, doc.state.rel))
            self.report.chunks_written += len(doc.chunks)

    def _write_document(self, doc: PreparedDoc, vector_ids: dict[str, int]) -> None:
        """One note's row and chunks; runs inside the caller's transaction."""
        lang = language.note_language(doc.frontmatter, (c.text for c in doc.chunks))
        values = document_rows.DocumentValues(
            doc.title, doc.sha256, doc.state.size, doc.state.mtime_ns,
            json.dumps(doc.frontmatter, ensure_ascii=False, default=str), time.time(), lang,
            *document_rules.made_by(doc.state.rel),
        )
        doc_id = document_rows.upsert(self.conn, doc.collection.id, doc.state.rel, values)
        chunk_rows.insert(self.conn, doc_id, (
            chunk_rows.NewChunk(c.seq, c.start_line, c.end_line, doc.title, " > ".join(c.heading_path),
                                c.text, vector_ids[h])
            for c, h in zip(doc.chunks, doc.hashes)
        ), lang)
        chunk_rows.mark_navigation(self.conn, doc_id, doc.navigation)
        facet_rows.write(self.conn, doc_id, doc.tags, doc.note_date)
        if doc.links is not None:
            self._write_links(self.conn, doc_id, doc.collection.id, doc.state.rel, doc.links)

    def _compact_fts(self) -> None:
        """After a large sync, merge the full-text index into one segment.

        Every flush adds FTS5 segments; automerge keeps a few dozen, and each query then seeks
        every query word in each of them (about a third of a short query's time at 100,000
        chunks). Merging rewrites the whole index, so it is done only when the sync
        wrote a good share of the index; the WAL it grows is checkpointed away.
        """
        written = self.report.chunks_written
        if written < FTS_COMPACT_MIN_CHUNKS:
            return
        if written < FTS_COMPACT_SHARE * chunk_rows.count(self.conn):
            return
        with self.store.transaction() as conn:
            fts.optimize(conn)
        fts.checkpoint(self.conn)
