"""What one write did, as every front end shows it (``to_json``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..results import note_id, note_uri


@dataclass
class WriteResult:
    """What one write did: the note (its id, path), the versions before and after (None where
    there was no file), the journal entry (``undo`` takes it), a sentence."""

    action: str
    collection: str
    path: str
    version: str | None
    before: str | None
    journal: int
    message: str
    links_rewritten: list[str] = field(default_factory=list)
    not_rewritten: list[str] = field(default_factory=list)
    indexed: bool = True  # False: another process held the index (the message says when it will be)

    @property
    def id(self) -> str:
        return note_id(self.collection, self.path)

    def to_json(self) -> dict:
        data: dict = {"action": self.action, "id": self.id, "uri": note_uri(self.collection, self.path),
                "collection": self.collection, "path": self.path,
                "version": self.version, "previous_version": self.before, "journal_id": self.journal,
                "message": self.message, "indexed": self.indexed}
        if self.links_rewritten or self.not_rewritten:
            data["links_rewritten_in"] = self.links_rewritten
            data["links_not_rewritten_in"] = self.not_rewritten
        return data
