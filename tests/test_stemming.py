"""Notes in German, Spanish, French, Portuguese, Italian and Dutch found by another inflection of
their words (Snowball stems, store.language), English notes ranked by porter as before, the
frontmatter's ``lang:`` over detection, and the upgrade of an index written before schema 11."""

from __future__ import annotations

import pytest

from tests.kb_helpers import text_only_kb, write

NOTES = {
    "de/dateien.md": """
        # Dateien verwalten

        - Lösche eine Datei aus dem Verzeichnis, wenn sie nicht mehr gebraucht wird.
        - Zeige den Inhalt der Datei an und kopiere sie in einen anderen Ordner.
        """,
    "es/archivos.md": """
        # Archivos

        - Comprime un archivo con el nivel más alto y lo guarda en el disco.
        - Muestra los archivos de la carpeta que se crearon hoy.
        """,
    "fr/fichiers.md": """
        # Les fichiers

        - La commande affichera les fichiers du dossier dans une liste.
        - Elle copie le fichier vers un autre dossier pour la sauvegarde.
        """,
    "pt/ficheiros.md": """
        # Ficheiros

        - O comando apaga os ficheiros da pasta que não são mais usados.
        - Mostra uma lista com todos os ficheiros e o seu tamanho.
        """,
    "it/documenti.md": """
        # Documenti

        - Il comando cancella il documento dalla cartella che non è più usato.
        - Mostra la lista dei documenti con la loro dimensione.
        """,
    "nl/map.md": """
        # Mappen

        - Het commando toont een bestand uit de map en opent het in een venster.
        - Het is niet mogelijk om de map te openen voor een andere gebruiker.
        """,
    "en/files.md": """
        # Managing files

        - Delete a file from the folder when it is no longer needed.
        - Show the contents of the file and copy it into another folder.
        """,
    "en/compression.md": """
        # Compression

        - Compress a file with the highest level and save it to the disk.
        - The compressed archives are listed with their sizes.
        """,
}

LANGS = {"de/dateien.md": "de", "es/archivos.md": "es", "fr/fichiers.md": "fr", "pt/ficheiros.md": "pt",
         "it/documenti.md": "it", "nl/map.md": "nl", "en/files.md": "", "en/compression.md": ""}


@pytest.fixture(scope="module")
def world_kb(tmp_path_factory):
    root = tmp_path_factory.mktemp("languages")
    for rel, text in NOTES.items():
        write(root / "notes", rel, text)
    kb = text_only_kb(root / "home", root / "notes")
    yield kb
    kb.close()


def relpaths(kb, query: str) -> list[str]:
    return [h.relpath for h in kb.search(query, k=10, mode="bm25").hits]


@pytest.mark.parametrize("query, note", [
    ("löschen", "de/dateien.md"),  # the note says "Lösche"
    ("comprimir", "es/archivos.md"),  # "Comprime"
    ("afficher", "fr/fichiers.md"),  # "affichera"
    ("apagar", "pt/ficheiros.md"),  # "apaga"
    ("cancellare", "it/documenti.md"),  # "cancella"
    ("bestanden", "nl/map.md"),  # "bestand"
])
def test_another_inflection_finds_the_note(world_kb, query, note):
    assert relpaths(world_kb, query)[:1] == [note]


def test_each_note_has_its_language_and_english_notes_no_stems(world_kb):
    conn = world_kb._store.conn
    langs = dict(conn.execute("SELECT path, lang FROM documents"))
    assert langs == LANGS
    stems = dict(conn.execute(
        "SELECT d.path, group_concat(c.stems, ' ') FROM chunks c JOIN documents d ON d.id = c.document_id "
        "GROUP BY d.path"))
    assert stems["en/files.md"] == "" and stems["en/compression.md"] == ""
    assert "\ue000losch" in stems["de/dateien.md"].split()


