"""The bundled sample collection: the user guide as Markdown notes, shipped in the package.

Which folder it is, and how it steps aside once the user has notes of their own, is the
engine's (``KnowledgeBase.scope.add_guide``, ``guide_aside``, ``guide_notice``); the app remembers
only that it offered it.
"""

from __future__ import annotations

from ..core.kb import GUIDE_NAME as SAMPLE_NAME
from ..core.kb import guide_dir as sample_dir
from ..core.kb import is_guide_path as is_sample_path

__all__ = ["OFFERED_STATE", "SAMPLE_NAME", "is_sample_path", "sample_dir"]

OFFERED_STATE = "sample_added"  # app state (state.json): a guide removed stays removed
