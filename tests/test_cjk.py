"""Notes in Chinese, Japanese and Korean found by their words (BM25's CJK pairs, store.cjk),
beside German and French notes whose search does not change; the upgrade of an index written
before the ``cjk`` column; the CLI."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.kb_helpers import write

NOTES = {
    "zh/database.md": """
        # 数据库索引

        为了加快查询速度，我们在数据库中创建索引。使用git命令提交代码。
        """,
    "zh/cooking.md": """
        # 红烧肉

        先把五花肉切块，然后用酱油和冰糖慢慢炖煮一个小时。
        """,
    "ja/bread.md": """
        # パン作り

        パン生地を一晩発酵させると、風味が良くなります。東京の猫は可愛い。
        """,
    "ja/train.md": """
        # 新幹線の旅

        東京から大阪まで新幹線で二時間半かかります。駅弁を買いました。
        """,
    "ko/database.md": """
        # 데이터베이스

        데이터베이스를 사용하여 정보를 저장합니다. 인덱스가 검색을 빠르게 합니다.
        """,
    "de/index.md": """
        # Datenbankindex

        Ein Index beschleunigt Abfragen in der Datenbank erheblich. Die Bäckerei öffnet früh.
        """,
    "fr/pain.md": """
        # Pain au levain

        La pâte lève pendant la nuit avant la cuisson du pain. Le café est très chaud.
        """,
}


@pytest.fixture(scope="module")
def world_kb(tmp_path_factory):
    from pms_tui.core.kb import KnowledgeBase

    root = tmp_path_factory.mktemp("world")
    for rel, text in NOTES.items():
        write(root / "notes", rel, text)
    kb = KnowledgeBase(home=root / "home")
    kb.collections.create(root / "notes", name="world")
    kb.sync()
    yield kb
    kb.close()


def first(kb, query: str, mode: str = "bm25") -> str | None:
    hits = kb.search(query, k=3, mode=mode).hits
    return hits[0].relpath if hits else None


@pytest.mark.parametrize("query, note", [
    ("索引", "zh/database.md"),  # a word inside a run
    ("数据库", "zh/database.md"),
    ("据库", "zh/database.md"),  # any two characters of a run
    ("库索", "zh/database.md"),
    ("冰糖", "zh/cooking.md"),
    ("git", "zh/database.md"),  # Latin letters inside a Chinese run
    ("発酵", "ja/bread.md"),
    ("生地", "ja/bread.md"),
    ("猫", "ja/bread.md"),  # one character, at the end of a run
    ("新幹線", "ja/train.md"),
    ("大阪", "ja/train.md"),
    ("데이터베이스", "ko/database.md"),  # the particle 를 attached in the note
    ("인덱스", "ko/database.md"),
    ("Datenbank", "de/index.md"),
    ("Bäckerei", "de/index.md"),
    ("pâte", "fr/pain.md"),
    ("cafe", "fr/pain.md"),  # diacritics folded as before
])
def test_a_word_finds_its_note(world_kb, query, note):
    assert first(world_kb, query) == note
    assert first(world_kb, query, "hybrid") == note


def test_every_pair_of_a_run_finds_its_passage(world_kb):
    run = "为了加快查询速度"
    for i in range(len(run) - 1):
        assert first(world_kb, run[i:i + 2]) == "zh/database.md", run[i:i + 2]


def test_a_pair_spanning_two_runs_finds_nothing(world_kb):
    # 索引。使用 : the full stop separates the runs, so 引使 is no word of the note
    assert first(world_kb, "引使") is None


def test_phrases_and_exclusions_with_cjk(world_kb):
    assert [h.relpath for h in world_kb.search('"数据库索引"', mode="bm25").hits] == ["zh/database.md"]
    assert not world_kb.search('"索引数据"', mode="bm25").hits  # not written so
    assert [h.relpath for h in world_kb.search('東京 -"新幹線"', mode="bm25").hits] == ["ja/bread.md"]


def test_the_snippet_marks_the_cjk_word(world_kb):
    hit = world_kb.search("発酵", k=1).hits[0]
    assert "«発酵»" in hit.snippet
    hit = world_kb.search("git", k=1, mode="bm25").hits[0]
    assert "«git»" in hit.snippet


def test_typing_a_word_finds_it_as_it_grows(world_kb):
    for typed in ("新", "新幹", "新幹線"):
        assert first(world_kb, typed) == "ja/train.md", typed


def test_the_evidence_names_the_cjk_word(world_kb):
    result = world_kb.search("数据库 查询", k=1)
    evidence = world_kb.retrieval.evidence(result, result.hits[0])
    assert "数据库" in evidence.matched["title"] and "查询" in evidence.matched["body"]
    assert evidence.missing == []
    assert evidence.stems["数据库"] == ["数据", "据库"]


def test_latin_notes_keep_an_empty_cjk_column(world_kb):
    rows = dict(world_kb._store.conn.execute(
        "SELECT d.path, group_concat(c.cjk, '') FROM chunks c JOIN documents d ON d.id = c.document_id "
        "GROUP BY d.path"))
    assert rows["de/index.md"] == "" and rows["fr/pain.md"] == ""
    assert "索引" in rows["zh/database.md"].split()


def _as_schema_5(conn) -> None:
    """Make the file look as pms-tui's schema 5 wrote it: three full-text columns, no cjk."""
    for trigger in ("chunks_ai", "chunks_ad", "chunks_au"):
        conn.execute(f"DROP TRIGGER {trigger}")
    conn.execute("DROP TABLE chunks_fts")
    conn.execute("ALTER TABLE chunks DROP COLUMN cjk")
    conn.execute("CREATE VIRTUAL TABLE chunks_fts USING fts5(title, heading, body, content='chunks', "
                 "content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')")
    conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild')")
    conn.execute("UPDATE meta SET value = '5' WHERE key = 'schema_version'")


def test_an_index_from_schema_5_is_upgraded_with_progress(tmp_path):
    from pms_tui.core.kb import KnowledgeBase

    for rel, text in NOTES.items():
        write(tmp_path / "notes", rel, text)
    home = tmp_path / "home"
    with KnowledgeBase(home=home) as kb:
        kb.collections.create(tmp_path / "notes", name="world")
        kb.sync()
        before = kb.stats()
        with kb._store.transaction() as conn:
            _as_schema_5(conn)
    seen = []
    with KnowledgeBase(home=home, upgrade_progress=lambda *a: seen.append(a)) as kb:
        assert first(kb, "索引") == "zh/database.md"
        assert first(kb, "Datenbank") == "de/index.md"
        after = kb.stats()
        assert (after["documents"], after["chunks"], after["vectors"]) == (
            before["documents"], before["chunks"], before["vectors"])
        assert all(c.ok for c in kb.doctor.checks() if c.label == "full-text")
        report = kb.sync()
        assert not report.changed  # nothing to re-index: the notes' rows were kept
    assert seen[0][:2] == (0, len(NOTES)) and seen[-1][:2] == (len(NOTES), len(NOTES))


def test_the_cli_finds_a_cjk_word(world_kb):
    out = subprocess.run(
        [sys.executable, "-m", "pms_tui.cli", "--home", str(world_kb.home), "search", "発酵", "--json"],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout
    hits = json.loads(out)["hits"]
    assert hits[0]["path"] == "ja/bread.md" and "«発酵»" in hits[0]["snippet"]