def test_english_queries_rank_as_the_porter_index_alone_ranks_them(world_kb):
    """An English query over English notes: the same notes in the same order, with the same
    scores, as the porter-stemmed columns alone give (the index's query before stems)."""
    from pms_tui.core.search import query as fts_query

    conn = world_kb._store.conn
    for query in ("delete files", "compressed archive sizes", "copy the contents", "folders"):
        expected = [r[0] for r in conn.execute(
            "SELECT d.path FROM chunks_fts f JOIN chunks c ON c.id = f.rowid JOIN documents d ON d.id = c.document_id "
            "WHERE chunks_fts MATCH ? AND d.lang = '' ORDER BY bm25(chunks_fts, 2, 1.5, 1, 1, 1)",
            (fts_query.build_match(query, prefix=False),))]
        found = [p for p in relpaths(world_kb, query) if p.startswith("en/")]
        assert found == expected, query
        assert expected, query


def test_an_english_query_finds_no_note_through_a_stem(world_kb):
    """"compressed" stems to "compress" in German, Spanish and others' rules too; English notes
    hold no stems, and only the porter words match them."""
    conn = world_kb._store.conn
    (stems,) = conn.execute("SELECT group_concat(stems, '') FROM chunks c JOIN documents d "
                            "ON d.id = c.document_id WHERE d.lang = ''").fetchone()
    assert stems == ""
    assert relpaths(world_kb, "compressed") == ["en/compression.md"]


def test_frontmatter_lang_overrides_detection(tmp_path):
    from pms_tui.core.store.language import detect

    text = "- Lösche eine Datei aus dem Verzeichnis, wenn sie nicht mehr gebraucht wird.\n"
    assert detect([text]) == "de"
    write(tmp_path / "notes", "tagged-en.md", "---\nlang: en\n---\n# Notiz\n\n" + text)
    write(tmp_path / "notes", "tagged-es.md", "---\nlanguage: es-MX\n---\n# Nota\n\nComprime el archivo.\n")
    write(tmp_path / "notes", "detected.md", "# Notiz\n\n" + text)
    write(tmp_path / "notes", "tagged-ja.md", "---\nlang: ja\n---\n# Notiz\n\n" + text)  # declared, not stemmed
    kb = text_only_kb(tmp_path / "home", tmp_path / "notes")
    try:
        langs = dict(kb._store.conn.execute("SELECT path, lang FROM documents"))
        assert langs == {"tagged-en.md": "", "tagged-es.md": "es", "detected.md": "de", "tagged-ja.md": ""}
        assert relpaths(kb, "löschen") == ["detected.md"]  # the note marked English is not stemmed
        assert relpaths(kb, "comprimir") == ["tagged-es.md"]  # three words, said Spanish by its frontmatter
    finally:
        kb.close()


def _as_schema_10(conn) -> None:
    """Make the file look as pms-tui's schema 10 wrote it: four full-text columns, no language."""
    from pms_tui.core.store.migrate_cjk import FTS_V5
    from pms_tui.core.store.term_counts import TABLES, TRIGGERS, recount

    for trigger in ("chunks_ai", "chunks_ad", "chunks_au"):
        conn.execute(f"DROP TRIGGER {trigger}")
    for table in ("fts_df_added_v", "fts_df_removed_v", "fts_df_added", "fts_df_removed", "chunks_fts"):
        conn.execute(f"DROP TABLE {table}")
    conn.execute("DROP INDEX documents_by_lang")
    conn.execute("ALTER TABLE chunks DROP COLUMN stems")
    conn.execute("ALTER TABLE documents DROP COLUMN lang")
    conn.execute(FTS_V5)
    conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild')")
    for statement in (*TABLES, *TRIGGERS):
        conn.execute(statement)
    recount(conn)
    conn.execute("UPDATE meta SET value = '10' WHERE key = 'schema_version'")


