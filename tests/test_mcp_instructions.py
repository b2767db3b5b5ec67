"""The MCP server's instructions say what the app says: the bundled guide steps aside once the
user has notes of their own, and how to reach it then."""

from __future__ import annotations

from pms_tui.core.kb import KnowledgeBase
from pms_tui.mcp_server import instructions


def test_the_guide_is_said_to_step_aside_once_the_user_has_notes(tmp_path):
    kb = KnowledgeBase(home=tmp_path / "home")
    try:
        kb.scope.add_guide()
        alone = instructions.write(kb, allow_writes=False)
        assert "- guide (" in alone and "Left out of searches" not in alone
        notes = tmp_path / "notes"
        notes.mkdir()
        (notes / "a.md").write_text("# A\n\nsome words\n", encoding="utf-8")
        kb.collections.create(notes, name="mine")
        beside = instructions.write(kb, allow_writes=False)
        guide_line = next(line for line in beside.splitlines() if line.startswith("- guide ("))
        assert "Left out of searches" in guide_line and "in:guide" in guide_line
        mine_line = next(line for line in beside.splitlines() if line.startswith("- mine ("))
        assert "Left out" not in mine_line
    finally:
        kb.close()
