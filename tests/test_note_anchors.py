"""A wikilink to a heading names that heading's section, to a block its line, in every front
end (the notes' one policy); a heading or block the note lacks is one sentence, never the
whole note."""

from __future__ import annotations

import pytest

from tests.kb_helpers import text_only_kb, write
from tests.test_cli import run

from pms_tui.core.errors import UsageError

NOTE = ("# Trip\n\nIntro line.\n\n## Packing\n\nSocks and a hat.\n\n### Shoes\n\nBoots.\n\n"
        "## Route\n\nNorth along the river. ^river\n")


@pytest.fixture()
def kb(tmp_path):
    folder = tmp_path / "notes"
    write(folder, "trip.md", NOTE)
    kb = text_only_kb(tmp_path / "home", folder)
    yield kb
    kb.close()


def test_a_heading_link_names_its_section_with_the_headings_below_it(kb):
    note = kb.notes.note("[[trip#Packing]]")
    lines = NOTE.split("\n")
    assert lines[note.start_line - 1] == "## Packing"
    assert note.end_line == lines.index("## Route")  # the line before the next heading of its level
    assert "## Route" not in "\n".join(lines[note.start_line - 1:note.end_line])
    text = kb.notes.read("[[trip#Packing]]").text
    assert text.startswith("## Packing") and "Boots." in text and "Route" not in text
    last = kb.notes.read("[[trip#Route]]").text
    assert last.startswith("## Route") and "North along the river" in last
    block = kb.notes.note("[[trip#^river]]")
    assert block.start_line == block.end_line and "^river" in lines[block.start_line - 1]


def test_a_heading_or_block_the_note_lacks_is_refused_everywhere(kb):
    for ref in ("[[trip#No such heading]]", "[[trip#^nosuchblock]]"):
        with pytest.raises(UsageError, match="has no (heading|block)"):
            kb.notes.note(ref)
        shown = run(kb.home, "show", ref, check=False)
        assert shown.returncode != 0 and "has no" in shown.stderr and not shown.stdout