def test_an_index_from_schema_10_is_upgraded_with_progress(tmp_path):
    from pms_tui.core.kb import KnowledgeBase

    for rel, text in NOTES.items():
        write(tmp_path / "notes", rel, text)
    kb = text_only_kb(tmp_path / "home", tmp_path / "notes")
    before = kb.stats()
    english = relpaths(kb, "delete files")
    with kb._store.transaction() as conn:
        _as_schema_10(conn)
    kb.close()
    seen = []
    with KnowledgeBase(home=tmp_path / "home", embedder=None, upgrade_progress=lambda *a: seen.append(a)) as kb:
        assert relpaths(kb, "löschen")[:1] == ["de/dateien.md"]
        assert relpaths(kb, "comprimir")[:1] == ["es/archivos.md"]
        assert relpaths(kb, "delete files") == english
        assert dict(kb._store.conn.execute("SELECT path, lang FROM documents")) == LANGS
        after = kb.stats()
        assert (after["documents"], after["chunks"]) == (before["documents"], before["chunks"])
        assert all(c.ok for c in kb.doctor.checks() if c.label == "full-text")
        report = kb.sync(embed=False)
        assert not report.changed  # nothing re-read: the notes' rows were kept
        # the counts the planner reads match the rebuilt index
        vocab = dict(kb._store.conn.execute("SELECT term, doc FROM fts_df"))
        assert vocab.get("\ue000losch") == 1
    total = before["chunks"]
    assert seen[0][:2] == (0, total) and seen[-1][:2] == (total, total)


def test_typing_the_word_finds_the_note_as_it_grows(world_kb):
    for typed in ("lösch", "lösche", "löschen"):
        hits = world_kb.search(typed, k=3, mode="bm25", typing=True).hits
        assert [h.relpath for h in hits][:1] == ["de/dateien.md"], typed


def test_the_evidence_names_the_word_found_by_another_inflection(world_kb):
    result = world_kb.search("comprimir archivos", k=1, mode="bm25")
    evidence = world_kb.retrieval.evidence(result, result.hits[0])
    assert result.hits[0].relpath == "es/archivos.md"
    assert "comprimir" in evidence.matched["body"] and evidence.missing == []


def test_a_query_is_stemmed_in_the_languages_its_function_words_name(world_kb):
    from pms_tui.core.store.language import MARK

    lane = world_kb.retrieval.bm25
    assert sorted(lane.languages("löschen")) == ["de", "es", "fr", "it", "nl", "pt"]  # says nothing: all
    assert lane.languages("die Datei löschen") == ["de"]
    assert lane.languages("comprimir los archivos") == ["es"]
    assert lane.languages("copy the file to another folder") == []  # English: the porter words alone
    match = lane.build_match("verify the signature of a tag", prefix=False)
    assert MARK not in match
    assert f'"{MARK}losch"' in lane.build_match("die Datei löschen", prefix=False)


def test_an_english_sentence_ranks_a_german_page_quoting_its_words_as_before(tmp_path):
    """A German page quoting English words in code must not gain on an English note by them:
    an English sentence is ranked by its porter words alone, as before."""
    write(tmp_path / "notes", "de/git.md", """
        # git

        - Überprüfe die Signatur eines Tags, wenn sie mit dem Schlüssel erstellt wurde:

        `git tag --verify signature {{tag}}`
        """)
    write(tmp_path / "notes", "en/tags.md", """
        # Verify a signature

        Check the tag before you trust the release, and keep the key safe.
        """)
    for i, topic in enumerate(["bread baking", "river fishing", "mountain hiking", "garden roses"]):
        write(tmp_path / "notes", f"en/other{i}.md", f"# {topic}\n\nNotes about {topic} and the plans for next week.\n")
    kb = text_only_kb(tmp_path / "home", tmp_path / "notes")
    try:
        hits = kb.search("verify the signature of a tag", k=2, mode="bm25").hits
        expected = [r[0] for r in kb._store.conn.execute(
            "SELECT d.path FROM chunks_fts f JOIN chunks c ON c.id = f.rowid JOIN documents d ON d.id = c.document_id "
            "WHERE chunks_fts MATCH ? ORDER BY bm25(chunks_fts, 2, 1.5, 1, 1, 1)",
            ('"verify" OR "signature" OR "tag"',))]
        assert [h.relpath for h in hits] == expected == ["en/tags.md", "de/git.md"]
    finally:
        kb.close()


def test_bm25_holds_a_word_it_found_by_another_inflection(world_kb):
    """Query-aware fusion's coverage counts the phrases BM25 ran, the stems among them."""
    from pms_tui.core.search import lane_trust

    hit = world_kb.search("löschen", k=1, mode="bm25").hits[0]
    assert hit.relpath == "de/dateien.md"
    assert lane_trust.coverage(world_kb.retrieval.signal_sources(), "löschen", hit.chunk_id) > 0
