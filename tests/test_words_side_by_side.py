"""Words side by side, the example: "vendor api rate limit" must find the note that says "The
vendor API may rate limit us" above command pages holding three of the words apart. The
pages here are written for the test in the shape of tldr pages (a title, a summary, commands
with a line each). BM25 already ranks the note first (its four words, one of them rare), so a
proximity signal inside the BM25 lane has nothing to lift; measured anyway in
research/proximity/ (docs/evaluation.md, "Tried and dropped")."""

from __future__ import annotations

from tests.kb_helpers import write

PAGES = {
    "notes/vendor.md": "# Integration notes\n\nThe vendor API may rate limit us, so the nightly sync retries with backoff.\n",
    "pages/cloudctl-account.md": """
        # cloudctl account

        > Show details of your cloud account.

        - Show the account:

        `cloudctl account get`

        - Show the API request limit per hour, how much of it is used, and when the rate limit resets:

        `cloudctl account ratelimit`
        """,
    "pages/pv.md": """
        # pv

        > Monitor the progress of data through a pipe.

        - Limit the transfer rate to 1 MiB per second:

        `pv -L 1m path/to/file > path/to/out`
        """,
    "pages/cargo-vendor.md": """
        # cargo vendor

        > Vendor all dependencies of a project into a folder.

        - Vendor the dependencies into a folder:

        `cargo vendor path/to/folder`
        """,
    "pages/webget.md": """
        # webget

        > Download files over HTTP.

        - Limit the download rate to 100 KB per second:

        `webget --limit-rate 100k https://example.com/file`

        - Send a request to a JSON API with a header:

        `webget --header "Accept: application/json" https://example.com/api`
        """,
}


def test_the_note_that_says_the_words_together_comes_first(kb, tmp_path):
    folder = tmp_path / "notes"
    for rel, text in PAGES.items():
        write(folder, rel, text)
    for i in range(10):  # pages without the query's words
        write(folder, f"pages/tool{i}.md", f"# tool{i}\n\n> Format and print text files, number {i}.\n\n- Print:\n\n`tool{i} file`\n")
    kb.collections.create(folder, name="notes")
    kb.sync()
    bm25 = kb.search("vendor api rate limit", k=5, mode="bm25").hits
    assert bm25[0].relpath == "notes/vendor.md"
    assert "pages/cloudctl-account.md" in [h.relpath for h in bm25[1:]]  # three of the words, apart
    hybrid = kb.search("vendor api rate limit", k=5).hits
    assert hybrid[0].relpath == "notes/vendor.md"
    assert hybrid[0].bm25_rank == 1
