"""The link graph's results (``kb.graph.links``, ``kb.graph.backlinks``, ``kb.graph.mentions``, ``kb.graph.related``),
each written out by its ``to_json``: the notes it names by their id and URI (``output_rules``)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from .output_rules import note_id, note_uri

# Where a link leads: "resolved" (to ``target_path``), "dangling" (no such note), "ambiguous"
# (several notes share the name and none has the shortest path), "outside" (an absolute path
# or one climbing above the collection: never looked up), "file" (an image, PDF, ...: not a note).
LINK_STATUSES = ("resolved", "dangling", "ambiguous", "outside", "file")


@dataclass(frozen=True)
class Link:
    """One link between two notes of a collection, as written and as resolved."""

    collection: str
    source: str  # relative path of the note that links
    source_title: str
    line: int  # its 1-based line in the source note
    target: str  # as written, without the #anchor ('' = a link within the source note)
    anchor: str  # heading text or ^block id ('' = the top of the note)
    label: str  # the alias or link text
    embed: bool  # ![[...]]: shows the target's passage in place
    status: str  # one of LINK_STATUSES
    target_path: str | None = None  # relative path of the note it leads to (resolved only)
    target_title: str | None = None
    target_line: int | None = None  # the line of its heading or block (1: the top, or the anchor is gone)
    text: str = ""  # the source's line holding the link (backlinks)
    syntax: str = "wiki"  # "wiki" (``[[Note]]``) or "md" (``[text](note.md)``)

    @property
    def resolved(self) -> bool:
        return self.status == "resolved"

    def to_json(self) -> dict:
        """Its fields, with the notes at each end by id (``target_id``: None unless resolved)."""
        return {**asdict(self), "source_id": note_id(self.collection, self.source),
                "target_id": note_id(self.collection, self.target_path) if self.target_path else None}


@dataclass(frozen=True)
class Mention:
    """A note naming another's title or alias without linking it (an unlinked mention)."""

    collection: str
    path: str
    title: str
    line: int
    text: str  # the line naming it
    name: str  # the title or alias named

    def to_json(self) -> dict:
        return {"id": note_id(self.collection, self.path), "uri": note_uri(self.collection, self.path),
                **asdict(self)}


@dataclass(frozen=True)
class RelatedNote:
    """A note near another in meaning: its passages' nearest neighbours, gathered per note."""

    collection: str
    path: str
    title: str
    score: float  # the best cosine similarity between a passage of each
    linked: bool  # the note already links to it
    links_here: bool  # it already links to the note
    line: int = 1  # the start of its nearest passage

    def to_json(self) -> dict:
        return {"id": note_id(self.collection, self.path), "uri": note_uri(self.collection, self.path),
                **asdict(self), "score": round(self.score, 4)}


@dataclass(frozen=True)
class NoteGraph:
    """What the link graph says of one note (``note``: its id), as the CLI and the MCP tools
    give it: its links, its backlinks (with its unlinked mentions when asked), or its related
    notes; a list not asked for is None and left out."""

    note: str
    links: list[Link] | None = None
    backlinks: list[Link] | None = None
    mentions: list[Mention] | None = None
    related: list[RelatedNote] | None = None

    def to_json(self) -> dict:
        data: dict = {"note": self.note}
        for key in ("links", "backlinks", "mentions", "related"):
            items = getattr(self, key)
            if items is not None:
                data[key] = [item.to_json() for item in items]
        return data
