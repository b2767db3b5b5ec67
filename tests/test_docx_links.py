"""A Word file's hyperlinks keep their words within the sentence and their target as a Markdown
link (no stray space before the full stop); a bookmark link (a table of contents) or a script
URL leaves its words only."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from tests.kb_helpers import CORPORA

from pms_tui.core.indexing import documents

HYPERLINKS = CORPORA / "documents" / "python-docx-test-files" / "par-hyperlinks.docx"
W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


def write_docx_with_links(path: Path) -> None:
    """A .docx of one paragraph with an external hyperlink (a bold word inside it), a bookmark
    link and a ``javascript:`` link, each followed by punctuation."""
    def run(text: str, bold: bool = False) -> str:
        return f'<w:r>{"<w:rPr><w:b/></w:rPr>" if bold else ""}<w:t xml:space="preserve">{text}</w:t></w:r>'

    body = (f'<w:p>{run("See ")}<w:hyperlink r:id="rIdLink">{run("the ")}{run("okapi", bold=True)}{run(" page")}'
            f'</w:hyperlink>{run(", then ")}<w:hyperlink w:anchor="_Toc1">{run("chapter two")}</w:hyperlink>'
            f'{run(" and ")}<w:hyperlink r:id="rIdScript">{run("this")}</w:hyperlink>{run(".")}</w:p>')
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("[Content_Types].xml", (
            '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
            'content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
            'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName='
            '"/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.'
            'document.main+xml"/></Types>'))
        archive.writestr("_rels/.rels", (
            '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/'
            'package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/'
            'officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>'))
        archive.writestr("word/_rels/document.xml.rels", (
            '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/'
            f'package/2006/relationships"><Relationship Id="rIdLink" Type="{R}/hyperlink" '
            'Target="https://example.org/animals/okapi (striped)" TargetMode="External"/>'
            f'<Relationship Id="rIdScript" Type="{R}/hyperlink" Target="javascript:alert(1)" '
            'TargetMode="External"/></Relationships>'))
        archive.writestr("word/document.xml", (
            f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="{W}" xmlns:r="{R}">'
            f'<w:body>{body}</w:body></w:document>'))


def test_a_hyperlink_keeps_its_words_and_target_without_stray_spaces(tmp_path):
    doc = tmp_path / "links.docx"
    write_docx_with_links(doc)
    text = documents.extract(doc, 1_000_000).markdown
    assert text.strip() == ("See [the okapi page](https://example.org/animals/okapi%20%28striped%29), "
                            "then chapter two and this."), text


@pytest.mark.skipif(not HYPERLINKS.is_file(), reason="../shared/corpora/documents is absent")
def test_the_hyperlinks_of_a_real_word_file_read_as_markdown_links():
    text = documents.extract(HYPERLINKS, 1_000_000).markdown
    assert "One [awesome hyperlink](http://yahoo.com/)." in text, text
    assert ("Three hyperlinks: [the first one](http://google.com/) here, the [second one](http://python.org/), "
            "and the [third](http://yahoo.com/).") in text, text
    assert " ." not in text and " ," not in text


def test_a_linked_word_file_is_found_by_the_link_s_words(kb, tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    write_docx_with_links(folder / "links.docx")
    kb.collections.create(folder, name="notes")
    kb.sync(embed=False)
    hits = kb.search('"okapi page"', k=3, mode="bm25")
    assert [h.relpath for h in hits] == ["links.docx"]
    assert "[the okapi page](" in hits[0].text
