"""Which collections a request means: collection names to ids, the collections covered when
none is named (all of them, or all but the bundled guide once it steps aside), the ones a
search leaves out of its lanes, and the names a message lists. The one owner of when the guide
steps aside (``indexing.guide``'s rule, asked of this index's collections), handed to retrieval
and to whoever else needs it (related notes, recent notes, the guide's notice)."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from pathlib import Path

from ..config import load_state, save_state
from ..errors import CollectionError
from ..indexing import guide as guide_rules
from ..indexing.collections import Collection, Collections


class Scope:
    """``collections``: the index's collections; ``home``: where the one-time notice is
    remembered (state.json); ``read_only``: True when the index cannot be written (then the
    notice is not given, so it is not lost before it can be remembered)."""

    def __init__(self, collections: Collections, home: Path, read_only: bool = False) -> None:
        self._collections = collections
        self._home = home
        self._read_only = read_only

    def ids(self, names: Sequence[str] | None = None) -> builtins.list[int] | None:
        """Ids of the named collections (CollectionError for a name of none), or None (no
        filter) when no names are given."""
        return self._collections.ids(names)

    def names(self) -> builtins.list[str]:
        """Every collection's name, in the index's order."""
        return [c.name for c in self._collections.list()]

    def by_name(self) -> dict[str, int]:
        """Collection name -> id."""
        return {c.name: c.id for c in self._collections.list()}

    # -- the bundled guide ---------------------------------------------------------------
    def guide(self) -> Collection | None:
        """The collection of the bundled guide (known by its folder), when the index has it."""
        return next((c for c in self._collections.list() if guide_rules.is_guide_path(c.path)), None)

    def guide_aside(self) -> Collection | None:
        """The guide's collection when it steps aside (the user has a collection of their own):
        then a search, ``recent`` and related notes leave it out unless asked for it
        (``in:guide``, or its collection chosen); else None."""
        return guide_rules.stepped_aside(self._collections.list())

    def default_ids(self) -> builtins.list[int] | None:
        """The collections a search covers when neither the caller nor the query chooses:
        all (None), or all but the guide once it steps aside."""
        collections = self._collections.list()
        aside = guide_rules.stepped_aside(collections)
        return None if aside is None else [c.id for c in collections if c.id != aside.id]

    def hidden_ids(self) -> builtins.list[int]:
        """The collections a search drops from its lanes when none is chosen: the guide's, once
        it steps aside."""
        aside = self.guide_aside()
        return [aside.id] if aside is not None else []

    def hidden_names(self, beside: Collection) -> set[str]:
        """The collections left out of what is shown beside a note of ``beside`` (related
        notes): the guide's once it steps aside, unless the note is the guide's own."""
        aside = self.guide_aside()
        return {aside.name} if aside is not None and aside.id != beside.id else set()

    def add_guide(self) -> Collection:
        """Add the bundled guide as the collection ``guide`` (the app does on its first run);
        CollectionError when the installation lacks it or the name is taken."""
        folder = guide_rules.guide_dir()
        if folder is None:
            raise CollectionError("The bundled guide is missing from this installation.")
        return self._collections.create(folder, name=guide_rules.GUIDE_NAME,
                                        description=guide_rules.GUIDE_DESCRIPTION)

    def guide_notice(self) -> str | None:
        """The one sentence saying that the guide stepped aside, the first time it has (then
        remembered in the home's state.json, for every front end); None otherwise."""
        guide = self.guide_aside()
        if guide is None or self._read_only or load_state(self._home).get(guide_rules.TOLD_STATE):
            return None
        try:
            save_state(self._home, **{guide_rules.TOLD_STATE: True})
        except OSError:
            return None  # told next time instead
        return guide_rules.aside_notice(guide.name)
