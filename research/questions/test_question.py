"""Is a query asked in words (research/questions/question.py): pure logic on the text."""

from __future__ import annotations

import pytest

from question import asked


@pytest.mark.parametrize("text", [
    "how to publish my notes as a website",
    "how do I link to a specific heading in another note",
    "can I put a youtube video in my note",
    "my links break when I rename a file",
    "why does my crontab job not find commands",
    "wie pflanze ich Tomaten auf dem Balkon",
    "cómo escribir un archivo de unidad de systemd",
    "¿qué es esto",
    "what is this?",
    "如何照顾多肉植物",
    "zsh の設定ファイルが読み込まれる順番には",
])
def test_questions_and_sentences_are_asked(text):
    assert asked(text)


@pytest.mark.parametrize("text", [
    "canvas",
    "nested tags",
    "frontmatter yaml metadata",
    "pg_stat_progress_create_index",
    "receive_message_chain('new.approve.send_welcome_email')",
    "how to use git --amend",  # carries code: a lookup whatever its words
    "Get-ChildItem recurse hidden files in a folder",
    "folder size disk usage",
    "",
    "   ",
    "how",
])
def test_keywords_names_and_code_are_not(text):
    assert not asked(text)
