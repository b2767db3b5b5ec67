"""A running app or `pms-tui mcp` serves query vectors to one-shot searches of its home
(``core.query_vectors.service``): the search forks no helper and loads no model, and answers as
without the server; a socket left by a killed process, another model or another window falls
back to the helper; the socket is the owner's alone."""

from __future__ import annotations

import os
import socket
import stat

import numpy as np

from pms_tui.core.query_vectors import service as query_service
from tests.test_oneshot_search import _search


def test_a_search_takes_its_vector_from_the_running_server(synced_kb):
    home = synced_kb.home
    alone, probe = _search(home, "soft reset tag:git", "hybrid")  # no server: the helper embeds
    assert probe["helpers"] == 1
    for kept in (home / "cache" / "query-vectors").glob("*.vec"):
        kept.unlink()

    synced_kb.model.load()
    assert synced_kb.model.serve_query_vectors()
    path = query_service.socket_path(home)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    served, probe = _search(home, "soft reset tag:git", "hybrid")
    assert probe["helpers"] == 0 and "fastembed" not in probe["loaded"] and "onnxruntime" not in probe["loaded"]
    assert served["hits"] == alone["hits"] and served["hits"][0]["vector_rank"] is not None

    answer = query_service.ask(home, "soft reset tag:git", synced_kb._embedder.model_name, 128)
    assert answer is None  # another window: another vector, so the client embeds itself
    answer = query_service.ask(home, "soft reset tag:git", synced_kb._embedder.model_name,
                               synced_kb._embedder.max_tokens)
    head, _, body = answer.partition(b"\n")
    assert head == b'"soft reset"'
    assert np.array_equal(np.frombuffer(body, "<f4"), synced_kb._embedder.embed_query("soft reset"))

    assert not synced_kb.model.serve_query_vectors()  # one server per knowledge base
    other = query_service.QueryVectorServer(home, synced_kb._embedder, str)
    assert not other.start()  # the socket is alive: a second process does not take it over
    synced_kb.close()
    assert not path.exists()


def test_a_socket_left_by_a_killed_process_is_ignored_then_replaced(synced_kb):
    home = synced_kb.home
    path = query_service.socket_path(home)
    path.parent.mkdir(mode=0o700, exist_ok=True)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(path))
    dead.close()  # the file stays, nothing listens
    result, probe = _search(home, "pancakes breakfast", "hybrid")
    assert probe["helpers"] == 1 and result["hits"]

    synced_kb.model.load()
    assert synced_kb.model.serve_query_vectors()
    assert query_service.ask(home, "eggs", synced_kb._embedder.model_name, synced_kb._embedder.max_tokens)
    synced_kb.close()


def test_a_connection_from_another_user_is_refused(synced_kb, monkeypatch):
    synced_kb.model.load()
    assert synced_kb.model.serve_query_vectors()
    real = os.getuid()
    monkeypatch.setattr(query_service.os, "getuid", lambda: real + 1)  # the server sees a stranger
    assert query_service.ask(synced_kb.home, "eggs", synced_kb._embedder.model_name,
                             synced_kb._embedder.max_tokens) is None
    synced_kb.close()


def test_the_app_serves_while_it_runs(synced_kb):
    from tests.tui.tui_helpers import make_app, run, wait_for_model

    home = synced_kb.home
    synced_kb.close()
    path = query_service.socket_path(home)

    async def scenario():
        app = make_app(home)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_for_model(app, pilot)
            assert app.search_screen.model_state == "ready" and path.exists()
            served, probe = _search(home, "pancakes breakfast", "hybrid")
            assert probe["helpers"] == 0 and served["hits"]
        assert not path.exists()  # the app left: searches embed themselves again

    run(scenario())
